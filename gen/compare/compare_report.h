/*
 * compare_report.h - `benchgen compare RUN_A RUN_B [RUN_C ...] --out DIR` in
 * the report's formats, next to the compare.txt and compare.json that
 * compare.c writes there:
 *
 *   compare.html         one self-contained page (inline SVG, no script)
 *   compare.md           GitHub-flavoured Markdown, charts linked as PNG
 *   compare.pdf          A4 landscape, cairo + pango, charts as vectors
 *   compare.xlsx         Verdicts (conditional formatting), Geomean,
 *                        Environment diff, Trend (three or more runs), Runs
 *   charts/forest-K[-N]  per comparison K: each cell's ratio B/A with its
 *                        confidence interval and the noise band, untested
 *                        cells with their reason, geometric means (PNG, SVG, PDF)
 *   charts/trend-N       three or more runs: each cell's ms/step in every run
 *
 * Every document shows, per comparison: the intent, the verdict table (ratio,
 * interval, q, verdict, why, confounding), the forest plot, the geometric
 * mean per backend and overall, and the environment diff; then the trend.
 * Cells without a verdict (mismatch, a side not ok, a cell on one side only)
 * show "NA (reason)", never a ratio.
 *
 * Same inputs, same bytes: dates come from the baseline run's created_utc,
 * fonts from fonts/, figures are drawn in a fixed order, and nothing depends
 * on the run directories' paths. Every string from the runs is escaped for
 * its format (escape.h) or drawn as plain text (PDF, charts).
 */
#ifndef BENCHGEN_COMPARE_REPORT_H
#define BENCHGEN_COMPARE_REPORT_H

#include "compare/compare.h"

/* Writes the files above into out_dir (created if missing), replacing
 * files of the same names and removing nothing: `compare --out` renders into
 * a fresh stage and moves it into place (report/outdir.h), which is where
 * an earlier comparison's files are replaced or removed. Reads templates/
 * and fonts/ from the benchgen home.
 * Returns 0 or a BG_E* code with the reason in error_last(). */
int compare_report_render(const struct compare_result *r, const char *out_dir);

#endif /* BENCHGEN_COMPARE_REPORT_H */
