/*
 * tables.h - the report's tables, built once from a struct rctx and drawn by
 * every writer (HTML, Markdown, PDF, workbook), so all formats show the same
 * rows, the same numbers and the same NA texts.
 *
 * A cell carries its display text and, for numbers, the value itself (the
 * workbook writes the number, the documents the text). Text is raw: each
 * writer escapes it for its format.
 *
 * Ownership: tables_build() fills a struct table the caller releases with
 * table_free().
 */
#ifndef BENCHGEN_TABLES_H
#define BENCHGEN_TABLES_H

#include <stddef.h>

#include "report/rctx.h"

enum {
    TC_BOLD = 1 << 0, /* the row's best */
    TC_NA = 1 << 1,   /* not a number: the text says why */
    TC_WARN = 1 << 2, /* a warning */
    TC_MONO = 1 << 3, /* code-like (keys, hashes, versions) */
    TC_HEAT = 1 << 4  /* bg holds a heat colour */
};

struct tcell {
    char *text; /* never NULL */
    double num; /* the value behind a numeric text; NAN for text */
    unsigned flags;
    unsigned bg; /* 0xRRGGBB when TC_HEAT */
    char *href;  /* an anchor in the same document the HTML links the text to; NULL: none */
};

struct table {
    char *caption; /* may be NULL */
    size_t ncols, nrows;
    char **head;            /* ncols */
    unsigned char *numeric; /* ncols: right-aligned number columns */
    struct tcell *cells;    /* nrows * ncols */
    int err;                /* the first error of a table_* call (see below); 0 */
};

enum table_kind {
    TABLE_SUMMARY,    /* rows x backends + Keras 3 (best): mean ms/step */
    TABLE_DETAIL,     /* rows x backends: median and 95% CI */
    TABLE_SPEEDUP,    /* rows x (backends but the baseline) + Keras 3 (best): % over the baseline */
    TABLE_REFERENCE,  /* rows x backends: measured, published, ratio (needs --reference) */
    TABLE_STATISTICS, /* one row per cell of the run */
    TABLE_FACTS,      /* fairness facts x backends */
    TABLE_RUN_ENV,    /* run-wide environment: key, value */
    TABLE_PY_ENV,     /* per Python environment: key x environment */
    TABLE_FAILURES,   /* non-ok cells: cell, status, first line of the detail */
    TABLE_META,       /* the run: field, value */
    TABLE_WINS,       /* per backend: rows won, tied for first, measured (needs x->answer) */
    TABLE_GEOMEAN,    /* per backend: geometric-mean speed-up over the baseline, 95% interval (x->answer) */
    TABLE_CONFIG,     /* per row: what was measured (variant, shapes, precision, parameters, steps) */
    TABLE_THROUGHPUT  /* rows x (unit, backends, Keras 3 (best)): work per second at the mean (throughput.h) */
};

/* 0, or the table's first error (tables.h: a cell text that could not be
 * formatted, BG_EGENERIC); t is released after an error. A kind that does
 * not apply (no reference) gives an empty table. */
int tables_build(const struct rctx *x, enum table_kind kind, struct table *t);
void table_free(struct table *t);

/* Building a table of one's own (the comparison report's tables use these):
 * table_init() gives ncols columns and no rows (ncols may be 0: an empty
 * table); table_head() names column c (numeric: right-aligned); table_row()
 * appends an empty row and returns its index; table_set() sets a cell's
 * flags, value (NAN for text) and printf text; table_href() links a cell.
 * None of them is checked per call: memory comes from the x-family
 * (base/xalloc.h), which never returns NULL, and the one failure left, a
 * text format that cannot expand, is remembered in t->err (BG_EGENERIC),
 * after which the other calls do nothing. table_finish() turns cells never
 * set into "" and returns that first error, or 0; after an error,
 * table_free() releases what was built. */
void table_init(struct table *t, size_t ncols);
void table_head(struct table *t, size_t c, const char *text, int numeric);
size_t table_row(struct table *t);
void table_set(struct table *t, size_t r, size_t c, unsigned flags, double num, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
int table_finish(struct table *t);
/* 0, or the first error a call met. */
int table_error(const struct table *t);
/* Links cell (r, c) to "#anchor" in the HTML (other formats show the text). */
void table_href(struct table *t, size_t r, size_t c, const char *anchor);
/* The anchor of a cell's log in the report: "log-" and its key with every
 * character but letters, digits, '-' and '_' as '_', into buf. */
void table_log_anchor(const char *key, char *buf, size_t n);

static inline const struct tcell *table_at(const struct table *t, size_t r, size_t c)
{
    return &t->cells[r * t->ncols + c];
}

#endif /* BENCHGEN_TABLES_H */
