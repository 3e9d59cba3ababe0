/*
 * significance.h - the statistics behind `benchgen compare`: is cell B
 * faster, slower, the same as cell A, or can the data not tell?
 *
 * The process is the unit of replication (tdist.h): each worker process
 * gives one number, the mean of its timed steps. A verdict needs
 * (docs/COMPARE.md explains why):
 *   0. at least SIGNIFICANCE_MIN_PROCESSES processes per side;
 *   1. a t-test on the log per-process means (Welch; paired when both sides
 *      come from one interleaved `run --ab`), significant after
 *      Benjamini-Hochberg correction across every tested cell of the
 *      comparison (false discoveries controlled over the whole matrix);
 *   2. the t-interval of the ratio B/A lying entirely outside the cell's
 *      noise band [1 - band, 1 + band], where band is the larger of the
 *      configured noise and the cell's measured between-process CV.
 * "same" needs the interval entirely inside the band, whatever the test
 * says. Everything else is "ambiguous", with the reason and how many
 * processes per side would settle it.
 *
 * The Mann-Whitney U test on the pooled steps and, below two processes a
 * side, a fixed-seed bootstrap interval of the ratio of pooled means are
 * still computed and reported, for information: they never decide.
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
/* Fewer processes with samples on a side: ambiguous (docs/COMPARE.md,
 * "Why five processes"). */
#define SIGNIFICANCE_MIN_PROCESSES 5
/* Processes a side that `run --ab` makes when neither --repeats nor the
 * spec's repeats: says: the count the calibration met its targets with
 * (docs/COMPARE.md, "Calibration"); even, so ABBA order is balanced. */
#define SIGNIFICANCE_RECIPE_PROCESSES 12
#define SIGNIFICANCE_DETECT 0.05 /* the change each cell is checked to be able to find */
#define SIGNIFICANCE_POWER 0.80  /* ... with this probability */
#define SIGNIFICANCE_MAX_PROCESSES 1000
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
    double ratio;                      /* B/A: > 1 means B is slower. Per-process test: ratio of the
                                        * geometric means of the per-process means; else pooled means */
    double gmean_a, gmean_b;           /* what ratio is the ratio of: the geometric means of the
                                        * per-process means (per-process test), else the pooled means */
    double ci_lo, ci_hi;               /* interval of the ratio: t-interval (per-process), else bootstrap */
    double level;                      /* its confidence level */
    int per_process;                   /* 1: the per-process t-test ran (>= 2 processes a side) */
    int paired;                        /* ... paired on repeat index (one interleaved A/B run) */
    double t_stat, df;                 /* its statistic and degrees of freedom */
    double p;                          /* its two-sided p (NAN when it did not run) */
    double cv_process;                 /* measured between-process CV of the cell; NAN below 2 a side */
    double cv_a, cv_b;                 /* ... of each side */
    int cv_from_profile;               /* 1: the band and planning use cv_profile (a noise profile) */
    double cv_profile;                 /* the between-process CV a noise profile measured for the cell */
    struct significance_mwu mwu;       /* on the pooled samples, for information */
    double p_adj;                      /* BH-adjusted p (significance_decide) */
    double band;                       /* noise band half-width used: max(noise, cv_process) (decide) */
    int band_wide;                     /* band > noise: the cell's own scatter set it (decide) */
    size_t needed;                     /* processes per side to find a SIGNIFICANCE_DETECT change;
                                        * 0: not at any count (band >= it) or unknown (decide) */
    int too_noisy;                     /* cannot find a SIGNIFICANCE_DETECT change with the processes given */
    enum significance_verdict verdict; /* (significance_decide) */
    char why[192];                     /* one phrase explaining the verdict */
};

/* With at least 2 processes a side: the per-process t-test and t-interval
 * at confidence level (e.g. 0.95) on the log per-process means, paired when
 * `paired` and both sides have the same number of processes (group k of a
 * and of b ran next to each other). Below that: the bootstrap interval of
 * the ratio of pooled means (`resamples` draws), for information. The U
 * test on pooled steps always. A side with no samples or a non-positive
 * mean leaves out->valid = 0 (not an error). Returns 0 or BG_EUSAGE (bad
 * level/resamples); out of memory exits (base/xalloc.h). */
int significance_test(const struct significance_group *a, size_t nga, const struct significance_group *b,
                      size_t ngb, double level, size_t resamples, int paired, struct significance_test *out);

/* Benjamini-Hochberg over the valid tests of t[0..n), then each verdict with
 * significance_verdict(). */
int significance_decide(struct significance_test *t, size_t n, double alpha, double noise);

/* The rule for one test whose p_adj is set; also sets band, needed,
 * too_noisy and why. */
enum significance_verdict significance_verdict(struct significance_test *t, double alpha, double noise);

/* "same", "faster", "slower", "ambiguous", "none". */
const char *significance_verdict_name(enum significance_verdict v);

#endif /* BENCHGEN_SIGNIFICANCE_H */
