/*
 * forest.h - a forest plot: one row per item, its estimate as a dot and its
 * confidence interval as a line, on a logarithmic ratio axis with the line of
 * no change and a shaded band around it (the comparison's noise band), and
 * the numbers written in a column on the right. Summary rows (geometric
 * means) are diamonds below a rule. A row without an estimate shows its NA
 * reason in grey, never a dot.
 *
 * Every pointer is borrowed for the duration of the draw.
 */
#ifndef BENCHGEN_FOREST_H
#define BENCHGEN_FOREST_H

#include "charts/chart.h"

struct forest_row {
    const char *label; /* left column */
    double est;        /* NAN: an NA row */
    double lo, hi;     /* interval; NAN: none drawn */
    unsigned color;    /* dot, line and tag */
    const char *value; /* right column, e.g. "1.1037 [1.0978, 1.1096]"; may be NULL */
    const char *tag;   /* after the value, bold in color, e.g. "slower"; may be NULL */
    const char *na;    /* NA rows: the reason drawn across the plot ("NA (mismatch: ...)") */
    int summary;       /* a diamond, below a rule (a geometric mean) */
};

struct forest {
    const char *title, *subtitle; /* may be NULL */
    const char *axis_label;       /* under the axis; may be NULL */
    size_t n;
    const struct forest_row *rows;
    double ref;              /* the line of no change (1 for a ratio) */
    double band_lo, band_hi; /* shaded band; NAN: none */
    size_t nlegend;          /* a key of colours under the title */
    const char *const *legend_label;
    const unsigned *legend_color;
};

/* Height the plot needs: rows have a fixed height. */
double forest_height(const struct forest *f);

/* chart_draw_fn over a struct forest. */
int forest_draw(struct chart *c, struct chart_rect r, const void *forest);

#endif /* BENCHGEN_FOREST_H */
