/*
 * test_seqtest.c - the sequential rule of `run --ab` (stats/seqtest.h): its
 * boundaries spend alpha as designed (checked by simulating the normal
 * statistic), its false-alarm rate over 10,000 simulated A/A sequences stays
 * within the nominal level while testing at a fixed alpha at every look
 * does not, and a +25% change stops early.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/seqtest.h"
#include "stats/tdist.h"

#define rng_normal seqtest_rng_normal /* the library's generator, other seeds than the design's */

/* The default design (computed once: about 0.3 s). */
static const struct seqtest_design *defaults(void)
{
    static struct seqtest_design d;
    static int done;
    if (!done) {
        assert_int_equal(seqtest_design(&d, SEQTEST_FIRST, SEQTEST_STEP, SEQTEST_CAP, 0.05, SEQTEST_EFFECT,
                                        SEQTEST_POCOCK), 0);
        done = 1;
    }
    return &d;
}

/* The boundaries: under no change, the chance that the paired t-statistic
 * ever crosses one is alpha, for both spending functions, and each look
 * spends its part. 100,000 fresh sequences (another seed than the design's):
 * the standard error of a rate near 0.05 is 0.0007; allowed +/- 0.003. */
static void test_boundaries_spend_alpha(void **state)
{
    (void)state;
    for (int sp = 0; sp < 2; sp++) {
        struct seqtest_design d;
        assert_int_equal(seqtest_design(&d, 4, 2, 12, 0.05, 0.05, sp ? SEQTEST_OBF : SEQTEST_POCOCK), 0);
        assert_int_equal(d.nlooks, 5);
        assert_int_equal(d.n[0], 4);
        assert_int_equal(d.n[4], 12);
        assert_true(fabs(d.spent[4] - 0.05) < 1e-12);
        uint64_t seed = 42 + (uint64_t)sp;
        size_t cross = 0, sims = 100000, first[5] = {0};
        for (size_t s = 0; s < sims; s++) {
            double sum = 0.0, sq = 0.0;
            size_t n = 0;
            for (size_t k = 0; k < d.nlooks; k++) {
                for (; n < d.n[k]; n++) {
                    double x = 3.0 * rng_normal(&seed); /* any scale: t does not see it */
                    sum += x;
                    sq += x * x;
                }
                double mean = sum / (double)n, sd = sqrt((sq - (double)n * mean * mean) / (double)(n - 1));
                if (fabs(mean / (sd / sqrt((double)n))) >= d.crit[k]) {
                    cross++;
                    first[k]++;
                    break;
                }
            }
        }
        double rate = (double)cross / (double)sims;
        printf("# %s: |t| boundaries %.3f %.3f %.3f %.3f %.3f (levels %.4f %.4f %.4f %.4f %.4f), crossing rate "
               "%.4f\n", sp ? "OBF" : "Pocock", d.crit[0], d.crit[1], d.crit[2], d.crit[3], d.crit[4], d.level[0],
               d.level[1], d.level[2], d.level[3], d.level[4], rate);
        assert_true(fabs(rate - 0.05) < 0.003);
        /* the first look spends alpha(t_1), within the simulation's error */
        assert_true(fabs((double)first[0] / (double)sims - d.spent[0]) < 0.0025);
        /* every look is stricter than a single test at alpha */
        for (size_t k = 0; k < d.nlooks; k++)
            assert_true(d.level[k] < 0.05);
    }
}

/* Runs one sequence with process CV cv and true ratio `ratio` through the
 * design; returns the decision and the processes a side it took. With
 * `naive`, every look tests at the fixed alpha instead (what must not be
 * done). */
static enum seqtest_decision run_sequence(const struct seqtest_design *d, uint64_t *seed, double cv, double ratio,
                                          double noise, int naive, size_t *took)
{
    double la[SEQTEST_MAX_CAP], lb[SEQTEST_MAX_CAP];
    for (size_t i = 0; i < d->cap; i++) {
        double drift = 0.3 * rng_normal(seed); /* the pair's shared machine state: cancels in the pairing */
        la[i] = drift + cv * rng_normal(seed);
        lb[i] = drift + log(ratio) + cv * rng_normal(seed);
    }
    for (size_t k = 0; k < d->nlooks; k++) {
        struct seqtest_result r;
        if (naive) {
            struct tdist_test tt;
            assert_int_equal(tdist_test_logs(la, d->n[k], lb, d->n[k], 1, 0.95, &tt), 0);
            if (tt.p < d->alpha) {
                *took = d->n[k];
                return tt.diff > 0 ? SEQTEST_SLOWER : SEQTEST_FASTER;
            }
            continue;
        }
        assert_int_equal(seqtest_look(&r, d, la, lb, d->n[k], noise), 0);
        if (r.decision != SEQTEST_CONTINUE) {
            *took = r.n;
            return r.decision;
        }
    }
    *took = d->cap;
    return SEQTEST_UNDECIDED;
}

/* 10,000 A/A sequences per setting. Tolerance: the nominal 5% plus three
 * binomial standard errors (sqrt(0.05 * 0.95 / 10000) = 0.0022): at most
 * 5.65% false alarms. With noise 0 the rule is the bare sequential t-test;
 * with compare's 2% floor it can only be stricter. */
static void test_aa_false_alarms_within_nominal(void **state)
{
    (void)state;
    const struct seqtest_design *d = defaults();
    const double cvs[] = {0.02, 0.10}, noises[] = {0.0, 0.02};
    for (size_t c = 0; c < 2; c++)
        for (size_t z = 0; z < 2; z++) {
            uint64_t seed = 1000 + c * 10 + z;
            size_t alarms = 0, naive = 0, same = 0, sims = 10000, took;
            for (size_t s = 0; s < sims; s++) {
                enum seqtest_decision v = run_sequence(d, &seed, cvs[c], 1.0, noises[z], 0, &took);
                alarms += v == SEQTEST_SLOWER || v == SEQTEST_FASTER;
                same += v == SEQTEST_SAME;
            }
            seed = 1000 + c * 10 + z;
            for (size_t s = 0; s < sims; s++) {
                enum seqtest_decision v = run_sequence(d, &seed, cvs[c], 1.0, noises[z], 1, &took);
                naive += v == SEQTEST_SLOWER || v == SEQTEST_FASTER;
            }
            double rate = (double)alarms / (double)sims, nrate = (double)naive / (double)sims;
            printf("# A/A cv %.0f%% noise %.0f%%: false alarms %.4f (sequential), %.4f (fixed alpha at every look); "
                   "same %zu\n", cvs[c] * 100, noises[z] * 100, rate, nrate, same);
            assert_true(rate <= 0.0565);
            if (noises[z] == 0.0) {
                assert_true(rate >= 0.03); /* calibrated, not merely conservative */
                assert_true(nrate > 0.08);  /* what repeated testing at a fixed alpha would give */
            }
        }
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* +25% at a process CV of 10% (this machine's scatter is 8-13%): found
 * slower, never faster, and it stops early: the median is below the cap. */
static void test_large_change_stops_early(void **state)
{
    (void)state;
    const struct seqtest_design *d = defaults();
    uint64_t seed = 7;
    size_t sims = 2000, slower = 0, wrong = 0, took[2000];
    for (size_t s = 0; s < sims; s++) {
        enum seqtest_decision v = run_sequence(d, &seed, 0.10, 1.25, 0.02, 0, &took[s]);
        slower += v == SEQTEST_SLOWER;
        wrong += v == SEQTEST_FASTER || v == SEQTEST_SAME;
    }
    qsort(took, sims, sizeof(*took), cmp_size);
    double mean = 0;
    for (size_t s = 0; s < sims; s++)
        mean += (double)took[s] / (double)sims;
    printf("# +25%%, cv 10%%: slower %zu of %zu, wrong %zu, processes a side: median %zu, mean %.2f (cap %d)\n",
           slower, sims, wrong, took[sims / 2], mean, SEQTEST_CAP);
    assert_true(slower >= sims * 95 / 100);
    assert_int_equal(wrong, 0);
    assert_true(took[sims / 2] < SEQTEST_CAP);
    assert_true(mean < 0.75 * SEQTEST_CAP);
}

/* A change far inside the smallest effect of interest, at low noise, stops
 * as `same` (equivalence), before the cap. */
static void test_no_change_stops_as_same(void **state)
{
    (void)state;
    const struct seqtest_design *d = defaults();
    uint64_t seed = 11;
    size_t same = 0, early = 0, took;
    for (size_t s = 0; s < 1000; s++) {
        enum seqtest_decision v = run_sequence(d, &seed, 0.01, 1.0, 0.02, 0, &took);
        same += v == SEQTEST_SAME;
        early += v == SEQTEST_SAME && took < SEQTEST_CAP;
    }
    printf("# A/A cv 1%%: same %zu of 1000, %zu before the cap\n", same, early);
    assert_true(same >= 950);
    assert_true(early >= 900);
}

static void test_design_refuses_bad_input(void **state)
{
    (void)state;
    struct seqtest_design d;
    assert_true(seqtest_design(&d, 2, 2, 12, 0.05, 0.05, SEQTEST_POCOCK) < 0);  /* first too small */
    assert_true(seqtest_design(&d, 8, 2, 6, 0.05, 0.05, SEQTEST_POCOCK) < 0);   /* cap below first */
    assert_true(seqtest_design(&d, 4, 0, 12, 0.05, 0.05, SEQTEST_POCOCK) < 0);  /* no step */
    assert_true(seqtest_design(&d, 4, 1, 900, 0.05, 0.05, SEQTEST_POCOCK) < 0); /* too many looks */
    assert_true(seqtest_design(&d, 4, 2, 12, 0.7, 0.05, SEQTEST_POCOCK) < 0);
    assert_int_equal(seqtest_design(&d, 5, 3, 12, 0.05, 0.05, SEQTEST_POCOCK), 0);
    assert_int_equal(d.nlooks, 4); /* 5, 8, 11, 12 */
    assert_int_equal(d.n[3], 12);
    assert_int_equal(seqtest_look_index(&d, 11), 2);
    assert_int_equal(seqtest_look_index(&d, 10), -1);
    double la[7] = {0}, lb[7] = {0};
    struct seqtest_result r;
    assert_true(seqtest_look(&r, &d, la, lb, 7, 0.02) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boundaries_spend_alpha),     cmocka_unit_test(test_aa_false_alarms_within_nominal),
        cmocka_unit_test(test_large_change_stops_early),   cmocka_unit_test(test_no_change_stops_as_same),
        cmocka_unit_test(test_design_refuses_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
