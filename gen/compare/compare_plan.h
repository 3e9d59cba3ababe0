/*
 * compare_plan.h - `benchgen compare --plan RUN_DIR [--effect PCT]`: from a
 * run's repeats, how many processes per side would a comparison need to
 * find a change of a given size in each cell?
 *
 * Per cell: the between-process CV of the run's per-process means, the
 * noise band compare would use (the larger of --noise and that CV), and the
 * processes per side for a two-sided t-test at level alpha to find the
 * effect with 80% probability (stats/tdist.h). Cells whose noise is at least
 * the effect can never show it; cells with fewer than two processes cannot
 * be planned (their CV is unknown). docs/COMPARE.md, "Planning".
 */
#ifndef BENCHGEN_COMPARE_PLAN_H
#define BENCHGEN_COMPARE_PLAN_H

#include <stdio.h>

#include "compare/compare.h"

/* Prints the plan for run_dir; effect is a fraction (0.05). 0, or
 * BG_ENOTFOUND / BG_EDB for a run that cannot be read. */
int compare_plan(const char *run_dir, double effect, const struct compare_options *opt, FILE *out);

#endif /* BENCHGEN_COMPARE_PLAN_H */
