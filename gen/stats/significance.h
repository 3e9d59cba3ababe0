/*
 * significance.h - the statistics behind `benchgen compare`: is cell B
 * faster, slower, the same as cell A, or can the data not tell?
 *
 * A verdict needs two things (docs/COMPARE.md explains why):
 *   1. a Mann-Whitney U test on the raw step times, significant after
 *      Benjamini-Hochberg correction across every tested cell of the
 *      comparison (false discoveries controlled over the whole matrix);
 *   2. a bootstrap confidence interval of the ratio of means B/A (the
 *      published metric is the mean) lying entirely outside the noise band
 *      [1 - noise, 1 + noise].
 * "same" needs the interval entirely inside the band, whatever the test
 * says: with hundreds of samples a 0.5% shift is significant, and still the
 * same for any practical purpose. Everything else is "ambiguous".
 *
 * The bootstrap uses a fixed-seed generator, so the same samples always give
 * the same interval and a comparison renders identically twice.
 *
 * Ownership: callers own every array; nothing here keeps a pointer.
 */
#ifndef BENCHGEN_SIGNIFICANCE_H
#define BENCHGEN_SIGNIFICANCE_H

#include <stddef.h>
#include <stdint.h>

#define SIGNIFICANCE_ALPHA 0.05     /* false discovery rate (BH) */
#define SIGNIFICANCE_NOISE 0.02     /* half-width of the noise band, as a fraction */
#define SIGNIFICANCE_RESAMPLES 2000 /* bootstrap resamples */
#define SIGNIFICANCE_MIN_SAMPLES 5  /* fewer timed steps on a side: ambiguous */
/* The exact U distribution is used (as scipy does) when a side has at most
 * this many samples and there are no ties; otherwise the normal
 * approximation with tie and continuity corrections. */
#define SIGNIFICANCE_EXACT_MAX_N 8

enum significance_verdict {
    SIGNIFICANCE_NONE = 0, /* not tested (a side not ok, mismatch, missing) */
    SIGNIFICANCE_SAME,
    SIGNIFICANCE_FASTER,
    SIGNIFICANCE_SLOWER,
    SIGNIFICANCE_AMBIGUOUS
};

/* Two-sided Mann-Whitney U test of a against b. u1 is a's statistic (the
 * number of pairs with a > b, ties counting one half), as scipy reports it. */
struct significance_mwu {
    double u1;
    double z;  /* standardised statistic (NAN for the exact test) */
    double p;  /* two-sided p-value in [0, 1] */
    int exact; /* 1: exact distribution, 0: normal approximation */
};

/* na, nb >= 1; BG_EUSAGE otherwise (out of memory exits, base/xalloc.h). */
int significance_mwu(const double *a, size_t na, const double *b, size_t nb, struct significance_mwu *out);

/* Benjamini-Hochberg adjusted p-values ("q-values"): q[i] for p[i]. NAN
 * entries are not tests: they stay NAN and do not count in m. q may be p. */
int significance_bh(const double *p, size_t n, double *q);

/* The samples of one worker process (one repeat of a cell). */
struct significance_group {
    const double *x;
    size_t n;
};

/* One cell's comparison: filled by significance_test(), completed by
 * significance_decide(). */
struct significance_test {
    int valid;                         /* both sides had samples and a finite, positive mean */
    size_t n_a, n_b;                   /* pooled samples */
    size_t groups_a, groups_b;         /* processes (repeats) with samples */
    double mean_a, mean_b;             /* pooled means, in the samples' unit */
    double ratio;                      /* mean_b / mean_a: > 1 means B is slower */
    double ci_lo, ci_hi;               /* bootstrap percentile interval of the ratio */
    double level;                      /* its confidence level */
    struct significance_mwu mwu;       /* on the pooled samples */
    double p_adj;                      /* BH-adjusted p (significance_decide) */
    enum significance_verdict verdict; /* (significance_decide) */
    const char *why;                   /* one phrase explaining the verdict; static */
};

/* Pools each side's groups, runs the U test and the bootstrap of the ratio
 * of means at confidence level (e.g. 0.95) with `resamples` draws. With one
 * group per side the bootstrap resamples steps; with several it resamples
 * processes, then steps within each drawn process (a two-stage bootstrap),
 * so process-to-process variance widens the interval as it should.
 * A side with no samples or a non-positive mean leaves out->valid = 0 (not
 * an error). Returns 0 or BG_EUSAGE (bad level/resamples); out of memory exits. */
int significance_test(const struct significance_group *a, size_t nga, const struct significance_group *b,
                      size_t ngb, double level, size_t resamples, struct significance_test *out);

/* Benjamini-Hochberg over the valid tests of t[0..n), then each verdict with
 * significance_verdict(). */
int significance_decide(struct significance_test *t, size_t n, double alpha, double noise);

/* The rule for one test whose p_adj is set; also sets t->why. */
enum significance_verdict significance_verdict(struct significance_test *t, double alpha, double noise);

/* "same", "faster", "slower", "ambiguous", "none". */
const char *significance_verdict_name(enum significance_verdict v);

#endif /* BENCHGEN_SIGNIFICANCE_H */
