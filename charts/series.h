/*
 * series.h - one cell's step times in the order they ran: the untimed
 * warm-up steps (the first is the compile / first-call time) and then the
 * timed steps, with their mean. The y axis turns logarithmic when the first
 * call dwarfs the steady state, so both stay readable.
 *
 * Every pointer is borrowed for the duration of the draw.
 */
#ifndef BENCHGEN_SERIES_H
#define BENCHGEN_SERIES_H

#include "charts/chart.h"

struct series {
    const char *title;    /* may be NULL */
    const double *warmup; /* ms, in order; [0] is the first call */
    size_t nwarmup;
    const double *timed; /* ms, in order */
    size_t ntimed;
    double mean; /* of the timed steps; NAN: not drawn */
    unsigned color;
};

/* chart_draw_fn over a struct series. */
int series_draw(struct chart *c, struct chart_rect r, const void *series);

#endif /* BENCHGEN_SERIES_H */
