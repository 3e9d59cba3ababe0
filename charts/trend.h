/*
 * trend.h - one measure across a sequence of runs, as small multiples: a
 * panel per series (a cell), the runs along x in order, each run's value as a
 * point with its confidence interval, consecutive values joined, and a dashed
 * line at the first run's value so every later point reads as a change from
 * the baseline. A run without a value shows its NA reason at its place on the
 * axis, never a point, and no line runs through it.
 *
 * Every pointer is borrowed for the duration of the draw.
 */
#ifndef BENCHGEN_TREND_H
#define BENCHGEN_TREND_H

#include "charts/chart.h"

struct trend_series {
    const char *label;     /* panel title */
    const double *v;       /* npoints values; NAN: NA */
    const double *lo, *hi; /* npoints interval ends; NULL or NAN entries: none */
    const char *const *na; /* npoints NA reasons ("error", "absent"); NULL or NULL entries: "NA" */
};

struct trend {
    const char *title, *subtitle; /* may be NULL */
    const char *key;              /* a line naming the points ("[0] base  [1] upgrade"); may be NULL */
    const char *axis_label;       /* y axis of every panel, e.g. "ms/step"; may be NULL */
    const char *value_unit;       /* after a point's value in its hover text ("ms/step"); may be NULL */
    size_t npoints;
    const char *const *point_label; /* npoints x-axis labels ("[0]") */
    size_t nseries;
    const struct trend_series *series;
    size_t cols;    /* panels per row; 0: 3 */
    unsigned color; /* points and lines */
    /* 1: every panel plots the change from its first value (the baseline's),
     * in percent, on one scale shared by all panels (trend_shared_axis);
     * points keep their own values as labels. 0: each panel its own scale */
    int relative;
};

/* The one y axis of a relative trend: the largest change (intervals
 * included) of any panel, at least +/-5%. Returns 0. */
int trend_shared_axis(const struct trend *t, struct chart_axis *ay);

/* Height the chart needs: panels have a fixed height. */
double trend_height(const struct trend *t);

/* chart_draw_fn over a struct trend. */
int trend_draw(struct chart *c, struct chart_rect r, const void *trend);

#endif /* BENCHGEN_TREND_H */
