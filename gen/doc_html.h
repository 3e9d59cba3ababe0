/*
 * doc_html.h - report.html: one self-contained file (inline SVG charts and
 * CSS, no script, no network) from templates/report.html and report.css.
 * Every string from the run is HTML-escaped.
 */
#ifndef BENCHGEN_DOC_HTML_H
#define BENCHGEN_DOC_HTML_H

#include "rctx.h"

/* Needs the figures rendered with their SVG text kept (figures_render keep_svg). */
int doc_html_write(const struct rctx *x, const char *path);

#endif /* BENCHGEN_DOC_HTML_H */
