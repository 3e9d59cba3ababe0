/*
 * stats.h - summary statistics of one cell's timed steps.
 *
 * Input is step durations in ns; every output is in milliseconds except n,
 * cv (a fraction) and outliers (a count). Percentiles use linear
 * interpolation between order statistics (type 7, numpy's default), so
 * numbers match what a reader recomputes from the Samples sheet. The
 * bootstrap CI is of the mean (the published metric), with a fixed seed so
 * the same samples always give the same interval.
 */
#ifndef BENCHGEN_STATS_H
#define BENCHGEN_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_BOOTSTRAP_RESAMPLES 2000
#define STATS_NOISY_CV 0.10

struct stats {
    size_t n;
    double mean, median, p5, p95, stdev, min, max;
    double cv;              /* stdev / mean */
    double ci_lo, ci_hi;    /* 95% bootstrap CI of the mean */
    size_t outliers;        /* outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] */
    int first_is_outlier;   /* the first timed step is an outlier */
};

/* n may be 0 (everything NaN, n = 0). Returns 0 (out of memory exits, base/xalloc.h). */
int stats_compute(const int64_t *ns, size_t n, struct stats *out);

/* Quantile q in [0,1] of sorted values (type 7). */
double stats_quantile_sorted(const double *sorted, size_t n, double q);

#endif /* BENCHGEN_STATS_H */
