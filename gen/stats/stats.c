/*
 * stats.c - summary statistics of one cell's timed steps (see stats.h).
 *
 * Everything is computed on milliseconds as doubles from the stored integer
 * nanoseconds, so a reader who loads the Samples sheet and runs numpy
 * (np.percentile's default "linear" method, np.std(ddof=1)) gets the same
 * numbers to the last few ulps.
 */
#include "stats/stats.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The bootstrap's generator: splitmix64 from a fixed seed, so the interval
 * depends on the samples alone and a report renders identically twice. */
#define STATS_BOOTSTRAP_SEED 0x62656e636867656eULL /* "benchgen" */

static uint64_t splitmix64_next_(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform index in [0, n) for n < 2^32 by multiply-shift of the top 32 bits;
 * its bias (< n / 2^32) is far below the bootstrap's own noise. */
static size_t random_index_(uint64_t *state, size_t n)
{
    uint64_t r = splitmix64_next_(state) >> 32;
    return (size_t)((r * (uint64_t)n) >> 32);
}

static int cmp_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0 || isnan(q))
        return NAN;
    if (q <= 0.0)
        return sorted[0];
    if (q >= 1.0)
        return sorted[n - 1];
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    double frac = h - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

static void stats_set_empty_(struct stats *out)
{
    out->n = 0;
    out->mean = out->median = out->p5 = out->p95 = out->stdev = NAN;
    out->min = out->max = out->cv = out->ci_lo = out->ci_hi = NAN;
    out->outliers = 0;
    out->first_is_outlier = 0;
}

int stats_compute(const int64_t *ns, size_t n, struct stats *out)
{
    double *ms = NULL, *means = NULL;
    stats_set_empty_(out);
    if (n == 0)
        return 0;
    if (n >= ((size_t)1 << 32))
        return error_set(BG_EGENERIC, "stats: too many samples (%zu)", n);

    ms = xmalloc(n * sizeof(*ms));
    means = xmalloc(STATS_BOOTSTRAP_RESAMPLES * sizeof(*means));

    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        ms[i] = (double)ns[i] / 1e6;
        sum += ms[i];
    }
    double mean = sum / (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (ms[i] - mean) * (ms[i] - mean);
    double first = ms[0];

    /* Resample from the unsorted values: the draw then depends on the order
     * the steps ran in, which is part of "the same samples". */
    if (n == 1) {
        out->ci_lo = out->ci_hi = mean;
    } else {
        uint64_t state = STATS_BOOTSTRAP_SEED;
        for (size_t b = 0; b < STATS_BOOTSTRAP_RESAMPLES; b++) {
            double s = 0.0;
            for (size_t i = 0; i < n; i++)
                s += ms[random_index_(&state, n)];
            means[b] = s / (double)n;
        }
        qsort(means, STATS_BOOTSTRAP_RESAMPLES, sizeof(*means), cmp_double_);
        out->ci_lo = stats_quantile_sorted(means, STATS_BOOTSTRAP_RESAMPLES, 0.025);
        out->ci_hi = stats_quantile_sorted(means, STATS_BOOTSTRAP_RESAMPLES, 0.975);
    }

    qsort(ms, n, sizeof(*ms), cmp_double_);
    out->n = n;
    out->mean = mean;
    out->median = stats_quantile_sorted(ms, n, 0.5);
    out->p5 = stats_quantile_sorted(ms, n, 0.05);
    out->p95 = stats_quantile_sorted(ms, n, 0.95);
    out->min = ms[0];
    out->max = ms[n - 1];
    out->stdev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    out->cv = mean != 0.0 ? out->stdev / mean : NAN;

    double q1 = stats_quantile_sorted(ms, n, 0.25), q3 = stats_quantile_sorted(ms, n, 0.75);
    double lo = q1 - 1.5 * (q3 - q1), hi = q3 + 1.5 * (q3 - q1);
    for (size_t i = 0; i < n; i++)
        if (ms[i] < lo || ms[i] > hi)
            out->outliers++;
    out->first_is_outlier = first < lo || first > hi;
    free(ms);
    free(means);
    return 0;
}
