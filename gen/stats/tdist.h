/*
 * tdist.h - Student's t distribution and the per-process test behind
 * `benchgen compare`'s verdicts: the process is the unit of replication.
 *
 * Each worker process of a cell gives one number, the mean of its timed
 * steps; the steps inside a process measure that process, not the
 * population of processes. Two sides are compared on the logarithms of
 * those per-process means: Welch's t-test (unequal variances), or a paired
 * t-test when the two sides come from one interleaved A/B run (`run --ab`),
 * whose k-th A and B processes ran next to each other. The interval of the
 * ratio is exp() of the t-interval of the difference of log means, so the
 * ratio is the ratio of geometric means of the per-process means.
 *
 * Ownership: callers own every array; nothing here keeps a pointer.
 */
#ifndef BENCHGEN_TDIST_H
#define BENCHGEN_TDIST_H

#include <stddef.h>

/* Two-sided p-value of t with df degrees of freedom (df > 0, may be
 * fractional). */
double tdist_p_two_sided(double t, double df);

/* The q quantile (0 < q < 1) of t with df degrees of freedom. */
double tdist_quantile(double q, double df);

/* The result of one per-process comparison of log means. */
struct tdist_test {
    int paired;       /* 1: paired on index (equal counts), 0: Welch */
    double diff;      /* mean(log b) - mean(log a) */
    double se;        /* its standard error */
    double df;        /* degrees of freedom (Welch-Satterthwaite when unpaired) */
    double t, p;      /* statistic and two-sided p */
    double lo, hi;    /* interval of diff at the requested level */
    double sd_a, sd_b; /* standard deviations of the log means: the between-process CVs */
    double cv;        /* one between-process CV for the cell: the pooled sd
                       * (paired: sd of the differences / sqrt 2) */
};

/* la[0..na), lb[0..nb): logs of per-process means, na, nb >= 2 (paired:
 * na == nb >= 2). level in (0,1). Returns 0, or BG_EUSAGE. A zero spread on
 * both sides gives se 0, p 1 when diff is 0 else 0, and a point interval. */
int tdist_test_logs(const double *la, size_t na, const double *lb, size_t nb, int paired, double level,
                    struct tdist_test *out);

/* Processes per side needed to find a change of `effect` (fraction, e.g.
 * 0.05) with probability about `power` at level alpha under compare's rule
 * (significance_verdict), for a cell whose between-process CV is cv, whose
 * noise band is band and whose configured noise floor is noise (fractions):
 * the smallest n for which both
 *   log(1+effect) - log(1+noise) >= (t(1-alpha/2) + t(power)) * se(n)
 *     (the interval clears the floor), and
 *   log(1+effect) - log(1+band)  >= t(power) * se(n)
 *     (the estimate lies beyond the cell's measured scatter)
 * hold, se(n) = cv * sqrt(2/n). 0 when effect <= band (a change that small is
 * inside the noise at any count) or more than max_n would be needed. */
size_t tdist_processes_needed(double cv, double band, double noise, double effect, double alpha, double power,
                              int paired, size_t max_n);

#endif /* BENCHGEN_TDIST_H */
