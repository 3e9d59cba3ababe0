/*
 * test_methods.c - the two methods side by side (gen/report/methods.c) on
 * a run built in memory: which positions pair up, each side's pooled mean,
 * the published / corrected ratio (pooled means with one repeat a side,
 * geometric means of the per-repeat means with more), a side with no steps,
 * and the per-cell table of method.* facts that differ.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc.h"
#include "report/methods.h"
#include "report/rctx.h"
#include "report/tables.h"
#include "store/rundata.h"

#define NCELLS 9

static int64_t ms_ns(double ms)
{
    return (int64_t)llround(ms * 1e6);
}

/* One cell of the in-memory run; times in ms (n of them), status ok unless failed. */
static void cell(struct rd_cell *c, const char *key, const char *task, const char *method, int failed,
                 const double *ms, size_t n)
{
    memset(c, 0, sizeof(*c));
    c->cell.key = (char *)key;
    c->cell.model = "m";
    c->cell.task = (char *)task;
    c->cell.backend = "numpy";
    c->cell.batch = 4;
    c->cell.method = (char *)method;
    c->result.status = failed ? STATUS_ERROR : STATUS_OK;
    c->result.timed_ns = calloc(n + 1, sizeof(*c->result.timed_ns));
    assert_non_null(c->result.timed_ns);
    for (size_t i = 0; i < n; i++)
        c->result.timed_ns[i] = ms_ns(ms[i]);
    c->result.ntimed = n;
    if (!failed) {
        kvlist_add(&c->result.facts, "method", method);
        kvlist_add(&c->result.facts, "method.warmup", strcmp(method, "published") ? "1" : "2");
        kvlist_add(&c->result.facts, "method.sync", "none");
        if (!strcmp(method, "published"))
            kvlist_add(&c->result.facts, "method_source.warmup", "benchmark/torch_utils.py:63-65");
    }
}

struct fixture {
    struct rd_cell cells[NCELLS];
    struct rundata rd;
    struct rctx x;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    struct rd_cell *c = f->cells;
    /* fit: one repeat a side, 3 ms against 1 ms */
    cell(&c[0], "m/fit/b4/numpy@published", "fit", "published", 0, (double[]){2, 4}, 2);
    cell(&c[1], "m/fit/b4/numpy@corrected", "fit", "corrected", 0, (double[]){1, 1, 1}, 3);
    /* predict: two repeats a side, per-repeat means 2 and 8 against 1 and 1 */
    cell(&c[2], "m/predict/b4/numpy@published#r1", "predict", "published", 0, (double[]){2}, 1);
    cell(&c[3], "m/predict/b4/numpy@corrected#r1", "predict", "corrected", 0, (double[]){1}, 1);
    cell(&c[4], "m/predict/b4/numpy@published#r2", "predict", "published", 0, (double[]){8}, 1);
    cell(&c[5], "m/predict/b4/numpy@corrected#r2", "predict", "corrected", 0, (double[]){1}, 1);
    /* generate: the corrected side failed */
    cell(&c[6], "m/generate/b4/numpy@published", "generate", "published", 0, (double[]){5}, 1);
    cell(&c[7], "m/generate/b4/numpy@corrected", "generate", "corrected", 1, NULL, 0);
    /* a position under one method only: no pair */
    cell(&c[8], "m/train/b4/numpy", "train", "published", 0, (double[]){5}, 1);
    f->rd.cells = f->cells;
    f->rd.ncells = NCELLS;
    f->x.rd = &f->rd;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    for (size_t i = 0; i < NCELLS; i++) {
        free(f->cells[i].result.timed_ns);
        kvlist_free(&f->cells[i].result.facts);
    }
    free(f);
    return 0;
}

static void test_pairs(void **state)
{
    struct fixture *f = *state;
    struct methods_pair *p = NULL;
    size_t n = 0;
    assert_int_equal(methods_pairs(&f->rd, &p, &n), 0);
    assert_int_equal(n, 3);

    assert_string_equal(p[0].first->cell.key, "m/fit/b4/numpy@published");
    assert_ptr_equal(p[0].pub, &f->cells[0]);
    assert_ptr_equal(p[0].cor, &f->cells[1]);
    assert_int_equal(p[0].repeats_pub, 1);
    assert_int_equal(p[0].repeats_cor, 1);
    assert_true(fabs(p[0].pub_ms - 3.0) < 1e-9 && fabs(p[0].cor_ms - 1.0) < 1e-9);
    assert_true(p[0].valid);
    assert_true(fabs(p[0].ratio - 3.0) < 1e-9);
    assert_true(p[0].ci_lo <= p[0].ratio && p[0].ratio <= p[0].ci_hi);

    /* two repeats a side: the pooled mean of every step, the ratio of the
     * geometric means of the per-repeat means (sqrt(2 x 8) / 1 = 4) */
    assert_string_equal(p[1].first->cell.task, "predict");
    assert_int_equal(p[1].repeats_pub, 2);
    assert_int_equal(p[1].repeats_cor, 2);
    assert_true(fabs(p[1].pub_ms - 5.0) < 1e-9 && fabs(p[1].cor_ms - 1.0) < 1e-9);
    assert_true(p[1].valid);
    assert_true(fabs(p[1].ratio - 4.0) < 1e-9);

    /* a failed side: no mean, no ratio */
    assert_string_equal(p[2].first->cell.task, "generate");
    assert_int_equal(p[2].repeats_pub, 1);
    assert_int_equal(p[2].repeats_cor, 0);
    assert_ptr_equal(p[2].cor, &f->cells[7]);
    assert_true(isnan(p[2].cor_ms));
    assert_false(p[2].valid);
    assert_true(isnan(p[2].ratio));
    free(p);
}

static void test_side_table(void **state)
{
    struct fixture *f = *state;
    struct table t = {0};
    assert_int_equal(methods_side_table(&f->x, &t), 0);
    assert_int_equal(t.nrows, 3);
    assert_int_equal(t.ncols, 5);
    assert_string_equal(t.cells[0].text, "m/fit/b4/numpy");
    assert_string_equal(t.cells[3].text, "3.00x");
    assert_string_equal(t.cells[2 * 5 + 2].text, "NA (error)");
    assert_string_equal(t.cells[2 * 5 + 3].text, "NA");
    table_free(&t);
}

static void test_diff_table(void **state)
{
    struct fixture *f = *state;
    struct table t = {0};
    assert_int_equal(methods_diff_table(&f->x, &t), 0);
    /* fit and predict: method.warmup differs (method.sync does not); generate: no facts on one side */
    assert_int_equal(t.nrows, 3);
    assert_string_equal(t.cells[0 * 5 + 1].text, "warmup");
    assert_string_equal(t.cells[0 * 5 + 2].text, "2");
    assert_string_equal(t.cells[0 * 5 + 3].text, "1");
    assert_string_equal(t.cells[0 * 5 + 4].text, "benchmark/torch_utils.py:63-65");
    assert_string_equal(t.cells[2 * 5 + 1].text, "no facts to compare");
    assert_string_equal(t.cells[2 * 5 + 3].text, "NA (error)");
    table_free(&t);
}

/* The sentence over the side-by-side table counts the pairs where both
 * methods produced a number, and says how many planned pairs did not. */
static const char *section_sentence(struct doc *d)
{
    for (size_t i = 0; i + 1 < d->n; i++)
        if (d->b[i].text && strcmp(d->b[i].text, "Published vs corrected, side by side") == 0)
            return d->b[i + 1].text;
    return NULL;
}

static void test_section_counts_pairs_that_ran(void **state)
{
    struct fixture *f = *state;
    struct doc d;
    doc_init(&d, "t", NULL, NULL, 0);
    methods_section(&d, &f->x);
    assert_int_equal(doc_error(&d), 0);
    const char *s = section_sentence(&d);
    assert_non_null(s);
    assert_true(strncmp(s, "2 cells ran under both methods (of 3 planned under both; 1 has no result under one "
                           "method or both, NA below): published, ", 121) == 0);
    doc_free(&d);

    /* the generate cell's corrected side ran after all: every planned pair counts */
    free(f->cells[7].result.timed_ns);
    cell(&f->cells[7], "m/generate/b4/numpy@corrected", "generate", "corrected", 0, (double[]){4}, 1);
    doc_init(&d, "t", NULL, NULL, 0);
    methods_section(&d, &f->x);
    s = section_sentence(&d);
    assert_non_null(s);
    assert_true(strncmp(s, "3 cells ran under both methods: published, ", 43) == 0);
    doc_free(&d);
}

/* The published window (docs/METHOD.md): (window.end - window.begin) over
 * window.calls, in ms, as the original divided it; nothing without all three
 * or with a window that ends before it begins. */
static void test_window_ms(void **state)
{
    (void)state;
    struct rd_cell c;
    cell(&c, "bert/predict/b2/keras3-jax", "predict", "published", 0, (double[]){3}, 1);
    assert_true(isnan(methods_window_ms(&c)));
    kvlist_add(&c.result.phases, "window.begin", "1000000000");
    kvlist_add(&c.result.phases, "window.end", "1250000000");
    assert_true(isnan(methods_window_ms(&c))); /* no window.calls */
    kvlist_add(&c.result.facts, "window.calls", "100");
    assert_true(fabs(methods_window_ms(&c) - 2.5) < 1e-12);
    kvlist_free(&c.result.facts);
    kvlist_add(&c.result.facts, "window.calls", "0");
    assert_true(isnan(methods_window_ms(&c)));
    kvlist_free(&c.result.phases);
    kvlist_add(&c.result.phases, "window.begin", "9");
    kvlist_add(&c.result.phases, "window.end", "5");
    kvlist_add(&c.result.facts, "window.calls", "1");
    assert_true(isnan(methods_window_ms(&c)));
    kvlist_free(&c.result.phases);
    kvlist_free(&c.result.facts);
    free(c.result.timed_ns);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pairs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_side_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_diff_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_section_counts_pairs_that_ran, setup, teardown),
        cmocka_unit_test(test_window_ms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
