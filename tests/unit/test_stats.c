/*
 * test_stats.c - summary statistics against values computed independently.
 *
 * Expected numbers come from Python 3.11's statistics module: mean, median,
 * stdev (n - 1) and quantiles(method='inclusive'), which is the type-7 rule
 * numpy uses by default. The bootstrap interval was computed by a 20-line
 * Python re-implementation of splitmix64 + multiply-shift resampling; it pins
 * the algorithm so a change to it (which would change published CIs) shows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "base/error.h"
#include "stats/stats.h"

/* cmocka 1.1.5's assert_float_equal compares floats; benchgen needs doubles. */
static void assert_near_(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.17g, want %.17g (tolerance %g)", what, got, want, tol);
}
#define assert_near(got, want, tol) assert_near_((got), (want), (tol), #got)

/* 10 steps in ns: ms = 12, 10.5, 11, 10, 30, 10.25, 10.75, 11.5, 10.1, 10.9 */
static const int64_t ten[] = {12000000, 10500000, 11000000, 10000000, 30000000,
                              10250000, 10750000, 11500000, 10100000, 10900000};

static void test_ten_samples(void **state)
{
    (void)state;
    struct stats st;
    assert_int_equal(stats_compute(ten, 10, &st), 0);
    assert_int_equal(st.n, 10);
    assert_near(st.mean, 12.7, 1e-12);
    assert_near(st.median, 10.825, 1e-12);
    assert_near(st.p5, 10.045, 1e-9);
    assert_near(st.p95, 21.9, 1e-9);
    assert_near(st.stdev, 6.110510071453391, 1e-12);
    assert_near(st.min, 10.0, 0);
    assert_near(st.max, 30.0, 0);
    assert_near(st.cv, 0.4811425253112907, 1e-12);
    /* Q1 = 10.3125, Q3 = 11.375: only the 30 ms step is outside the fences. */
    assert_int_equal(st.outliers, 1);
    assert_int_equal(st.first_is_outlier, 0);
    assert_near(st.ci_lo, 10.504999999999999, 1e-9);
    assert_near(st.ci_hi, 16.7055, 1e-9);
    assert_true(st.ci_lo <= st.mean && st.mean <= st.ci_hi);
}

static void test_first_step_outlier(void **state)
{
    (void)state;
    /* ms = 50, 10, 11, 12, 10.5, 11.5: Q1 10.625, Q3 11.875, mean 17.5, median 11.25 */
    const int64_t ns[] = {50000000, 10000000, 11000000, 12000000, 10500000, 11500000};
    struct stats st;
    assert_int_equal(stats_compute(ns, 6, &st), 0);
    assert_near(st.mean, 17.5, 1e-12);
    assert_near(st.median, 11.25, 1e-12);
    assert_int_equal(st.outliers, 1);
    assert_int_equal(st.first_is_outlier, 1);
}

static void test_deterministic_ci(void **state)
{
    (void)state;
    struct stats a, b;
    assert_int_equal(stats_compute(ten, 10, &a), 0);
    assert_int_equal(stats_compute(ten, 10, &b), 0);
    assert_memory_equal(&a.ci_lo, &b.ci_lo, sizeof(double));
    assert_memory_equal(&a.ci_hi, &b.ci_hi, sizeof(double));
    assert_true(a.ci_lo >= a.min && a.ci_hi <= a.max);
}

static void test_empty(void **state)
{
    (void)state;
    struct stats st;
    memset(&st, 0x5a, sizeof(st));
    assert_int_equal(stats_compute(NULL, 0, &st), 0);
    assert_int_equal(st.n, 0);
    assert_true(isnan(st.mean) && isnan(st.median) && isnan(st.p5) && isnan(st.p95));
    assert_true(isnan(st.stdev) && isnan(st.min) && isnan(st.max) && isnan(st.cv));
    assert_true(isnan(st.ci_lo) && isnan(st.ci_hi));
    assert_int_equal(st.outliers, 0);
    assert_int_equal(st.first_is_outlier, 0);
}

static void test_single(void **state)
{
    (void)state;
    const int64_t ns[] = {2500000};
    struct stats st;
    assert_int_equal(stats_compute(ns, 1, &st), 0);
    assert_int_equal(st.n, 1);
    assert_near(st.mean, 2.5, 0);
    assert_near(st.median, 2.5, 0);
    assert_near(st.p5, 2.5, 0);
    assert_near(st.p95, 2.5, 0);
    assert_near(st.stdev, 0.0, 0);
    assert_near(st.cv, 0.0, 0);
    assert_near(st.ci_lo, 2.5, 0);
    assert_near(st.ci_hi, 2.5, 0);
    assert_int_equal(st.outliers, 0);
    assert_int_equal(st.first_is_outlier, 0);
}

static void test_constant(void **state)
{
    (void)state;
    const int64_t ns[] = {7000000, 7000000, 7000000, 7000000};
    struct stats st;
    assert_int_equal(stats_compute(ns, 4, &st), 0);
    assert_near(st.stdev, 0.0, 0);
    assert_near(st.ci_lo, 7.0, 0);
    assert_near(st.ci_hi, 7.0, 0);
    assert_int_equal(st.outliers, 0);
}

static void test_quantile_sorted(void **state)
{
    (void)state;
    /* statistics.quantiles([1, 2, 3, 4], n=4, method='inclusive') == [1.75, 2.5, 3.25] */
    const double v[] = {1, 2, 3, 4};
    assert_near(stats_quantile_sorted(v, 4, 0.25), 1.75, 1e-15);
    assert_near(stats_quantile_sorted(v, 4, 0.5), 2.5, 1e-15);
    assert_near(stats_quantile_sorted(v, 4, 0.75), 3.25, 1e-15);
    assert_near(stats_quantile_sorted(v, 4, 0.0), 1.0, 0);
    assert_near(stats_quantile_sorted(v, 4, 1.0), 4.0, 0);
    assert_near(stats_quantile_sorted(v, 1, 0.3), 1.0, 0);
    assert_true(isnan(stats_quantile_sorted(v, 0, 0.5)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten_samples),   cmocka_unit_test(test_first_step_outlier),
        cmocka_unit_test(test_deterministic_ci), cmocka_unit_test(test_empty),
        cmocka_unit_test(test_single),        cmocka_unit_test(test_constant),
        cmocka_unit_test(test_quantile_sorted),
    };
    return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
