/*
 * doc_md.h - report.md: GitHub-flavoured Markdown for release notes, from
 * templates/report.md, with the charts linked as PNG files. Every string
 * from the run is Markdown-escaped (escape_md) or fenced (escape_md_code).
 */
#ifndef BENCHGEN_DOC_MD_H
#define BENCHGEN_DOC_MD_H

#include "base/util.h"
#include "report/doc.h"
#include "report/tables.h"

/* The document d in templates/<template_name> ({{title}}, {{description}},
 * {{generator}}, {{{body}}}), written to path; charts_rel: the charts folder
 * relative to the Markdown file ("charts"). */
int doc_md_write(const struct doc *d, const char *template_name, const char *path, const char *charts_rel);

/* The building blocks doc_md_write uses. Each appends to sb with no check
 * per call: the strbuf remembers its first error (base/util.h), which the
 * caller checks once with strbuf_error() when the document is built. */

/* A table: the caption as a paragraph, then a GFM table ("_None._" when empty);
 * bold cells as **text**, warnings with a warning sign. */
void doc_md_table(struct strbuf *sb, const struct table *t);

/* Paragraphs; "- " items as a list. */
void doc_md_paragraphs(struct strbuf *sb, char **paras, size_t n);

/* "![title](charts_rel/NAME.png)" and a blank line. */
void doc_md_figure(struct strbuf *sb, const struct figure *f, const char *charts_rel);

/* Every block of d, in order. */
void doc_md_render(struct strbuf *sb, const struct doc *d, const char *charts_rel);

#endif /* BENCHGEN_DOC_MD_H */
