/*
 * test_significance.c - the statistics of `benchgen compare`: Mann-Whitney U
 * against scipy, Benjamini-Hochberg against a hand example, the verdict rule,
 * and seeded simulations (injected slowdown, small shift, noisy cell, 1,000
 * A/A comparisons).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats/significance.h"
#include "stats/tdist.h"

/* ---- a seeded normal generator for the simulations ---------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *s)
{
    return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double rng_normal(uint64_t *s)
{
    double u1 = rng_uniform(s), u2 = rng_uniform(s);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Step times in ms like a real cell's: mean around `ms`, relative noise cv,
 * rounded to whole nanoseconds (so ties can happen, as with stored ns). */
static void fill(double *x, size_t n, double ms, double cv, uint64_t *s)
{
    for (size_t i = 0; i < n; i++) {
        double v = ms * (1.0 + cv * rng_normal(s));
        if (v < ms * 0.2)
            v = ms * 0.2;
        x[i] = round(v * 1e6) / 1e6;
    }
}

/* One cell compared on its own (BH over one test is the raw p), from one
 * process per side: below the minimum of processes, never a change. */
static enum significance_verdict one_cell(const double *a, size_t na, const double *b, size_t nb,
                                          size_t resamples, struct significance_test *t)
{
    struct significance_group ga = {a, na}, gb = {b, nb};
    assert_int_equal(significance_test(&ga, 1, &gb, 1, 0.95, resamples, 0, t), 0);
    assert_int_equal(significance_decide(t, 1, SIGNIFICANCE_ALPHA, SIGNIFICANCE_NOISE), 0);
    return t->verdict;
}

/* P processes per side of n steps: each process's mean is off by a normal
 * process effect of CV pcv (thread placement, memory layout, clocks), its
 * steps by a step noise of CV 5% around it. x holds 2 * P * n values. */
static void fill_procs(double *x, size_t P, size_t n, double ms_a, double ms_b, double pcv, uint64_t *s,
                       struct significance_group *ga, struct significance_group *gb)
{
    for (size_t side = 0; side < 2; side++)
        for (size_t k = 0; k < P; k++) {
            double *px = x + (side * P + k) * n;
            fill(px, n, (side ? ms_b : ms_a) * exp(pcv * rng_normal(s)), 0.05, s);
            (side ? gb : ga)[k] = (struct significance_group){px, n};
        }
}

static enum significance_verdict procs_cell(double *x, size_t P, size_t n, double ms_a, double ms_b, double pcv,
                                            uint64_t *s, struct significance_test *t)
{
    struct significance_group ga[64], gb[64];
    fill_procs(x, P, n, ms_a, ms_b, pcv, s, ga, gb);
    assert_int_equal(significance_test(ga, P, gb, P, 0.95, 200, 0, t), 0);
    assert_int_equal(significance_decide(t, 1, SIGNIFICANCE_ALPHA, SIGNIFICANCE_NOISE), 0);
    return t->verdict;
}

static void assert_close(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want) + 1e-300))
        fail_msg("got %.17g, want %.17g (relative tolerance %g)", got, want, rel);
}

/* ---- Mann-Whitney U against scipy ---------------------------------------- */

/*
 * Reference values from scipy 1.17.1 (Python 3.11, a throwaway venv:
 * `python -m venv /tmp/venv-scipy && /tmp/venv-scipy/bin/pip install scipy`):
 *
 *   from scipy.stats import mannwhitneyu
 *   r = mannwhitneyu(a, b, alternative="two-sided", method="auto")
 *   print(r.statistic, repr(r.pvalue))
 *
 * with a and b as below (the formula-built ones were built with the same
 * expressions in Python, whose floats are the same IEEE doubles).
 */
static void test_mwu_exact_small(void **state)
{
    (void)state;
    struct significance_mwu r;
    const double a[] = {1.1, 2.3, 0.7, 3.9, 2.8}, b[] = {3.1, 4.4, 2.9, 5.0, 4.1, 3.6, 6.2};
    assert_int_equal(significance_mwu(a, 5, b, 7, &r), 0);
    assert_true(r.exact);
    assert_true(r.u1 == 3.0);
    assert_close(r.p, 0.01767676767676768, 1e-12);

    const double c[] = {1, 2, 3}, d[] = {4, 5, 6, 7};
    assert_int_equal(significance_mwu(c, 3, d, 4, &r), 0);
    assert_true(r.exact && r.u1 == 0.0);
    assert_close(r.p, 0.05714285714285714, 1e-12);
    /* symmetric: swapping the sides gives the other U and the same p */
    assert_int_equal(significance_mwu(d, 4, c, 3, &r), 0);
    assert_true(r.u1 == 12.0);
    assert_close(r.p, 0.05714285714285714, 1e-12);
}

static void test_mwu_exact_unbalanced(void **state)
{
    (void)state;
    struct significance_mwu r;
    double a[8], b[300];
    for (int i = 0; i < 8; i++)
        a[i] = 10 + i * 0.731;
    for (int i = 0; i < 40; i++)
        b[i] = 11.05 + ((i * 17) % 40) * 0.413;
    assert_int_equal(significance_mwu(a, 8, b, 40, &r), 0);
    assert_true(r.exact && r.u1 == 35.0);
    assert_close(r.p, 0.00018398353011112042, 1e-10);

    for (int i = 0; i < 8; i++)
        a[i] = 66.013 + i * 0.37;
    for (int i = 0; i < 300; i++)
        b[i] = 40 + ((i * 53) % 300) * 0.1 + 0.05;
    assert_int_equal(significance_mwu(a, 8, b, 300, &r), 0);
    assert_true(r.exact && r.u1 == 2185.0);
    assert_close(r.p, 5.8801357813326475e-06, 1e-9);
}

static void test_mwu_asymptotic(void **state)
{
    (void)state;
    struct significance_mwu r;
    /* ties in a small sample: scipy switches to the normal approximation */
    const double a[] = {1, 2, 2, 3, 3, 3}, b[] = {2, 3, 4, 4, 5, 5};
    assert_int_equal(significance_mwu(a, 6, b, 6, &r), 0);
    assert_false(r.exact);
    assert_true(r.u1 == 5.5);
    assert_close(r.p, 0.047967873742731204, 1e-12);

    double x[200], y[200];
    for (int i = 0; i < 20; i++)
        x[i] = 100 + ((i * 37) % 23) * 0.5;
    for (int i = 0; i < 25; i++)
        y[i] = 101 + ((i * 41) % 29) * 0.5;
    assert_int_equal(significance_mwu(x, 20, y, 25, &r), 0);
    assert_false(r.exact);
    assert_true(r.u1 == 167.5);
    assert_close(r.p, 0.06093896048034973, 1e-12);

    for (int i = 0; i < 200; i++) {
        x[i] = 1000 + (i % 17);
        y[i] = 1010 + (i % 19);
    }
    assert_int_equal(significance_mwu(x, 200, y, 200, &r), 0);
    assert_true(r.u1 == 3014.0);
    assert_close(r.p, 6.072198848869689e-49, 1e-9); /* far tail: erfc keeps it accurate */

    const double same[] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
    assert_int_equal(significance_mwu(same, 10, same, 10, &r), 0);
    assert_true(r.u1 == 50.0);
    assert_true(r.p == 1.0);

    assert_int_equal(significance_mwu(same, 0, same, 10, &r), -5 /* BG_EUSAGE */);
}

/* ---- Benjamini-Hochberg -------------------------------------------------- */

static void test_bh(void **state)
{
    (void)state;
    /* By hand, m = 5 (NAN is not a test): sorted p 0.005 0.01 0.03 0.04 0.20
     * times m/rank: 0.025 0.025 0.05 0.05 0.20; running minimum from the top
     * changes nothing. scipy.stats.false_discovery_control agrees. */
    double p[] = {0.01, 0.04, 0.03, 0.005, NAN, 0.20}, q[6];
    assert_int_equal(significance_bh(p, 6, q), 0);
    assert_close(q[0], 0.025, 1e-12);
    assert_close(q[1], 0.05, 1e-12);
    assert_close(q[2], 0.05, 1e-12);
    assert_close(q[3], 0.025, 1e-12);
    assert_true(isnan(q[4]));
    assert_close(q[5], 0.20, 1e-12);

    /* The step-up minimum matters here: scipy gives
     * [0.007 0.58333333 0.0686 0.0686 0.9 0.0686 0.0686]. In place (q == p). */
    double r[] = {0.001, 0.5, 0.049, 0.02, 0.9, 0.03, 0.04};
    const double want[] = {0.007, 0.5833333333333334, 0.0686, 0.0686, 0.9, 0.0686, 0.0686};
    assert_int_equal(significance_bh(r, 7, r), 0);
    for (int i = 0; i < 7; i++)
        assert_close(r[i], want[i], 1e-9);

    /* empty and all-NAN inputs */
    assert_int_equal(significance_bh(NULL, 0, NULL), 0);
    double n1[] = {NAN};
    assert_int_equal(significance_bh(n1, 1, n1), 0);
    assert_true(isnan(n1[0]));
}

/* ---- the verdict rule on chosen numbers ---------------------------------- */

static enum significance_verdict rule(double p_adj, double lo, double hi)
{
    struct significance_test t = {.valid = 1,   .n_a = 100,    .n_b = 100,      .groups_a = 6,
                                  .groups_b = 6, .per_process = 1, .cv_process = 0.0, .p_adj = p_adj,
                                  .ci_lo = lo,   .ci_hi = hi, .ratio = sqrt(lo * hi)};
    return significance_verdict(&t, 0.05, 0.02);
}

static void test_verdict_rule(void **state)
{
    (void)state;
    assert_int_equal(rule(1e-9, 1.08, 1.12), SIGNIFICANCE_SLOWER);
    assert_int_equal(rule(1e-9, 0.85, 0.90), SIGNIFICANCE_FASTER);
    assert_int_equal(rule(0.30, 1.08, 1.12), SIGNIFICANCE_AMBIGUOUS); /* large, not significant */
    assert_int_equal(rule(0.30, 0.85, 0.90), SIGNIFICANCE_AMBIGUOUS);
    assert_int_equal(rule(1e-9, 1.003, 1.007), SIGNIFICANCE_SAME); /* significant but tiny */
    assert_int_equal(rule(0.60, 0.99, 1.01), SIGNIFICANCE_SAME);
    assert_int_equal(rule(1e-9, 1.01, 1.05), SIGNIFICANCE_AMBIGUOUS); /* crosses the band edge */
    assert_int_equal(rule(0.60, 0.95, 1.05), SIGNIFICANCE_AMBIGUOUS); /* too wide to say */
    assert_int_equal(rule(NAN, 0.99, 1.01), SIGNIFICANCE_SAME);
    assert_int_equal(rule(NAN, 1.5, 1.6), SIGNIFICANCE_AMBIGUOUS);
    assert_int_equal(rule(0.049, 1.0201, 1.03), SIGNIFICANCE_SLOWER);
    assert_int_equal(rule(0.05, 1.0201, 1.03), SIGNIFICANCE_AMBIGUOUS); /* alpha is exclusive */

    struct significance_test few = {.valid = 1, .n_a = 4, .n_b = 100, .p_adj = 1e-9, .ci_lo = 2, .ci_hi = 3};
    assert_int_equal(significance_verdict(&few, 0.05, 0.02), SIGNIFICANCE_AMBIGUOUS);
    assert_string_equal(few.why, "too few samples");
    /* below the minimum of processes: never a change, and the reason says what to run */
    struct significance_test one = {.valid = 1, .n_a = 100, .n_b = 100, .groups_a = 1, .groups_b = 1,
                                    .p_adj = 1e-9, .ci_lo = 2, .ci_hi = 3};
    assert_int_equal(significance_verdict(&one, 0.05, 0.02), SIGNIFICANCE_AMBIGUOUS);
    assert_non_null(strstr(one.why, "too few processes (1 and 1): at least 5 per side, run with --repeats 12"));
    /* a noisy cell's band is its measured CV: a 10% change inside a 12% noise is not a change */
    struct significance_test noisy = {.valid = 1, .n_a = 100, .n_b = 100, .groups_a = 8, .groups_b = 8,
                                      .per_process = 1, .cv_process = 0.12, .p_adj = 1e-9,
                                      .ci_lo = 1.08, .ci_hi = 1.12};
    assert_int_equal(significance_verdict(&noisy, 0.05, 0.02), SIGNIFICANCE_SAME);
    assert_true(noisy.band == 0.12 && noisy.too_noisy && noisy.needed == 0);
    /* the interval clears the 2% floor and the change is larger than the cell's
     * scatter: a 20% slowdown over 12 processes of CV 13% is slower, though its
     * interval reaches into [1 - CV, 1 + CV] (the calibration's +25% power runs) */
    struct significance_test loud = {.valid = 1, .n_a = 240, .n_b = 240, .groups_a = 12, .groups_b = 12,
                                     .per_process = 1, .paired = 1, .cv_process = 0.13, .p_adj = 0.005,
                                     .ratio = 1.20, .ci_lo = 1.07, .ci_hi = 1.35};
    assert_int_equal(significance_verdict(&loud, 0.05, 0.02), SIGNIFICANCE_SLOWER);
    loud.ratio = 0.84, loud.ci_lo = 0.75, loud.ci_hi = 0.94;
    assert_int_equal(significance_verdict(&loud, 0.05, 0.02), SIGNIFICANCE_FASTER);
    /* ... but a significant 8% change in a cell that scatters by 10% is not called */
    struct significance_test within = {.valid = 1, .n_a = 240, .n_b = 240, .groups_a = 12, .groups_b = 12,
                                       .per_process = 1, .paired = 1, .cv_process = 0.10, .p_adj = 0.01,
                                       .ratio = 1.08, .ci_lo = 1.03, .ci_hi = 1.13};
    assert_int_equal(significance_verdict(&within, 0.05, 0.02), SIGNIFICANCE_AMBIGUOUS);
    assert_non_null(strstr(within.why, "within this cell's scatter between processes (CV 10.0%)"));
    within.p_adj = 0.2; /* not significant: the reason says that first */
    within.ratio = 1.5, within.ci_lo = 1.03, within.ci_hi = 2.2;
    assert_int_equal(significance_verdict(&within, 0.05, 0.02), SIGNIFICANCE_AMBIGUOUS);
    assert_string_equal(within.why, "large change, not significant");
    struct significance_test none = {.valid = 0};
    assert_int_equal(significance_verdict(&none, 0.05, 0.02), SIGNIFICANCE_NONE);
    assert_string_equal(significance_verdict_name(SIGNIFICANCE_SLOWER), "slower");
    assert_string_equal(significance_verdict_name(SIGNIFICANCE_NONE), "none");
}

/* ---- Student's t -------------------------------------------------------- */

static void test_tdist(void **state)
{
    (void)state;
    /* table values (any statistics text; scipy.stats.t.ppf) */
    assert_close(tdist_quantile(0.975, 10), 2.2281388519862735, 1e-9);
    assert_close(tdist_quantile(0.975, 4), 2.7764451051977987, 1e-9);
    assert_close(tdist_quantile(0.975, 1), 12.706204736174698, 1e-8);
    assert_close(tdist_quantile(0.8, 10), 0.8790578285505, 1e-8);
    assert_close(tdist_quantile(0.025, 10), -2.2281388519862735, 1e-9);
    /* p of the quantile is its tail, both sides */
    assert_close(tdist_p_two_sided(2.2281388519862735, 10), 0.05, 1e-9);
    assert_close(tdist_p_two_sided(12.706204736174698, 1), 0.05, 1e-8);
    assert_close(tdist_p_two_sided(0.0, 7), 1.0, 1e-12);
    assert_true(isnan(tdist_p_two_sided(1.0, 0.0)));

    /* Welch and paired on small hand-checked samples */
    const double la[] = {0.0, 0.1, -0.1, 0.05, -0.05}, lb[] = {0.2, 0.3, 0.1, 0.25, 0.15};
    struct tdist_test t;
    assert_int_equal(tdist_test_logs(la, 5, lb, 5, 0, 0.95, &t), 0);
    assert_close(t.diff, 0.2, 1e-12);
    assert_close(t.se, sqrt(2 * 0.00625 / 5), 1e-12); /* both variances 0.00625 */
    assert_close(t.df, 8.0, 1e-12);
    assert_true(t.p < 0.01 && t.lo > 0.0);
    assert_int_equal(tdist_test_logs(la, 5, lb, 5, 1, 0.95, &t), 0); /* differences all 0.2 */
    assert_true(t.se < 1e-12 && t.p < 1e-10 && t.paired);
    assert_true(tdist_test_logs(la, 1, lb, 5, 0, 0.95, &t) < 0);
    assert_true(tdist_test_logs(la, 4, lb, 5, 1, 0.95, &t) < 0);

    /* planning: more noise, more processes; a change inside the band, never */
    size_t quiet = tdist_processes_needed(0.01, 0.02, 0.02, 0.10, 0.05, 0.8, 0, 1000);
    size_t loud = tdist_processes_needed(0.04, 0.04, 0.02, 0.10, 0.05, 0.8, 0, 1000);
    assert_true(quiet >= 2 && quiet < loud);
    assert_int_equal(tdist_processes_needed(0.06, 0.06, 0.02, 0.05, 0.05, 0.8, 0, 1000), 0);
    /* the band condition binds when the scatter is close to the effect: CV 8%
     * against a 10% change needs more processes than the floor alone asks */
    size_t near = tdist_processes_needed(0.08, 0.08, 0.02, 0.10, 0.05, 0.8, 1, 1000);
    size_t floor_only = tdist_processes_needed(0.08, 0.02, 0.02, 0.10, 0.05, 0.8, 1, 1000);
    assert_true(near > floor_only && floor_only >= 2);
}

/* ---- simulations: the process is the unit ------------------------------ */

static void test_injected_slowdown_is_slower(void **state)
{
    (void)state;
    uint64_t s = 1;
    static double x[2 * 6 * 50];
    struct significance_test t;
    assert_int_equal(procs_cell(x, 6, 50, 250.0, 250.0 * 1.10, 0.01, &s, &t), SIGNIFICANCE_SLOWER);
    assert_true(t.ratio > 1.07 && t.ratio < 1.13);
    assert_true(t.ci_lo > 1.02 && t.ci_lo < t.ratio && t.ratio < t.ci_hi);
    assert_true(t.per_process && !t.paired && t.groups_a == 6);
    assert_true(t.cv_process > 0.003 && t.cv_process < 0.03); /* the measured process CV */
    /* and the mirror image */
    assert_int_equal(procs_cell(x, 6, 50, 250.0 * 1.10, 250.0, 0.01, &s, &t), SIGNIFICANCE_FASTER);
    assert_true(t.ratio < 0.94);
}

static void test_small_shift_is_same_even_when_significant(void **state)
{
    (void)state;
    uint64_t s = 2;
    static double x[2 * 12 * 100];
    struct significance_test t;
    assert_int_equal(procs_cell(x, 12, 100, 100.0, 100.5, 0.001, &s, &t), SIGNIFICANCE_SAME);
    assert_true(t.p_adj < 0.05);                  /* the test does see the 0.5% ... */
    assert_true(t.ci_lo > 1.0 && t.ci_hi < 1.01); /* ... the interval says it is far inside the band */
}

static void test_noisy_cell_is_ambiguous(void **state)
{
    (void)state;
    uint64_t s = 3;
    static double x[2 * 6 * 30];
    struct significance_test t;
    assert_int_equal(procs_cell(x, 6, 30, 500.0, 500.0 * 1.06, 0.30, &s, &t), SIGNIFICANCE_AMBIGUOUS);
    assert_true(t.ci_hi - t.ci_lo > 0.1);
    assert_true(t.too_noisy && t.band > 0.1); /* the band is the cell's own noise */
    assert_non_null(strstr(t.why, "inside this cell's noise"));
}

static void test_deterministic(void **state)
{
    (void)state;
    uint64_t s = 4;
    double a[50], b[60];
    struct significance_test t1, t2;
    fill(a, 50, 10.0, 0.05, &s);
    fill(b, 60, 10.3, 0.05, &s);
    one_cell(a, 50, b, 60, SIGNIFICANCE_RESAMPLES, &t1);
    one_cell(a, 50, b, 60, SIGNIFICANCE_RESAMPLES, &t2);
    assert_memory_equal(&t1.ci_lo, &t2.ci_lo, sizeof(double));
    assert_memory_equal(&t1.ci_hi, &t2.ci_hi, sizeof(double));
    assert_memory_equal(&t1.mwu.p, &t2.mwu.p, sizeof(double));
}

/* The failure: one process per side whose means differ by the
 * process effect. Hundreds of steps make the step-level U test "certain";
 * a process-level verdict refuses, and says how many processes it needs. */
static void test_one_process_is_never_a_change(void **state)
{
    (void)state;
    uint64_t s = 5;
    static double a[300], b[300];
    fill(a, 300, 5.30, 0.02, &s);
    fill(b, 300, 3.02, 0.02, &s); /* sam/predict/b4/torch-eager in the issue */
    struct significance_test t;
    assert_int_equal(one_cell(a, 300, b, 300, SIGNIFICANCE_RESAMPLES, &t), SIGNIFICANCE_AMBIGUOUS);
    assert_true(t.mwu.p < 1e-10); /* the old evidence */
    assert_false(t.per_process);
    assert_non_null(strstr(t.why, "too few processes"));

    /* processes with a process effect: steps pooled look decisive, processes do not */
    static double x[2 * 6 * 100];
    struct significance_group ga[6], gb[6];
    fill_procs(x, 6, 100, 100.0, 100.0, 0.08, &s, ga, gb);
    assert_int_equal(significance_test(ga, 6, gb, 6, 0.95, 200, 0, &t), 0);
    assert_int_equal(significance_decide(&t, 1, 0.05, 0.02), 0);
    assert_true(t.verdict != SIGNIFICANCE_FASTER && t.verdict != SIGNIFICANCE_SLOWER);

    /* an empty group (a repeat with no samples) is ignored */
    struct significance_group with_empty[2] = {{x, 100}, {NULL, 0}};
    assert_int_equal(significance_test(with_empty, 2, gb, 1, 0.95, 100, 0, &t), 0);
    assert_int_equal(t.groups_a, 1);
    assert_true(t.valid);
    /* no samples at all: not valid, no verdict, not an error */
    assert_int_equal(significance_test(gb, 0, gb, 1, 0.95, 100, 0, &t), 0);
    assert_false(t.valid);
    assert_int_equal(significance_decide(&t, 1, 0.05, 0.02), 0);
    assert_int_equal(t.verdict, SIGNIFICANCE_NONE);

    /* paired: equal counts and asked for */
    fill_procs(x, 6, 100, 100.0, 100.0, 0.03, &s, ga, gb);
    assert_int_equal(significance_test(ga, 6, gb, 6, 0.95, 200, 1, &t), 0);
    assert_true(t.paired && t.df == 5.0);
    assert_int_equal(significance_test(ga, 6, gb, 5, 0.95, 200, 1, &t), 0);
    assert_false(t.paired); /* unequal counts: Welch */
}

/* 1,000 A/A comparisons of 6 processes a side with a process effect of CV
 * 1%, 5% or 15% (the issue: synthetic samples without one gave a false
 * sense of calibration): at most 5% changed verdicts, and the raw
 * per-process test rejects in about 5% of them. */
static void test_aa_simulation(void **state)
{
    (void)state;
    const double pcvs[] = {0.01, 0.05, 0.15};
    static double x[2 * 6 * 30];
    uint64_t s = 20240403;
    int changed = 0, raw_significant = 0;
    for (int i = 0; i < 1000; i++) {
        double ms = 10.0 + 990.0 * rng_uniform(&s);
        struct significance_test t;
        enum significance_verdict v = procs_cell(x, 6, 30, ms, ms, pcvs[i % 3], &s, &t);
        changed += v == SIGNIFICANCE_FASTER || v == SIGNIFICANCE_SLOWER;
        raw_significant += t.p < 0.05;
    }
    print_message("A/A: %d/1000 changed, %d raw p < 0.05\n", changed, raw_significant);
    assert_true(changed <= 50);
    assert_true(raw_significant >= 25 && raw_significant <= 80);
}

/* One matrix of 300 A/A cells judged together, and the same matrix with 30
 * cells slowed by 10%: BH keeps the false alarms down without losing them. */
static void test_aa_matrix_with_bh(void **state)
{
    (void)state;
    enum { CELLS = 300, P = 6, N = 20 };
    static double x[CELLS][2 * P * N];
    static struct significance_test t[CELLS];
    uint64_t s = 99;
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < CELLS; c++) {
            double ms = 20.0 + c;
            double slow = (pass == 1 && c % 10 == 0) ? 1.10 : 1.0;
            struct significance_group ga[P], gb[P];
            fill_procs(x[c], P, N, ms, ms * slow, 0.01, &s, ga, gb);
            assert_int_equal(significance_test(ga, P, gb, P, 0.95, 100, 0, &t[c]), 0);
        }
        assert_int_equal(significance_decide(t, CELLS, 0.05, 0.02), 0);
        int false_alarms = 0, found = 0;
        for (int c = 0; c < CELLS; c++) {
            bool slowed = pass == 1 && c % 10 == 0;
            bool changed = t[c].verdict == SIGNIFICANCE_FASTER || t[c].verdict == SIGNIFICANCE_SLOWER;
            if (slowed)
                found += t[c].verdict == SIGNIFICANCE_SLOWER;
            else
                false_alarms += changed;
        }
        print_message("matrix pass %d: %d false alarms, %d of 30 found\n", pass, false_alarms, found);
        assert_true(false_alarms <= CELLS / 20);
        if (pass == 1)
            assert_true(found >= 27);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mwu_exact_small),
        cmocka_unit_test(test_mwu_exact_unbalanced),
        cmocka_unit_test(test_mwu_asymptotic),
        cmocka_unit_test(test_bh),
        cmocka_unit_test(test_verdict_rule),
        cmocka_unit_test(test_injected_slowdown_is_slower),
        cmocka_unit_test(test_small_shift_is_same_even_when_significant),
        cmocka_unit_test(test_noisy_cell_is_ambiguous),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_one_process_is_never_a_change), cmocka_unit_test(test_tdist),
        cmocka_unit_test(test_aa_simulation),
        cmocka_unit_test(test_aa_matrix_with_bh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
