/*
 * heatmap.h - the whole matrix at a glance: one coloured cell per row and
 * backend, coloured by how far it is from the row's best (1.00x = best,
 * lightest; 3x and slower, darkest blue, on a log scale), with the value written in.
 * NA cells are grey and say why.
 *
 * Every pointer is borrowed for the duration of the draw.
 */
#ifndef BENCHGEN_HEATMAP_H
#define BENCHGEN_HEATMAP_H

#include "charts/chart.h"

struct heatmap {
    const char *title, *subtitle; /* may be NULL */
    size_t nrows, ncols;
    const char *const *row_label; /* nrows */
    const char *const *col_label; /* ncols */
    const double *ratio;          /* nrows * ncols, [r * ncols + c]: value / row best; NAN = NA */
    const char *const *text;      /* same layout: first line of the cell (e.g. "693.4 ms") */
    const char *const *na;        /* same layout: NA reason, used when ratio is NAN; may be NULL */
};

double heatmap_height(const struct heatmap *h, double w);

/* chart_draw_fn over a struct heatmap. */
int heatmap_draw(struct chart *c, struct chart_rect r, const void *heatmap);

/* Colour of a ratio (1 = best): a sequential blue scale, light to dark;
 * exposed so the HTML and workbook use the same scale. Text on it: chart_text_on(). */
unsigned heatmap_color(double ratio);
#define HEATMAP_NA_COLOR 0xEEEEEEu

#endif /* BENCHGEN_HEATMAP_H */
