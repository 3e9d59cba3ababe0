/*
 * doc_html.h - report.html: one self-contained file (inline SVG charts and
 * CSS, no script, no network) from templates/report.html and report.css.
 * Every string from the run is HTML-escaped.
 */
#ifndef BENCHGEN_DOC_HTML_H
#define BENCHGEN_DOC_HTML_H

#include <stdint.h>

#include "base/util.h"
#include "report/doc.h"
#include "report/tables.h"

/* The document d in templates/<template_name> (its {{title}},
 * {{description}}, {{generator}}, {{{css}}} from report.css, {{{nav}}}: a
 * link to every titled section, {{{body}}}), written to path. Needs the
 * figures rendered with their SVG text kept (figures_render keep_svg). */
int doc_html_write(const struct doc *d, const char *template_name, const char *path);

/* The building blocks doc_html_write uses. Each appends to sb with no check
 * per call: the strbuf remembers its first error (base/util.h), which the
 * caller checks once with strbuf_error() when the document is built. */

/* A table in a scrolling div; "None." for an empty one. */
void doc_html_table(struct strbuf *sb, const struct table *t);

/* Paragraphs as <p>, runs of "- " items as one <ul>. */
void doc_html_paragraphs(struct strbuf *sb, char **paras, size_t n);

/* The glyph outlines shared by every SVG inlined into one document: start
 * it zeroed ({0}), pass it to every doc_html_figure() call of the document,
 * release it with doc_html_glyphs_free(). The fields are private. */
struct doc_html_glyph;
struct doc_html_glyphs {
    struct doc_html_glyph *defs;
    size_t n, cap;
    size_t *slots;
    size_t nslots;
};
void doc_html_glyphs_free(struct doc_html_glyphs *g);

/* A <figure id="fig-NAME"> with f->svg inlined (ids prefixed "f<k>-": k must
 * differ between the figures of a document) and a caption linking
 * charts/NAME.{png,svg,pdf}. */
void doc_html_figure(struct strbuf *sb, const struct figure *f, size_t k, struct doc_html_glyphs *g,
                     unsigned chart_files);

/* Every block of d, in order. */
void doc_html_render(struct strbuf *sb, const struct doc *d, struct doc_html_glyphs *g);

#endif /* BENCHGEN_DOC_HTML_H */
