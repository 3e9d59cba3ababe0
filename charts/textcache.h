/*
 * textcache.h - laid-out text (pango layouts) kept for reuse across drawings.
 *
 * Laying out a label - pango's itemising and harfbuzz's shaping - was a
 * fifth of a 1,000-cell report's time, and most labels recur: every chart
 * is drawn for PNG, SVG and PDF and again into report.pdf, and tick labels,
 * captions and table cells repeat from chart to chart. A layout is reused
 * only where pango would lay the text out again the same way: a context
 * with the same font options (the surface's and the cairo context's) and
 * the same text matrix (the CTM without its translation, as
 * pango_cairo_update_context() takes it), and the same font, size, width,
 * wrapping, ellipsis, hyphen rule, alignment and text. So what is drawn
 * never depends on what was drawn before, cached or not.
 *
 * The cache holds a bounded number of layouts (it replaces the oldest on a
 * collision) and is the process's own: forked renderers inherit a copy.
 */
#ifndef BENCHGEN_TEXTCACHE_H
#define BENCHGEN_TEXTCACHE_H

#include <cairo.h>
#include <pango/pangocairo.h>

/* Everything but the context and the text that decides a layout. */
struct textcache_key {
    unsigned font;    /* the caller's font number; desc below must be the same for the same number */
    int size;         /* pango units */
    int width;        /* pango units; -1: unbounded (no wrap, no ellipsis) */
    int ellipsize;    /* with a width: cut with an ellipsis instead of wrapping */
    int keep_hyphens; /* with a width and no ellipsis: never break a line at '-' */
    int align;        /* PangoAlignment */
};

/* The id of a pango context laying out text for cr as it is now (its
 * target's and its own font options, its CTM without translation), at 72
 * dpi with unrounded glyph positions. Contexts are made once and kept. */
unsigned textcache_context(cairo_t *cr);

/* The layout of text (NULL: "") under key in context ctx; desc is the font
 * (its size is the key's). Borrowed: valid until the next call. */
PangoLayout *textcache_layout(unsigned ctx, const PangoFontDescription *desc, const struct textcache_key *key,
                              const char *text);

/* Drops every layout and context (tests; memory checkers). */
void textcache_clear(void);

#endif /* BENCHGEN_TEXTCACHE_H */
