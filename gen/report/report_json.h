/*
 * report_json.h - the machine-readable files beside the documents:
 * report.json (format "benchgen-report/1": per cell its statistics,
 * throughput, status and environment; per row the published table's
 * numbers, the fastest backend, throughput and speed-up; the answer) and
 * summary.csv (the published table: one line per row, mean ms/step per
 * backend and Keras 3 (best)). Both are documented in docs/RUN-FORMAT.md.
 *
 * Same run, same bytes: nothing reads the clock or the run directory's
 * path; the JSON is written by base/json.h (sorted keys, 15 significant
 * digits) and the CSV's numbers with the same 15 significant digits, so
 * every value equals `benchgen show --json`'s.
 */
#ifndef BENCHGEN_REPORT_JSON_H
#define BENCHGEN_REPORT_JSON_H

#include "report/rctx.h"

#define REPORT_JSON_FORMAT "benchgen-report/1"

/* Writes DIR/report.json and DIR/summary.csv (each through a temporary file
 * renamed into place). x->answer may be NULL. 0, BG_EIO, or BG_EGENERIC for
 * what jansson or a format refuses (out of memory exits, base/xalloc.h). */
int report_json_write(const struct rctx *x, const char *dir);

#endif /* BENCHGEN_REPORT_JSON_H */
