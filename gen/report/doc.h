/*
 * doc.h - the document model every report is built as: a flat list of
 * blocks (sections, headings, paragraphs, notes, warnings, tables, figures,
 * code and folded details) that the run report (report_doc.c) and the
 * comparison report (compare_doc.c) build once and that one writer per
 * format draws: doc_html_render, doc_md_render, doc_pdf_render (and the
 * workbook's doc_xlsx_render for the sheets that read as a document).
 *
 * Text is raw, as stored: each writer escapes it for its format. A paragraph
 * made by benchgen itself (never by the run) may carry links written as
 * "[label](#anchor)" when it has DOC_LINKS: HTML makes them <a>, Markdown
 * keeps them, the PDF prints the label.
 *
 * Building never checks each call: memory comes from the x-family
 * (base/xalloc.h), which never returns NULL, and the failures left (a
 * paragraph format that cannot expand, a table's first error, one a builder
 * sets) are remembered in d->err, after which the calls do nothing; a
 * builder checks doc_error() once. The writers (doc_html, doc_md) append to
 * a strbuf the same way and check strbuf_error() once at the end.
 *
 * Ownership: a struct doc starts zeroed ({0}) with doc_init() naming its
 * figures (borrowed; they must outlive it); doc_free() releases every block,
 * and the tables handed to doc_table().
 */
#ifndef BENCHGEN_DOC_H
#define BENCHGEN_DOC_H

#include <stddef.h>

#include "report/figure.h"
#include "report/tables.h"

enum doc_kind {
    DOC_SECTION,  /* starts a top-level section: id (an anchor) and text (its heading, or NULL) */
    DOC_END,      /* ends the section */
    DOC_HEADING,  /* a subsection heading, level 3 */
    DOC_PARA,     /* a paragraph: text and a style */
    DOC_PARAS,    /* paragraphs from a template: "- " ones form a list */
    DOC_WARNING,  /* one warning: id (a cell key, or NULL) and text; consecutive ones form one list */
    DOC_TABLE,    /* a table */
    DOC_FIGURE,   /* a figure of the document's list, by index */
    DOC_CODE,     /* a preformatted block: text, and id as its language ("yaml") */
    DOC_DETAILS   /* a folded block: id (its summary, shown as code) and text */
};

enum doc_style {
    DOC_NORMAL,
    DOC_MUTED,  /* a subtitle or description */
    DOC_STRONG, /* a summary line, in bold */
    DOC_NOTE,   /* something a reader must not miss, in bold (hardware differs, a cell got slower) */
    DOC_GOOD,   /* a reassuring result ("no cell got slower"), in bold */
    DOC_ALERT   /* a warning sentence under the warnings (cells failed) */
};

/* Block flags. */
enum {
    DOC_LINKS = 1 << 0,   /* a paragraph's "[label](#anchor)" are links */
    DOC_MDHEAD = 1 << 1,  /* a figure: Markdown puts its title as a "###" heading above it */
    DOC_NOPAGE = 1 << 2,  /* a section heading that may sit at a page's foot in the PDF */
    DOC_SCREEN = 1 << 3   /* folded details for the screen (HTML, Markdown): the PDF leaves them out */
};

struct doc_block {
    enum doc_kind kind;
    enum doc_style style;
    unsigned flags;
    char *id;          /* see the kinds */
    char *text;        /* see the kinds */
    struct table table; /* DOC_TABLE (owned) */
    double size;       /* DOC_TABLE: the PDF's font size; DOC_PARA: 0 for the default */
    size_t fig;        /* DOC_FIGURE: index into the document's figures */
    char **items;      /* DOC_PARAS: the paragraphs (owned) */
    size_t nitems;
};

struct doc {
    char *title;    /* the document's title (the PDF's level-1 heading, the HTML's <h1>) */
    char *subtitle; /* one line under it, or "" */
    const struct figure *figs; /* borrowed */
    size_t nfigs;
    unsigned chart_files; /* CHART_PNG/SVG/PDF: the chart files written next to the document, which
                           * the HTML links (doc_init: all three; a --format subset clears some) */
    struct doc_block *b;
    size_t n, cap;
    int err;
};

/* The most of one text from a run (a spec's description) the documents
 * show: a page of text. Longer, doc_cap() cuts it with a note; report.json
 * keeps it whole. */
#define DOC_TEXT_MAX 4096

/* text cut to at most max bytes (at a character boundary) followed by a
 * note saying how long it was and that `whole_in` has it all (malloc'd), or
 * NULL when text is not longer than max. */
char *doc_cap(const char *text, size_t max, const char *whole_in);

/* The most of a code block from a run (its spec) the documents show: its
 * lines until DOC_CODE_MAX bytes are shown, each cut to DOC_TEXT_MAX. */
#define DOC_CODE_MAX (64u << 10)

/* A text of lines (a spec) as the documents show it: each line longer than
 * line_max cut (at a character boundary) with a note saying how long it
 * was; the lines after the first max bytes shown left out with a note saying how
 * many lines the text has and that `whole_in` has it all (malloc'd). NULL when
 * nothing is cut. Linear in the text's length. */
char *doc_cap_lines(const char *text, size_t line_max, size_t max, const char *whole_in);
/* A run's spec as every document and the workbook show it: doc_cap_lines
 * with DOC_TEXT_MAX and DOC_CODE_MAX, pointing at `benchgen show --json`. */
char *doc_cap_spec(const char *spec_text);

/* Starts d with its title, subtitle (NULL: none) and figure list. */
void doc_init(struct doc *d, const char *title, const char *subtitle, const struct figure *figs, size_t nfigs);
void doc_free(struct doc *d);
/* 0, or the first error a call met (BG_EGENERIC for a format, or a table's). */
int doc_error(const struct doc *d);

void doc_section(struct doc *d, const char *id, const char *title);
void doc_end(struct doc *d);
void doc_heading(struct doc *d, const char *text);
void doc_para(struct doc *d, enum doc_style style, const char *text);
void doc_paraf(struct doc *d, enum doc_style style, unsigned flags, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void doc_paras(struct doc *d, char **paras, size_t n);
void doc_warning(struct doc *d, const char *key, const char *text);
/* Takes t over (t is zeroed): the document frees it. Finishes t
 * (table_finish) first; a table's first error becomes the document's.
 * size: the PDF's font size. */
void doc_table(struct doc *d, struct table *t, double size);
/* flags: DOC_MDHEAD. */
void doc_figure(struct doc *d, size_t index, unsigned flags);
void doc_code(struct doc *d, const char *text, const char *lang);
void doc_details(struct doc *d, const char *summary, const char *text);

/* The last block added (to set flags), or NULL. */
struct doc_block *doc_last(struct doc *d);

/* Splits authored text with links into runs: calls out(text, len, anchor,
 * ctx) for each plain run (anchor NULL) and each link (text = its label). */
void doc_links(const char *text, void (*out)(const char *s, size_t n, const char *anchor, size_t alen, void *ctx),
               void *ctx);

#endif /* BENCHGEN_DOC_H */
