/*
 * doc_pdf.h - report.pdf: a multi-page A4 landscape document drawn with
 * cairo and pango from the pinned fonts, charts as vectors (the same draw
 * functions as the chart files). Text is laid out as plain text, never
 * markup, so run metadata is shown exactly as stored. Its dates come from the
 * run, so the bytes do not change between renders.
 */
#ifndef BENCHGEN_DOC_PDF_H
#define BENCHGEN_DOC_PDF_H

#include "rctx.h"

int doc_pdf_write(const struct rctx *x, const char *path);

#endif /* BENCHGEN_DOC_PDF_H */
