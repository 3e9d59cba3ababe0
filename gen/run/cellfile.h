/*
 * cellfile.h - the files a run directory's cells travel through when they
 * run in other processes or on other machines (benchgen cell, the local
 * executor with --devices/--cpus-per-cell, the Slurm executor):
 *
 *   RUN_DIR/cells/plan.json        every cell of the plan, with all its
 *                                  settings and cluster resources (which
 *                                  run.db does not keep); a task only
 *                                  reads run.db, to check its cell's
 *                                  settings against it; written when the
 *                                  run is created
 *   RUN_DIR/cells/<id>/<tag>.json  one file per attempt of cell <id>: the
 *                                  full result (status, detail, samples,
 *                                  markers, facts, environment), the
 *                                  settings it ran with and its signature
 *   RUN_DIR/cells/<id>/<tag>.slurm.json
 *                                  the submitting side's verdict on an
 *                                  attempt that Slurm ended (TIMEOUT, ...)
 *                                  before it could write one, or after it
 *                                  wrote `interrupted`
 *
 * Every file is written to a temporary name, fsynced and renamed, so a
 * reader sees a whole file or none. The attempt tag is "s<array job>_<task>
 * .<restart>" under Slurm and "l<ns>.<slot>" locally; the attempt a result
 * belongs to is the tag, so a verdict does not count as another attempt.
 * Nothing in these files is trusted: merging (run/collect.h) checks each
 * against run.db (run/cellcheck.h).
 *
 * Ownership: the caller owns what the loaders fill (matrix_free(),
 * json_decref()).
 */
#ifndef BENCHGEN_CELLFILE_H
#define BENCHGEN_CELLFILE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "plan/matrix.h"
#include "run/cellcheck.h"
#include "store/result.h"
#include "store/store.h"

#define CELLFILE_PLAN_FORMAT "benchgen-plan/1"
#define CELLFILE_ATTEMPT_FORMAT CELLCHECK_FORMAT
/* The largest result file merged (telemetry included). */
#define CELLFILE_MAX_BYTES (64u << 20)

/* Writes RUN_DIR/cells/plan.json for plan. */
int cellfile_write_plan(const char *run_dir, const struct matrix *plan);

/* Writes RUN_DIR/cells/plan.json from run.db's plan unless it is there
 * (`run` writes it at creation, with each cell's cluster resources, which
 * run.db does not keep: an existing plan.json is the original). */
int cellfile_ensure_plan(const char *run_dir, struct store *st);

/* Loads RUN_DIR/cells/plan.json. */
int cellfile_read_plan(const char *run_dir, struct matrix *out);

/* Writes RUN_DIR/cells/<id>/<tag>.json (verdict: <tag>.slurm.json): the
 * result, the plan settings the cell ran with and, with key (the attempt's
 * private key, run/cellkey.h; NULL for a verdict), its signature. */
int cellfile_write_attempt(const char *run_dir, const struct cell *c, const char *tag, int verdict,
                           const struct result *r, const char *key);

/* Opens RUN_DIR/cells/<id> (never through a link): *fd is -1 (and 0
 * returned) when there is none. */
int cellfile_open_cell(const char *run_dir, int id, int *fd);

/* Reads the JSON file name (relative to dirfd, or AT_FDCWD) as a result
 * file is read: a regular file only (a FIFO, device, directory or link is
 * refused without blocking on it or following it), at most max bytes, no
 * key twice. shown names it in messages. *out is the caller's (json_decref). */
int cellfile_load(int dirfd, const char *name, const char *shown, size_t max, json_t **out);

/* RUN_DIR/cells, malloc'd. */
char *cellfile_dir(const char *run_dir);

#endif /* BENCHGEN_CELLFILE_H */
