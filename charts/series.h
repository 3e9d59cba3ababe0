/*
 * series.h - one cell's step times in the order they ran: the untimed
 * warm-up steps (the first is the first call, which includes compilation on
 * a compiling backend) and then the timed steps, with their mean.
 *
 * The y axis is scaled to the steady state: a value beyond the outlier
 * fences of the timed steps (chart_fences) - the first call, typically - is
 * drawn as a marker on the plot's edge with its value written beside it, so
 * a 40x compile time cannot flatten 100 timed steps into a line. Every
 * panel of one figure uses the same axis kind (series_pick_scale).
 *
 * Every pointer is borrowed for the duration of the draw.
 */
#ifndef BENCHGEN_SERIES_H
#define BENCHGEN_SERIES_H

#include "charts/chart.h"

/* Warm-up marks and their labels: a neutral grey, so that no warm-up step
 * reads as "worse" (CHART_WORSE, orange) or as a backend's colour. */
#define SERIES_WARMUP_COLOR CHART_MUTED

struct series {
    const char *title;    /* may be NULL */
    const char *name;     /* starts each step's hover text (the backend); may be NULL */
    const double *warmup; /* ms, in order; [0] is the first call */
    size_t nwarmup;
    const double *timed; /* ms, in order */
    size_t ntimed;
    double mean; /* of the timed steps; NAN: not drawn */
    unsigned color;
    /* what warmup[0] is called: "first call (compile)" on a compiling
     * backend, "first call" on an eager one; NULL: "first call" */
    const char *first_label;
    int log; /* logarithmic y axis; set by series_pick_scale() */
};

/* The range the y axis covers: the smallest and largest step inside the
 * timed steps' outlier fences (all steps when none is timed). Returns 0. */
int series_range(const struct series *s, double *lo, double *hi);

/* Gives all n panels of one figure one axis kind: logarithmic when some
 * panel's range (series_range) spans more than 8x, else linear. Returns 0. */
int series_pick_scale(struct series *const *s, size_t n);

/* The y axis series_draw() uses for s. Returns 0. */
int series_axis(const struct series *s, struct chart_axis *ay);

/* chart_draw_fn over a struct series. */
int series_draw(struct chart *c, struct chart_rect r, const void *series);

#endif /* BENCHGEN_SERIES_H */
