/*
 * significance.c - Mann-Whitney U, Benjamini-Hochberg, a bootstrap interval
 * of the ratio of means, and the verdict rule (see significance.h and
 * docs/COMPARE.md).
 *
 * The U test follows scipy.stats.mannwhitneyu(method="auto") so that anyone
 * can check a verdict with scipy: average ranks for ties, the exact
 * distribution when a side has at most 8 samples and nothing is tied, and
 * otherwise the normal approximation with the tie-corrected variance and a
 * continuity correction of 0.5.
 */
#include "stats/significance.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "stats/stats.h"
#include "stats/tdist.h"

#include <stdio.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Fixed seed: the interval depends on the samples alone. */
#define SIGNIFICANCE_SEED 0x636f6d7061726521ULL /* "compare!" */

/* The exact distribution needs min(na,nb) * max(na,nb) + 1 doubles: above
 * this the normal approximation is used (and is excellent there anyway). */
#define SIGNIFICANCE_EXACT_MAX_CELLS 4000000

static uint64_t splitmix64_(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform index in [0, n), n < 2^32, by multiply-shift (bias < n / 2^32). */
static size_t random_index_(uint64_t *state, size_t n)
{
    uint64_t r = splitmix64_(state) >> 32;
    return (size_t)((r * (uint64_t)n) >> 32);
}

static int cmp_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- Mann-Whitney U ------------------------------------------------------ */

struct ranked_ {
    double v;
    int from_a;
};

static int cmp_ranked_(const void *a, const void *b)
{
    const struct ranked_ *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

/* P(U >= u) under H0 for sample sizes m and n, from the coefficients of the
 * Gaussian binomial [m+n choose m]_q, which count the arrangements giving
 * each U. Built as prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), multiplying and
 * dividing in turn so every intermediate is [n+i choose i]_q. */
static int mwu_exact_sf_(size_t m, size_t n, double u, double *p_out)
{
    if (m > n) {
        size_t t = m;
        m = n;
        n = t;
    }
    size_t deg = m * n, len = deg + m + 2;
    double *c = xcalloc(len, sizeof(*c));
    c[0] = 1.0;
    size_t cur = 0; /* degree of the current polynomial */
    for (size_t i = 1; i <= m; i++) {
        size_t k = n + i;
        for (size_t j = cur + k; j >= k; j--) /* multiply by (1 - q^k) */
            c[j] -= c[j - k];
        cur += k;
        for (size_t j = i; j <= cur; j++) /* divide by (1 - q^i) */
            c[j] += c[j - i];
        cur -= i; /* exact division: the top i coefficients are now zero */
    }
    double total = 0.0, tail = 0.0;
    for (size_t j = 0; j <= deg; j++)
        total += c[j];
    for (size_t j = deg + 1; j-- > 0;) {
        if ((double)j < u - 1e-9)
            break;
        tail += c[j];
    }
    free(c);
    *p_out = tail / total;
    return 0;
}

int significance_mwu(const double *a, size_t na, const double *b, size_t nb, struct significance_mwu *out)
{
    memset(out, 0, sizeof(*out));
    if (na == 0 || nb == 0)
        return error_set(BG_EUSAGE, "Mann-Whitney U needs samples on both sides");
    size_t n = na + nb;
    struct ranked_ *r = xmalloc(n * sizeof(*r));
    for (size_t i = 0; i < na; i++)
        r[i] = (struct ranked_){a[i], 1};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (struct ranked_){b[i], 0};
    qsort(r, n, sizeof(*r), cmp_ranked_);

    double rank_sum_a = 0.0, tie_term = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && r[j].v == r[i].v)
            j++;
        double t = (double)(j - i), avg = ((double)i + 1.0 + (double)j) / 2.0; /* ranks i+1 .. j */
        tie_term += t * t * t - t;
        for (size_t k = i; k < j; k++)
            if (r[k].from_a)
                rank_sum_a += avg;
        i = j;
    }
    free(r);

    double dna = (double)na, dnb = (double)nb, dn = (double)n;
    double u1 = rank_sum_a - dna * (dna + 1.0) / 2.0, u2 = dna * dnb - u1;
    double u = u1 > u2 ? u1 : u2;
    out->u1 = u1;
    size_t small = na < nb ? na : nb, large = na < nb ? nb : na;
    if (small <= SIGNIFICANCE_EXACT_MAX_N && tie_term == 0.0 &&
        small * large <= SIGNIFICANCE_EXACT_MAX_CELLS) {
        double sf = 1.0;
        int err = mwu_exact_sf_(na, nb, u, &sf);
        if (err)
            return err;
        out->exact = 1;
        out->z = NAN;
        out->p = 2.0 * sf;
    } else {
        double var = dna * dnb / 12.0 * ((dn + 1.0) - tie_term / (dn * (dn - 1.0)));
        if (!(var > 0.0)) { /* every value equal: no evidence of any difference */
            out->z = 0.0;
            out->p = 1.0;
        } else {
            out->z = (u - dna * dnb / 2.0 - 0.5) / sqrt(var);
            out->p = erfc(out->z / sqrt(2.0)); /* 2 * (1 - Phi(z)) without cancellation */
        }
    }
    if (out->p > 1.0)
        out->p = 1.0;
    if (out->p < 0.0)
        out->p = 0.0;
    return 0;
}

/* ---- Benjamini-Hochberg -------------------------------------------------- */

struct pidx_ {
    double p;
    size_t i;
};

static int cmp_pidx_(const void *a, const void *b)
{
    const struct pidx_ *x = a, *y = b;
    if (x->p != y->p)
        return (x->p > y->p) - (x->p < y->p);
    return (x->i > y->i) - (x->i < y->i);
}

int significance_bh(const double *p, size_t n, double *q)
{
    struct pidx_ *s = xmalloc((n ? n : 1) * sizeof(*s));
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i]))
            s[m++] = (struct pidx_){p[i], i};
    qsort(s, m, sizeof(*s), cmp_pidx_);
    /* NAN first, because q may alias p and the tested entries are all in s. */
    for (size_t i = 0; i < n; i++)
        if (isnan(p[i]))
            q[i] = NAN;
    double running = 1.0;
    for (size_t k = m; k-- > 0;) {
        double adj = s[k].p * (double)m / (double)(k + 1);
        if (adj < running)
            running = adj;
        q[s[k].i] = running;
    }
    free(s);
    return 0;
}

/* ---- bootstrap of the ratio of means ------------------------------------- */

/* Mean of one bootstrap resample of a side: steps when it is one process,
 * else processes with replacement and steps within each drawn process. */
static double resample_mean_(const struct significance_group *g, size_t ng, uint64_t *state)
{
    double sum = 0.0;
    size_t count = 0;
    if (ng == 1) {
        for (size_t k = 0; k < g[0].n; k++)
            sum += g[0].x[random_index_(state, g[0].n)];
        return sum / (double)g[0].n;
    }
    for (size_t j = 0; j < ng; j++) {
        const struct significance_group *d = &g[random_index_(state, ng)];
        for (size_t k = 0; k < d->n; k++)
            sum += d->x[random_index_(state, d->n)];
        count += d->n;
    }
    return sum / (double)count;
}

/* Copies the non-empty groups (so resampling never draws an empty process)
 * and their total sample count and sum. */
static int side_(const struct significance_group *g, size_t ng, struct significance_group **out, size_t *nout,
                 size_t *n, double *sum)
{
    *out = xmalloc((ng ? ng : 1) * sizeof(**out));
    *nout = 0;
    *n = 0;
    *sum = 0.0;
    for (size_t i = 0; i < ng; i++) {
        if (g[i].n == 0)
            continue;
        if (g[i].n >= ((size_t)1 << 32))
            return error_set(BG_EUSAGE, "significance: too many samples in one process (%zu)", g[i].n);
        (*out)[(*nout)++] = g[i];
        *n += g[i].n;
        for (size_t k = 0; k < g[i].n; k++)
            *sum += g[i].x[k];
    }
    return 0;
}

static int pool_(const struct significance_group *g, size_t ng, size_t n, double **out)
{
    *out = xmalloc((n ? n : 1) * sizeof(**out));
    size_t k = 0;
    for (size_t i = 0; i < ng; i++) {
        memcpy(*out + k, g[i].x, g[i].n * sizeof(double));
        k += g[i].n;
    }
    return 0;
}

/* Per-process t-test on the logs of the groups' means (tdist.h). */
static int per_process_(struct significance_test *out, const struct significance_group *ga,
                        const struct significance_group *gb, int paired, double level)
{
    double *la = xmalloc((out->groups_a ? out->groups_a : 1) * sizeof(*la));
    double *lb = xmalloc((out->groups_b ? out->groups_b : 1) * sizeof(*lb));
    int err = 0;
    for (int side = 0; side < 2; side++) {
        const struct significance_group *g = side ? gb : ga;
        size_t ng = side ? out->groups_b : out->groups_a;
        double *l = side ? lb : la;
        for (size_t i = 0; i < ng; i++) {
            double sum = 0.0;
            for (size_t k = 0; k < g[i].n; k++)
                sum += g[i].x[k];
            double m = sum / (double)g[i].n;
            if (!(m > 0.0) || !isfinite(m))
                goto done; /* a process without a positive mean: no per-process test */
            l[i] = log(m);
        }
    }
    struct tdist_test tt;
    paired = paired && out->groups_a == out->groups_b;
    if ((err = tdist_test_logs(la, out->groups_a, lb, out->groups_b, paired, level, &tt)) < 0)
        goto done;
    out->per_process = 1;
    out->paired = paired;
    out->t_stat = tt.t;
    out->df = tt.df;
    out->p = tt.p;
    out->cv_process = tt.cv;
    out->cv_a = tt.sd_a;
    out->cv_b = tt.sd_b;
    out->ratio = exp(tt.diff);
    double ma = 0.0, mb = 0.0;
    for (size_t i = 0; i < out->groups_a; i++)
        ma += la[i];
    for (size_t i = 0; i < out->groups_b; i++)
        mb += lb[i];
    out->gmean_a = exp(ma / (double)out->groups_a);
    out->gmean_b = exp(mb / (double)out->groups_b);
    out->ci_lo = exp(tt.lo);
    out->ci_hi = exp(tt.hi);
done:
    free(la);
    free(lb);
    return err;
}

int significance_test(const struct significance_group *a, size_t nga, const struct significance_group *b,
                      size_t ngb, double level, size_t resamples, int paired, struct significance_test *out)
{
    struct significance_group *ga = NULL, *gb = NULL;
    double *pa = NULL, *pb = NULL, *ratios = NULL;
    double sa = 0.0, sb = 0.0;
    int err = 0;

    memset(out, 0, sizeof(*out));
    out->mean_a = out->mean_b = out->ratio = out->ci_lo = out->ci_hi = NAN;
    out->gmean_a = out->gmean_b = NAN;
    out->p_adj = out->p = out->t_stat = out->df = NAN;
    out->cv_process = out->cv_a = out->cv_b = out->band = NAN;
    out->mwu.p = out->mwu.z = out->mwu.u1 = NAN;
    out->level = level;
    out->verdict = SIGNIFICANCE_NONE;
    snprintf(out->why, sizeof(out->why), "not tested");
    if (!(level > 0.0 && level < 1.0) || resamples < 10)
        return error_set(BG_EUSAGE, "significance: confidence level must be in (0,1) and resamples >= 10");

    if ((err = side_(a, nga, &ga, &out->groups_a, &out->n_a, &sa)) < 0 ||
        (err = side_(b, ngb, &gb, &out->groups_b, &out->n_b, &sb)) < 0)
        goto done;
    if (out->n_a == 0 || out->n_b == 0) {
        snprintf(out->why, sizeof(out->why), "no samples on a side");
        goto done;
    }
    out->mean_a = sa / (double)out->n_a;
    out->mean_b = sb / (double)out->n_b;
    if (!(out->mean_a > 0.0) || !(out->mean_b > 0.0) || !isfinite(out->mean_a) || !isfinite(out->mean_b)) {
        snprintf(out->why, sizeof(out->why), "a mean is not a positive number");
        goto done;
    }
    out->ratio = out->mean_b / out->mean_a;
    out->gmean_a = out->mean_a; /* the per-process test replaces them with its own */
    out->gmean_b = out->mean_b;

    if ((err = pool_(ga, out->groups_a, out->n_a, &pa)) < 0 ||
        (err = pool_(gb, out->groups_b, out->n_b, &pb)) < 0)
        goto done;
    if ((err = significance_mwu(pa, out->n_a, pb, out->n_b, &out->mwu)) < 0)
        goto done;

    if (out->groups_a >= 2 && out->groups_b >= 2) {
        if ((err = per_process_(out, ga, gb, paired, level)) < 0)
            goto done;
    }
    if (!out->per_process) {
        ratios = xmalloc((resamples ? resamples : 1) * sizeof(*ratios));
        uint64_t state = SIGNIFICANCE_SEED;
        size_t nr = 0;
        for (size_t r = 0; r < resamples; r++) {
            double ma = resample_mean_(ga, out->groups_a, &state);
            double mb = resample_mean_(gb, out->groups_b, &state);
            if (ma > 0.0)
                ratios[nr++] = mb / ma;
        }
        if (nr > 0) {
            qsort(ratios, nr, sizeof(*ratios), cmp_double_);
            out->ci_lo = stats_quantile_sorted(ratios, nr, (1.0 - level) / 2.0);
            out->ci_hi = stats_quantile_sorted(ratios, nr, (1.0 + level) / 2.0);
        }
    }
    out->valid = 1;
    snprintf(out->why, sizeof(out->why), "tested");

done:
    free(ga);
    free(gb);
    free(pa);
    free(pb);
    free(ratios);
    return err;
}

/* ---- verdicts ------------------------------------------------------------ */

enum significance_verdict significance_verdict(struct significance_test *t, double alpha, double noise)
{
    enum significance_verdict v = SIGNIFICANCE_AMBIGUOUS;
    double band = noise;
    /* the cell's scatter: its own processes', or a noise profile's */
    double cv = t->cv_from_profile && isfinite(t->cv_profile) ? t->cv_profile : t->cv_process;
    if (t->per_process && isfinite(cv) && cv > band)
        band = cv; /* a noisier cell gets a wider band */
    double lo_band = 1.0 - band, hi_band = 1.0 + band;
    bool significant = t->p_adj < alpha; /* false for NAN */
    size_t given = t->groups_a < t->groups_b ? t->groups_a : t->groups_b;
    char need[96] = "";

    t->band = band;
    t->band_wide = band > noise;
    t->needed = 0;
    t->too_noisy = 0;
    if (t->per_process && isfinite(cv)) {
        t->needed = tdist_processes_needed(cv, band, noise, SIGNIFICANCE_DETECT, alpha, SIGNIFICANCE_POWER,
                                           t->paired, SIGNIFICANCE_MAX_PROCESSES);
        if (t->needed && t->needed < SIGNIFICANCE_MIN_PROCESSES)
            t->needed = SIGNIFICANCE_MIN_PROCESSES;
        t->too_noisy = t->needed == 0 || t->needed > given;
        if (t->needed == 0)
            snprintf(need, sizeof(need), "; a %.0f%% change is inside this cell's noise (CV %.1f%%)",
                     SIGNIFICANCE_DETECT * 100, cv * 100);
        else if (t->needed > given)
            snprintf(need, sizeof(need), "; %zu processes per side would find a %.0f%% change", t->needed,
                     SIGNIFICANCE_DETECT * 100);
    }

    if (!t->valid) {
        v = SIGNIFICANCE_NONE;
    } else if (t->n_a < SIGNIFICANCE_MIN_SAMPLES || t->n_b < SIGNIFICANCE_MIN_SAMPLES) {
        snprintf(t->why, sizeof(t->why), "too few samples");
    } else if (given < SIGNIFICANCE_MIN_PROCESSES) {
        snprintf(t->why, sizeof(t->why), "too few processes (%zu and %zu): at least %d per side, run with --repeats %d",
                 t->groups_a, t->groups_b, SIGNIFICANCE_MIN_PROCESSES, SIGNIFICANCE_RECIPE_PROCESSES);
    } else if (!isfinite(t->ci_lo) || !isfinite(t->ci_hi)) {
        snprintf(t->why, sizeof(t->why), "no confidence interval");
    } else if (t->ci_lo >= lo_band && t->ci_hi <= hi_band) {
        /* Checked before significance on purpose: a tiny real shift that
         * many processes make significant is still "same". */
        v = SIGNIFICANCE_SAME;
        snprintf(t->why, sizeof(t->why), "interval inside the noise band");
    } else if (t->ci_hi < 1.0 - noise || t->ci_lo > 1.0 + noise) {
        /* The interval clears the configured floor; the change itself must
         * also be larger than the cell's measured scatter between processes. */
        bool up = t->ci_lo > 1.0 + noise;
        bool beyond = up ? t->ratio > hi_band : t->ratio < lo_band;
        if (!significant)
            snprintf(t->why, sizeof(t->why), "large change, not significant");
        else if (!beyond)
            snprintf(t->why, sizeof(t->why), "significant, but the change (%+.1f%%) is within this cell's scatter "
                     "between processes (CV %.1f%%)%s", (t->ratio - 1.0) * 100, band * 100, need);
        else {
            v = up ? SIGNIFICANCE_SLOWER : SIGNIFICANCE_FASTER;
            snprintf(t->why, sizeof(t->why), "significant, %s the noise band", up ? "above" : "below");
        }
    } else {
        snprintf(t->why, sizeof(t->why), "interval crosses the noise band's edge%s", need);
    }
    t->verdict = v;
    return v;
}

int significance_decide(struct significance_test *t, size_t n, double alpha, double noise)
{
    double *p = xcalloc(n ? n : 1, sizeof(*p));
    for (size_t i = 0; i < n; i++)
        p[i] = t[i].valid && t[i].per_process ? t[i].p : NAN;
    int err = significance_bh(p, n, p);
    for (size_t i = 0; !err && i < n; i++) {
        t[i].p_adj = p[i];
        significance_verdict(&t[i], alpha, noise);
    }
    free(p);
    return err;
}

const char *significance_verdict_name(enum significance_verdict v)
{
    switch (v) {
    case SIGNIFICANCE_SAME:
        return "same";
    case SIGNIFICANCE_FASTER:
        return "faster";
    case SIGNIFICANCE_SLOWER:
        return "slower";
    case SIGNIFICANCE_AMBIGUOUS:
        return "ambiguous";
    case SIGNIFICANCE_NONE:
        break;
    }
    return "none";
}
