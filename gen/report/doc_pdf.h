/*
 * doc_pdf.h - report.pdf: a multi-page A4 landscape document drawn with
 * cairo and pango from the pinned fonts, charts as vectors (the same draw
 * functions as the chart files). Text is laid out as plain text, never
 * markup, so run metadata is shown exactly as stored. Its dates come from the
 * run, so the bytes do not change between renders.
 */
#ifndef BENCHGEN_DOC_PDF_H
#define BENCHGEN_DOC_PDF_H

#include "report/doc.h"
#include "report/tables.h"

/* The document d as a PDF at path: its metadata are d's title, subject and
 * date (ISO 8601 UTC: the run's, never the clock); footer ends every page. */
int doc_pdf_write(const struct doc *d, const char *path, const char *subject, const char *date,
                  const char *footer);

/* The flowing layout doc_pdf_write draws with: a cursor moves down A4 landscape pages; each block asks
 * for the room it needs and starts a new page when it is not there.
 *
 * doc_pdf_open() starts a document whose PDF metadata are title, subject and
 * date (ISO 8601 UTC: the run's, never the clock; author "benchgen", creator
 * "benchgen VERSION") and whose pages end with footer and the page number.
 * doc_pdf_close() ends the last page and writes the document to path through
 * a temporary file (path NULL: discards it, after an error), and frees p. */
struct doc_pdf;
int doc_pdf_open(struct doc_pdf **out, const char *title, const char *subject, const char *date,
                 const char *footer);
int doc_pdf_close(struct doc_pdf *p, const char *path);

/* level 1: the title; 2: a section (a rule under it, an outline entry, never
 * at a page's foot); 3: a subsection. A heading is drawn with what follows it
 * (the next paragraph, table, code or figure), on a new page when both do not
 * fit, so no heading ends a page. */
void doc_pdf_heading(struct doc_pdf *p, const char *text, int level);
/* Wrapped plain text (never markup); bullet: a "- " list item. */
void doc_pdf_paragraph(struct doc_pdf *p, const char *text, enum chart_font f, double size, unsigned color,
                       int bullet);
/* Paragraphs at 9 pt; "- " ones as bullets. */
void doc_pdf_paragraphs(struct doc_pdf *p, char **paras, size_t n);
/* A table at font size `size`, header repeated after a page break; "None." when empty. */
void doc_pdf_table(struct doc_pdf *p, const struct table *t, double size);
/* A figure scaled to fit, drawn as vectors by its own draw function, with its caption.
 * A figure that would shrink below 80% to fit an A4 page's height gets a page
 * of its own, as tall as it needs (doc_pdf_figure_scale). */
int doc_pdf_figure(struct doc_pdf *p, const struct figure *f);
/* The scale a w x h figure is drawn at, and the height of its page:
 * PAGE_H, or taller for a figure too tall to fit at 80% of its width-fit scale. */
double doc_pdf_figure_scale(double w, double h, double *page_h);
/* A monospaced block, one line at a time. */
void doc_pdf_code(struct doc_pdf *p, const char *text);
/* The title, subtitle and every block of d, in order. */
int doc_pdf_render(struct doc_pdf *p, const struct doc *d);

#endif /* BENCHGEN_DOC_PDF_H */
