/*
 * scatter.h - measured against published: one point per cell on log-log
 * axes, with the y = x diagonal (same speed) and dashed 2x bands, coloured by
 * backend. Points above the diagonal were slower here than published. The
 * legend names the guide lines; a ratio panel under it shows y / x, where a
 * 2% difference is visible.
 *
 * Every pointer is borrowed for the duration of the draw.
 */
#ifndef BENCHGEN_SCATTER_H
#define BENCHGEN_SCATTER_H

#include "charts/chart.h"

struct scatter {
    const char *title, *subtitle; /* may be NULL */
    const char *x_label, *y_label;
    size_t n;
    const double *x, *y; /* > 0; other points are skipped */
    const size_t *group; /* n indices into the legend */
    size_t ngroups;
    const char *const *group_label;
    const unsigned *group_color;
    const char *const *point_label; /* n names for the hover text (the row); NULL: the group's */
    const char *corner_note; /* top right; NULL: "above the line: slower than published" */
    /* the ratio panel under the scatter: y / x on a log axis around 1, the
     * noise band (SCATTER_BAND) shaded, so a 2% difference shows; NULL:
     * no panel */
    const char *ratio_label;
};

/* The noise band the ratio panel shades: +/- 2%, the project's band. */
#define SCATTER_BAND 0.02

/* The legend's entries after the groups: the diagonal, the 2x lines and,
 * with a ratio panel, its noise band. Writes up to cap borrowed strings and
 * returns how many there are. */
size_t scatter_guides(const struct scatter *s, const char **labels, size_t cap);

/* chart_draw_fn over a struct scatter. */
int scatter_draw(struct chart *c, struct chart_rect r, const void *scatter);

#endif /* BENCHGEN_SCATTER_H */
