/*
 * compare_workbook.h - compare.xlsx: Verdicts (conditional formatting),
 * Geomean, Environment diff, Trend (three or more runs) and Runs, every
 * number as a number and every NA as its reason.
 */
#ifndef BENCHGEN_COMPARE_WORKBOOK_H
#define BENCHGEN_COMPARE_WORKBOOK_H

#include "compare/crep.h"

/* 0, or a BG_E* code with the reason in error_last(). */
int compare_workbook_write(const struct crep *x, const char *path);

#endif /* BENCHGEN_COMPARE_WORKBOOK_H */
