/*
 * seqtest.h - sequential verdicts for an interleaved A/B run (`run --ab`):
 * start each cell with a first batch of processes a side, look at the
 * verdict, and add processes only to cells that are not yet decided, up to
 * a cap (docs/COMPARE.md, "Sequential verdicts").
 *
 * Looking at the data after every batch and testing each time at a fixed
 * alpha would raise the false-alarm rate with every look. The rule here is
 * a group-sequential test with Lan-DeMets alpha spending: the looks are at
 * first, first + step, ... and cap processes a side (information fraction
 * t = n / cap), the spending function alpha(t) says how much of alpha may
 * have been spent by then, and the boundaries c_1..c_K of the paired
 * t-statistic on the log per-process means are set so that under "no
 * change" the chance of crossing one for the first time at look k is
 * alpha(t_k) - alpha(t_{k-1}). Under "no change" the joint distribution of
 * the t-statistics at the looks does not depend on the unknown process
 * variance, so the boundaries are found once per design by simulating it
 * (200,000 sequences, a fixed seed: the same design always gets the same
 * boundaries). The interval at look k is diff +/- c_k * se: a repeated
 * confidence interval, which holds at every look at once with probability
 * 1 - alpha. tests/unit/test_seqtest.c checks the false-alarm rate over
 * 10,000 simulated A/A sequences.
 *
 * The decision at a look, with band = max(noise, the cell's measured CV)
 * and margin = max(band, effect) (effect: the smallest change of interest):
 *   slower  p < level, the interval lies above 1 + noise, B/A above 1 + band
 *   faster  p < level, the interval lies below 1 - noise, B/A below 1 - band
 *   same    the interval lies inside [1 - margin, 1 + margin] (equivalence)
 *   else    continue; at the last look: undecided at the cap.
 *
 * Ownership: callers own every array; nothing here keeps a pointer.
 */
#ifndef BENCHGEN_SEQTEST_H
#define BENCHGEN_SEQTEST_H

#include <stddef.h>
#include <stdint.h>

#define SEQTEST_FIRST 4     /* processes a side before the first look */
#define SEQTEST_STEP 2      /* added a side per look: one ABBA block */
#define SEQTEST_CAP 12      /* at most, a side (the fixed recipe's count) */
#define SEQTEST_EFFECT 0.05 /* the smallest change of interest */
#define SEQTEST_MIN_FIRST 3 /* a paired t-test needs a spread: 2 degrees of freedom at least */
#define SEQTEST_MAX_LOOKS 16
#define SEQTEST_MAX_CAP 1000

enum seqtest_spending {
    SEQTEST_POCOCK = 0, /* alpha * ln(1 + (e - 1) t): spends early, stops big changes soon */
    SEQTEST_OBF         /* 2 - 2 Phi(z(1 - alpha/2) / sqrt(t)): O'Brien-Fleming-type, spends late */
};

struct seqtest_design {
    size_t first, step, cap;
    double alpha, effect;
    enum seqtest_spending spending;
    size_t nlooks;
    size_t n[SEQTEST_MAX_LOOKS];     /* processes a side at look k */
    double spent[SEQTEST_MAX_LOOKS]; /* alpha spent by look k (cumulative) */
    double crit[SEQTEST_MAX_LOOKS];  /* the boundary of |t| (paired t on n_k - 1 degrees of freedom) */
    double level[SEQTEST_MAX_LOOKS]; /* its nominal two-sided level: P(|t| >= crit) at one look */
};

/* The looks and their boundaries. BG_EUSAGE (message set) unless
 * SEQTEST_MIN_FIRST <= first <= cap <= SEQTEST_MAX_CAP, step >= 1, at most
 * SEQTEST_MAX_LOOKS looks, 0 < alpha < 0.5 and 0 <= effect < 1. */
int seqtest_design(struct seqtest_design *d, size_t first, size_t step, size_t cap, double alpha, double effect,
                   enum seqtest_spending spending);

/* The look at n processes a side (0-based), or -1 when n is not one. */
int seqtest_look_index(const struct seqtest_design *d, size_t n);

enum seqtest_decision {
    SEQTEST_CONTINUE = 0,
    SEQTEST_SLOWER,
    SEQTEST_FASTER,
    SEQTEST_SAME,
    SEQTEST_UNDECIDED /* the cap was reached without a decision */
};

struct seqtest_result {
    enum seqtest_decision decision;
    size_t look;          /* 0-based */
    size_t n;             /* processes a side */
    double ratio, lo, hi; /* B/A and its repeated confidence interval at this look */
    double p, level;      /* the paired t-test's two-sided p, and this look's nominal level */
    double t, df;
    double cv, band, margin;
    char why[192]; /* "slower at look 2 of 5 (6 processes a side): ..." */
};

/* One look: la[i], lb[i] the logs of the i-th A and B process means (they
 * ran next to each other), n of them, n a look of d (BG_EUSAGE otherwise). */
int seqtest_look(struct seqtest_result *out, const struct seqtest_design *d, const double *la, const double *lb,
                 size_t n, double noise);

/* A standard normal draw (splitmix64 and Box-Muller) from the state at s,
 * which it advances: the generator behind the boundaries, for simulations
 * that must be reproducible. */
double seqtest_rng_normal(uint64_t *s);

/* "continue", "slower", "faster", "same", "undecided". */
const char *seqtest_decision_name(enum seqtest_decision v);

#endif /* BENCHGEN_SEQTEST_H */
