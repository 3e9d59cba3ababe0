/*
 * workbook.h - report.xlsx (libxlsxwriter): Summary laid out like the
 * published table (rows = model/task with batch size, columns = backends,
 * a "Keras 3 (best)" column, the row's best cell highlighted), Speedup,
 * Statistics, Samples (every step time), Environment and Method sheets, with
 * native Excel charts, conditional formatting, frozen header rows and
 * autofilters. NA cells are text ("NA (error)"), never NaN or Inf; the
 * creation date is the run's, so the bytes do not change between renders.
 */
#ifndef BENCHGEN_WORKBOOK_H
#define BENCHGEN_WORKBOOK_H

#include "rctx.h"

int workbook_write(const struct rctx *x, const char *path);

#endif /* BENCHGEN_WORKBOOK_H */
