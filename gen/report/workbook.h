/*
 * workbook.h - report.xlsx (libxlsxwriter): Summary laid out like the
 * published table (rows = model/task with batch size, columns = backends,
 * a "Keras 3 (best)" column, the row's best cell highlighted), Speedup,
 * Statistics, Samples (every step time), Environment and Method sheets (after
 * the Answer sheet), with
 * native Excel charts, conditional formatting, frozen header rows and
 * autofilters. NA cells are text ("NA (error)"), never NaN or Inf; the
 * creation date is the run's, so the bytes do not change between renders.
 */
#ifndef BENCHGEN_WORKBOOK_H
#define BENCHGEN_WORKBOOK_H

#include "report/doc.h"
#include "report/rctx.h"
#include "report/workbook_cells.h"

/* d: the report's document; its "answer" section opens the workbook as
 * the Answer sheet (NULL: no Answer sheet). */
int workbook_write(const struct rctx *x, const struct doc *d, const char *path);

#endif /* BENCHGEN_WORKBOOK_H */
