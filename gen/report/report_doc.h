/*
 * report_doc.h - the run report as one document (doc.h): the sections every
 * format shows, in order, built once from a struct rctx and drawn by the
 * HTML, Markdown and PDF writers.
 */
#ifndef BENCHGEN_REPORT_DOC_H
#define BENCHGEN_REPORT_DOC_H

#include "report/doc.h"
#include "report/rctx.h"

/* Fills d (zeroed) from x, whose figures it borrows; the caller releases it
 * with doc_free(), also after an error. 0, or the document's first error
 * (doc_error(), report/doc.h). */
int report_doc_build(struct doc *d, const struct rctx *x);

#endif /* BENCHGEN_REPORT_DOC_H */
