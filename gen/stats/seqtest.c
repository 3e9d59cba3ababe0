/*
 * seqtest.c - group-sequential verdicts with Lan-DeMets alpha spending (see
 * seqtest.h; docs/COMPARE.md, "Sequential verdicts").
 *
 * The boundaries are those of the paired t-statistics themselves (see
 * boundaries() below): with the process variance estimated from a handful
 * of processes, boundaries computed for a normal statistic and converted to
 * nominal t levels let about 5.6% of A/A sequences through at a nominal 5%
 * (measured: tests/unit/test_seqtest.c history, docs/COMPARE.md).
 */
#include "stats/seqtest.h"
#include "stats/tdist.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIMS 200000    /* simulated sequences behind the boundaries */
#define SIM_SEED 0x5e9ab /* fixed: the same design always gets the same boundaries */

static double phi_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

/* The q quantile of the standard normal, by bisection (q in (0, 1)). */
static double phi_quantile(double q)
{
    double lo = -40.0, hi = 40.0;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (phi_cdf(mid) < q)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static double spend(const struct seqtest_design *d, double t)
{
    if (t >= 1.0)
        return d->alpha;
    if (d->spending == SEQTEST_OBF)
        return 2.0 - 2.0 * phi_cdf(phi_quantile(1.0 - d->alpha / 2.0) / sqrt(t));
    return d->alpha * log(1.0 + (M_E - 1.0) * t);
}

static uint64_t rng_next(uint64_t *s) /* splitmix64 (seqtest.h) */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double seqtest_rng_normal(uint64_t *s)
{
    double u1 = ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static int cmp_float_desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}

/* The boundaries of the paired t-statistics. Under "no change" the
 * differences of the log process means are N(0, s^2) with s unknown, and
 * the t-statistics at the looks have a joint distribution that does not
 * depend on s: SIMS sequences of N(0, 1) give it. At look k the boundary
 * is chosen so that, of the sequences that crossed none before, the share
 * alpha(t_k) - alpha(t_{k-1}) of all sequences crosses it: each look spends
 * exactly its part of alpha (up to the simulation's error, about 0.0005 on
 * the total at SIMS = 200,000). */
static void boundaries(struct seqtest_design *d)
{
    size_t K = d->nlooks;
    float *t = xmalloc((size_t)SIMS * K * sizeof(*t)), *alive = xmalloc((size_t)SIMS * sizeof(*alive));
    unsigned char *out = xcalloc(SIMS, 1);
    uint64_t seed = SIM_SEED;
    for (size_t s = 0; s < SIMS; s++) {
        double sum = 0.0, sq = 0.0;
        size_t n = 0;
        for (size_t k = 0; k < K; k++) {
            for (; n < d->n[k]; n++) {
                double x = seqtest_rng_normal(&seed);
                sum += x;
                sq += x * x;
            }
            double mean = sum / (double)n, var = (sq - (double)n * mean * mean) / (double)(n - 1);
            t[s * K + k] = var > 0.0 ? (float)fabs(mean / sqrt(var / (double)n)) : 0.0f;
        }
    }
    double prev = 0.0;
    for (size_t k = 0; k < K; k++) {
        double inc = d->spent[k] - prev;
        prev = d->spent[k];
        size_t m = 0;
        for (size_t s = 0; s < SIMS; s++)
            if (!out[s])
                alive[m++] = t[s * K + k];
        qsort(alive, m, sizeof(*alive), cmp_float_desc);
        size_t j = (size_t)llround(inc * SIMS); /* this many of the SIMS cross first here */
        if (j == 0)
            d->crit[k] = (double)alive[0] * 1.000001 + 1e-9;
        else if (j >= m)
            d->crit[k] = 0.0;
        else
            d->crit[k] = 0.5 * ((double)alive[j - 1] + (double)alive[j]);
        for (size_t s = 0; s < SIMS; s++)
            if (!out[s] && t[s * K + k] >= d->crit[k])
                out[s] = 1;
        d->level[k] = tdist_p_two_sided(d->crit[k], (double)(d->n[k] - 1));
    }
    free(t);
    free(alive);
    free(out);
}

int seqtest_design(struct seqtest_design *d, size_t first, size_t step, size_t cap, double alpha, double effect,
                   enum seqtest_spending spending)
{
    memset(d, 0, sizeof(*d));
    if (first < SEQTEST_MIN_FIRST || cap < first || cap > SEQTEST_MAX_CAP || step < 1)
        return error_set(BG_EUSAGE,
                         "sequential design: need %d <= first batch (%zu) <= cap (%zu) <= %d and a step of at "
                         "least 1 (%zu)",
                         SEQTEST_MIN_FIRST, first, cap, SEQTEST_MAX_CAP, step);
    if (!(alpha > 0.0 && alpha < 0.5) || !(effect >= 0.0 && effect < 1.0))
        return error_set(BG_EUSAGE, "sequential design: alpha must be in (0, 0.5) and the effect in [0, 1)");
    *d = (struct seqtest_design){
        .first = first, .step = step, .cap = cap, .alpha = alpha, .effect = effect, .spending = spending};
    for (size_t n = first;; n += step) {
        if (n > cap)
            n = cap;
        if (d->nlooks == SEQTEST_MAX_LOOKS)
            return error_set(BG_EUSAGE, "sequential design: more than %d looks (first %zu, step %zu, cap %zu)",
                             SEQTEST_MAX_LOOKS, first, step, cap);
        d->n[d->nlooks++] = n;
        if (n == cap)
            break;
    }
    for (size_t k = 0; k < d->nlooks; k++)
        d->spent[k] = spend(d, (double)d->n[k] / (double)cap);
    boundaries(d);
    return 0;
}

int seqtest_look_index(const struct seqtest_design *d, size_t n)
{
    for (size_t k = 0; k < d->nlooks; k++)
        if (d->n[k] == n)
            return (int)k;
    return -1;
}

const char *seqtest_decision_name(enum seqtest_decision v)
{
    switch (v) {
    case SEQTEST_CONTINUE: return "continue";
    case SEQTEST_SLOWER: return "slower";
    case SEQTEST_FASTER: return "faster";
    case SEQTEST_SAME: return "same";
    case SEQTEST_UNDECIDED: return "undecided";
    }
    return "?";
}

int seqtest_look(struct seqtest_result *out, const struct seqtest_design *d, const double *la, const double *lb,
                 size_t n, double noise)
{
    memset(out, 0, sizeof(*out));
    int k = seqtest_look_index(d, n);
    if (k < 0)
        return error_set(BG_EUSAGE, "sequential look at %zu processes a side: not a look of the design", n);
    struct tdist_test tt;
    double level = d->level[k];
    int err = tdist_test_logs(la, n, lb, n, 1, 0.95, &tt);
    if (err < 0)
        return err;
    tt.lo = tt.diff - d->crit[k] * tt.se; /* the repeated confidence interval */
    tt.hi = tt.diff + d->crit[k] * tt.se;
    out->look = (size_t)k;
    out->n = n;
    out->level = level;
    out->p = tt.p;
    out->t = tt.t;
    out->df = tt.df;
    out->ratio = exp(tt.diff);
    out->lo = exp(tt.lo);
    out->hi = exp(tt.hi);
    out->cv = tt.cv;
    out->band = tt.cv > noise ? tt.cv : noise;
    out->margin = out->band > d->effect ? out->band : d->effect;
    bool last = (size_t)k + 1 == d->nlooks, sig = fabs(tt.t) >= d->crit[k] && tt.se > 0.0;
    char where[64];
    snprintf(where, sizeof(where), "look %d of %zu (%zu processes a side)", k + 1, d->nlooks, n);
    if (sig && out->lo > 1.0 + noise && out->ratio > 1.0 + out->band) {
        out->decision = SEQTEST_SLOWER;
        snprintf(out->why, sizeof(out->why), "slower at %s: p %.2g < %.2g, +%.1f%%, interval above +%g%%", where,
                 tt.p, level, (out->ratio - 1.0) * 100.0, noise * 100.0);
    } else if (sig && out->hi < 1.0 - noise && out->ratio < 1.0 - out->band) {
        out->decision = SEQTEST_FASTER;
        snprintf(out->why, sizeof(out->why), "faster at %s: p %.2g < %.2g, %.1f%%, interval below -%g%%", where,
                 tt.p, level, (out->ratio - 1.0) * 100.0, noise * 100.0);
    } else if (out->lo >= 1.0 - out->margin && out->hi <= 1.0 + out->margin) {
        out->decision = SEQTEST_SAME;
        snprintf(out->why, sizeof(out->why), "same at %s: interval [%.4f, %.4f] inside +/-%.1f%%", where, out->lo,
                 out->hi, out->margin * 100.0);
    } else {
        out->decision = last ? SEQTEST_UNDECIDED : SEQTEST_CONTINUE;
        snprintf(out->why, sizeof(out->why), "%s at %s: interval [%.4f, %.4f], p %.2g (needs < %.2g)",
                 last ? "undecided at the cap" : "undecided", where, out->lo, out->hi, tt.p, level);
    }
    return 0;
}
