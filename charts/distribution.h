/*
 * distribution.h - one cell's step-time distribution: a histogram of its
 * timed steps with the mean (the published metric), the median, p5/p95 and
 * the 95% bootstrap confidence interval of the mean marked on it.
 *
 * Every pointer is borrowed for the duration of the draw.
 */
#ifndef BENCHGEN_DISTRIBUTION_H
#define BENCHGEN_DISTRIBUTION_H

#include "charts/chart.h"

struct distribution {
    const char *title; /* may be NULL */
    const char *name;  /* starts each bin's hover text (the backend); may be NULL */
    const double *ms;  /* timed steps, ms, any order */
    size_t n;
    double mean, median, p5, p95, ci_lo, ci_hi;
    unsigned color;
    const char *note;    /* one muted line under the title, may be NULL */
    const char *warning; /* one red line, may be NULL */
};

/* chart_draw_fn over a struct distribution. */
int distribution_draw(struct chart *c, struct chart_rect r, const void *distribution);

#endif /* BENCHGEN_DISTRIBUTION_H */
