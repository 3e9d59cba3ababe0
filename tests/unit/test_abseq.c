/*
 * test_abseq.c - run --ab's sequential stopping (run/abseq.h) on synthetic
 * processes, deterministically: a cell whose B is 50% slower stops as
 * slower at the first look and its later processes are not needed; an
 * unchanged quiet cell stops as same; a failed process stops its cell; a
 * noisy unchanged cell runs to the cap. (test_seqtest.c checks the rule's
 * error rates; test_ab_sequential.sh the real run.)
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan/matrix.h"
#include "run/abseq.h"
#include "stats/seqtest.h"
#include "store/result.h"

static const char *const models[] = {"slow", "quiet", "broken", "noisy"};
#define NCELLS 4

/* The interleaved plan: repeat-major, each cell's A then B (the order does
 * not matter to the rule). */
static void make_plan(struct matrix *m, unsigned char *arm, size_t cap)
{
    for (size_t r = 1; r <= cap; r++)
        for (size_t k = 0; k < NCELLS; k++)
            for (int b = 0; b < 2; b++) {
                char key[64];
                if (r == 1)
                    snprintf(key, sizeof(key), "%s/fit/b1/numpy", models[k]);
                else
                    snprintf(key, sizeof(key), "%s/fit/b1/numpy#r%zu", models[k], r);
                struct cell c = {.id = (int)m->ncells + 1, .key = key, .model = (char *)models[k],
                                 .task = (char *)"fit", .backend = (char *)"numpy", .size = (char *)"tiny",
                                 .precision = (char *)"float32", .env = (char *)"base", .batch = 1, .steps = 4,
                                 .repeat = (int)r};
                arm[m->ncells] = (unsigned char)b;
                assert_int_equal(matrix_add(m, &c), 0);
            }
}

/* What a process of model k, arm b, repeat r measured (ms per step). */
static double process_ms(size_t k, int b, size_t r)
{
    double wobble = 1.0 + 0.004 * (double)((r * 7 + (size_t)b * 3) % 5); /* under 2% */
    switch (k) {
    case 0: return 10.0 * wobble * (b ? 1.5 : 1.0);                        /* B 50% slower */
    case 1: return 20.0 * wobble;                                           /* unchanged, quiet */
    case 2: return 5.0 * wobble;                                            /* B's 2nd process fails */
    default: return 8.0 * (1.0 + 0.5 * (double)(((r * 5 + (size_t)b) % 4)) - (b ? 0.0 : 0.2)); /* noisy */
    }
}

static void test_stops_and_skips(void **state)
{
    (void)state;
    struct seqtest_design d;
    assert_int_equal(seqtest_design(&d, 4, 2, 8, 0.05, 0.05, SEQTEST_POCOCK), 0);
    struct matrix m = {0};
    unsigned char arm[2 * NCELLS * 8];
    make_plan(&m, arm, 8);
    struct abseq *q = abseq_new(&m, arm, &d, 0.02);
    size_t ran[NCELLS] = {0};
    for (size_t i = 0; i < m.ncells; i++) {
        size_t k = (i / 2) % NCELLS;
        if (!abseq_needed(q, i))
            continue;
        ran[k]++;
        struct result r;
        memset(&r, 0, sizeof(r));
        const struct cell *c = &m.cells[i];
        if (k == 2 && arm[i] && c->repeat == 2) {
            r.status = STATUS_ERROR;
        } else {
            r.status = STATUS_OK;
            double ms = process_ms(k, arm[i], (size_t)c->repeat);
            for (int s = 0; s < 4; s++)
                assert_int_equal(result_add_sample(&r, 0, (int64_t)(ms * 1e6)), 0);
        }
        assert_int_equal(abseq_record(q, i, &r), 0);
        result_free(&r);
    }
    /* processes run, both arms together */
    assert_int_equal(ran[0], 8);  /* slower at the first look: 4 a side */
    assert_int_equal(ran[1], 8);  /* same at the first look */
    assert_int_equal(ran[2], 4);  /* A1 B1 A2 B2(error): stopped */
    assert_int_equal(ran[3], 16); /* undecided: to the cap, 8 a side */
    abseq_free(q);
    matrix_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stops_and_skips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
