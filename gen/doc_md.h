/*
 * doc_md.h - report.md: GitHub-flavoured Markdown for release notes, from
 * templates/report.md, with the charts linked as PNG files. Every string
 * from the run is Markdown-escaped (escape_md) or fenced (escape_md_code).
 */
#ifndef BENCHGEN_DOC_MD_H
#define BENCHGEN_DOC_MD_H

#include "rctx.h"

/* charts_rel: the charts folder relative to the Markdown file ("charts"). */
int doc_md_write(const struct rctx *x, const char *path, const char *charts_rel);

#endif /* BENCHGEN_DOC_MD_H */
