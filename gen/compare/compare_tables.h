/*
 * compare_tables.h - the comparison report's tables, built from a struct
 * crep and drawn by every document format: the runs, per comparison the
 * verdicts, the geometric means and the environment differences, and the
 * trend over three or more runs. Numbers are formatted as compare.txt
 * prints them; a cell without a verdict says why, never shows a ratio.
 *
 * Each fills t (a fresh table the caller releases with table_free(), also
 * after an error) and returns table_finish()'s result: 0, or the table's
 * first error (report/tables.h).
 */
#ifndef BENCHGEN_COMPARE_TABLES_H
#define BENCHGEN_COMPARE_TABLES_H

#include "compare/crep.h"

int compare_tables_runs(const struct crep *x, struct table *t);
int compare_tables_verdicts(const struct compare_pair *p, struct table *t);
int compare_tables_geomeans(const struct compare_pair *p, struct table *t);
int compare_tables_envs(const struct compare_pair *p, struct table *t);
int compare_tables_trend(const struct crep *x, struct table *t);

#endif /* BENCHGEN_COMPARE_TABLES_H */
