/*
 * test_matrix.c - spec -> plan expansion: order, count, inherited settings,
 * warm-up precedence, repeats, --only filters, keys and their file names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/catalog.h"
#include "base/error.h"
#include "plan/matrix.h"
#include "plan/status.h"
#include "plan/catalog.h"
#include "plan/spec.h"

static struct spec *parse(const char *yaml)
{
    struct spec *s = NULL;
    int rc = spec_parse(&s, "/virtual/test.yaml", yaml, strlen(yaml));
    if (rc != 0)
        fail_msg("spec_parse: %s", error_last());
    return s;
}

/* Three rows over three backends; the second row runs on two of them. */
static const char *const three_rows =
    "name: order\n"
    "backends: [numpy, torch-eager, keras3-jax]\n"
    "rows:\n"
    "  - {model: bert, task: fit, batch: 8}\n"
    "  - {model: sam, task: predict, batch: 1, backends: [keras3-jax, numpy]}\n"
    "  - {model: gemma, task: generate, batch: 2}\n";

static void test_order_and_count(void **state)
{
    (void)state;
    static const char *const want[] = {
        "bert/fit/b8/numpy",         "bert/fit/b8/torch-eager",      "bert/fit/b8/keras3-jax",
        "sam/predict/b1/numpy",      "sam/predict/b1/keras3-jax",    "gemma/generate/b2/numpy",
        "gemma/generate/b2/torch-eager", "gemma/generate/b2/keras3-jax",
    };
    struct spec *s = parse(three_rows);
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.ncells, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < m.ncells; i++) {
        const struct cell *c = &m.cells[i];
        assert_int_equal(c->id, (int)i + 1);
        assert_string_equal(c->key, want[i]);
        assert_int_equal(c->repeat, 1);
        assert_null(c->workload);
    }
    /* the row's backend list filters but does not reorder: spec order wins */
    assert_string_equal(m.cells[3].backend, "numpy");
    assert_string_equal(m.cells[4].backend, "keras3-jax");
    assert_string_equal(m.cells[0].model, "bert");
    assert_string_equal(m.cells[0].task, "fit");
    assert_int_equal(m.cells[0].batch, 8);
    matrix_free(&m);
    assert_null(m.cells);
    assert_int_equal(m.ncells, 0);
    spec_free(s);
}

/* row > spec per-backend > catalog default (torch-compiled: 2) > spec. */
static void test_warmup_precedence(void **state)
{
    (void)state;
    const struct catalog_backend *tc = catalog_backend_find("torch-compiled");
    assert_non_null(tc);
    assert_int_equal(tc->default_warmup, 2);

    struct spec *s = parse("name: w\n"
                           "warmup: {default: 3, keras3-jax: 5, keras3-torch: 0}\n"
                           "backends: [torch-eager, torch-compiled, keras3-jax, keras3-torch]\n"
                           "rows:\n"
                           "  - {model: bert, task: fit, batch: 1, warmup: 7}\n"
                           "  - {model: bert, task: predict, batch: 1}\n");
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.ncells, 8);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(m.cells[i].warmup, 7); /* row wins everywhere, even over the catalog */
    assert_string_equal(m.cells[4].backend, "torch-eager");
    assert_int_equal(m.cells[4].warmup, 3); /* spec (the map's default) */
    assert_string_equal(m.cells[5].backend, "torch-compiled");
    assert_int_equal(m.cells[5].warmup, 2); /* catalog default beats the spec's */
    assert_string_equal(m.cells[6].backend, "keras3-jax");
    assert_int_equal(m.cells[6].warmup, 5); /* per-backend */
    assert_string_equal(m.cells[7].backend, "keras3-torch");
    assert_int_equal(m.cells[7].warmup, 0); /* per-backend 0 is a value, not "unset" */
    matrix_free(&m);
    spec_free(s);

    /* A per-backend value beats the catalog default; a plain warmup does not. */
    s = parse("name: w\nwarmup: {torch-compiled: 4}\nbackends: [torch-compiled, numpy]\n"
              "rows: [{model: bert, task: fit, batch: 1}]\n");
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.cells[0].warmup, 4);
    assert_int_equal(m.cells[1].warmup, 1);
    matrix_free(&m);
    spec_free(s);

    s = parse("name: w\nwarmup: 9\nbackends: [torch-compiled, numpy]\n"
              "rows: [{model: bert, task: fit, batch: 1}, {model: sam, task: fit, batch: 1, warmup: 0}]\n");
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.cells[0].warmup, 2);
    assert_int_equal(m.cells[1].warmup, 9);
    assert_int_equal(m.cells[2].warmup, 0); /* row 0 beats the catalog's 2 */
    assert_int_equal(m.cells[3].warmup, 0);
    matrix_free(&m);
    spec_free(s);
}

/* A cell the plan must hold: its key, method and warm-up steps. */
struct want_cell {
    const char *key, *method;
    int warmup;
};

/* Checks each wanted cell's method and warm-up. in_order: the plan holds
 * exactly these cells, in this order; else each is looked up by key. */
static void expect_cells(const struct matrix *m, const struct want_cell *want, size_t n, int in_order)
{
    if (in_order)
        assert_int_equal(m->ncells, n);
    for (size_t i = 0; i < n; i++) {
        const struct cell *c = NULL;
        if (in_order)
            c = &m->cells[i];
        else
            for (size_t k = 0; k < m->ncells; k++)
                if (strcmp(m->cells[k].key, want[i].key) == 0)
                    c = &m->cells[k];
        assert_non_null(c);
        if (strcmp(c->key, want[i].key) || strcmp(c->method, want[i].method) || c->warmup != want[i].warmup)
            fail_msg("cell %zu: %s %s warmup %d, want %s %s %d", i, c->key, c->method, c->warmup, want[i].key,
                     want[i].method, want[i].warmup);
    }
}

/* method: row, then the spec's per-backend map, then the spec's (default
 * corrected); published gives native PyTorch 2 warm-up steps, as the
 * original's scripts ran, unless the spec says otherwise. */
static void test_method_precedence(void **state)
{
    (void)state;
    struct spec *s = parse("name: m\n"
                           "backends: [torch-eager, torch-compiled, keras3-jax, numpy]\n"
                           "method: {default: published, numpy: corrected}\n"
                           "warmup: {keras3-jax: 3}\n"
                           "rows:\n"
                           "  - {model: bert, task: fit, batch: 8}\n"
                           "  - {model: bert, task: predict, batch: 8, method: corrected}\n"
                           "  - {model: sam, task: fit, batch: 1, method: published, warmup: 5}\n");
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    static const struct want_cell want[] = {
        {"bert/fit/b8/torch-eager", "published", 2},     {"bert/fit/b8/torch-compiled", "published", 2},
        {"bert/fit/b8/keras3-jax", "published", 3},      {"bert/fit/b8/numpy", "corrected", 1},
        {"bert/predict/b8/torch-eager", "corrected", 1}, {"bert/predict/b8/torch-compiled", "corrected", 2},
        {"bert/predict/b8/keras3-jax", "corrected", 3},  {"bert/predict/b8/numpy", "corrected", 1},
        {"sam/fit/b1/torch-eager", "published", 5},      {"sam/fit/b1/numpy", "published", 5},
    };
    expect_cells(&m, want, sizeof(want) / sizeof(want[0]), 0);
    matrix_free(&m);
    spec_free(s);

    /* No key: corrected everywhere; --only method= filters on it. */
    s = parse("name: d\nbackends: [torch-eager, numpy]\nrows:\n  - {model: bert, task: fit, batch: 8}\n"
              "  - {model: sam, task: fit, batch: 1, method: published}\n");
    assert_int_equal(matrix_expand(&m, s, "method=published"), 0);
    assert_int_equal(m.ncells, 2);
    assert_string_equal(m.cells[0].key, "sam/fit/b1/torch-eager");
    assert_int_equal(m.cells[0].warmup, 2);
    matrix_free(&m);
    assert_int_equal(matrix_expand(&m, s, "method=corrected"), 0);
    assert_int_equal(m.ncells, 2);
    assert_string_equal(m.cells[0].method, "corrected");
    assert_int_equal(m.cells[0].warmup, 1);
    matrix_free(&m);
    spec_free(s);
}

/* method: [published, corrected] runs each cell under both, adjacent, in the
 * listed order, keys "...@<method>"; a row or backend may pick one or
 * reverse the order; --only key= without "@" names both. */
static void test_method_both(void **state)
{
    (void)state;
    struct spec *s = parse("name: b\n"
                           "backends: [torch-eager, numpy]\n"
                           "method: {default: [published, corrected], numpy: corrected}\n"
                           "repeats: 2\n"
                           "rows:\n"
                           "  - {model: bert, task: fit, batch: 8}\n"
                           "  - {model: sam, task: fit, batch: 1, method: [corrected, published], "
                           "backends: [numpy]}\n");
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    static const struct want_cell want[] = {
        {"bert/fit/b8/torch-eager@published", "published", 2}, {"bert/fit/b8/torch-eager@corrected", "corrected", 1},
        {"bert/fit/b8/numpy", "corrected", 1},                 {"sam/fit/b1/numpy@corrected", "corrected", 1},
        {"sam/fit/b1/numpy@published", "published", 1},     {"bert/fit/b8/torch-eager@published#r2", "published", 2},
        {"bert/fit/b8/torch-eager@corrected#r2", "corrected", 1}, {"bert/fit/b8/numpy#r2", "corrected", 1},
        {"sam/fit/b1/numpy@corrected#r2", "corrected", 1},     {"sam/fit/b1/numpy@published#r2", "published", 1},
    };
    expect_cells(&m, want, sizeof(want) / sizeof(want[0]), 1);
    matrix_free(&m);
    assert_int_equal(matrix_expand(&m, s, "key=bert/fit/b8/torch-eager"), 0);
    assert_int_equal(m.ncells, 4); /* both methods, both repeats */
    matrix_free(&m);
    assert_int_equal(matrix_expand(&m, s, "key=bert/fit/b8/torch-eager@corrected#r2"), 0);
    assert_int_equal(m.ncells, 1);
    assert_string_equal(m.cells[0].key, "bert/fit/b8/torch-eager@corrected#r2");
    matrix_free(&m);
    assert_int_equal(matrix_expand(&m, s, "method=published"), 0);
    assert_int_equal(m.ncells, 4);
    matrix_free(&m);
    spec_free(s);
}

static void test_inherited_settings(void **state)
{
    (void)state;
    struct spec *s = parse("name: inherit\nsize: published\nprecision: bfloat16\nsteps: 50\nseed: 42\n"
                           "timeout: 30\nmemory_limit: 2GiB\n"
                           "backends: [torch-eager, keras3-jax, numpy]\n"
                           "envs: {keras3-jax: jax-cuda}\n"
                           "rows:\n"
                           "  - {model: bert, task: fit, batch: 4}\n"
                           "  - {model: sam, task: predict, batch: 2, steps: 5, precision: float16, "
                           "timeout: 2.5}\n");
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.ncells, 6);
    for (size_t i = 0; i < m.ncells; i++) {
        const struct cell *c = &m.cells[i];
        bool row2 = i >= 3;
        assert_string_equal(c->size, "published");
        assert_true(c->seed == 42);
        assert_true(c->memory_limit == 2ull << 30);
        assert_int_equal(c->steps, row2 ? 5 : 50);
        assert_string_equal(c->precision, row2 ? "float16" : "bfloat16");
        assert_true(c->timeout == (row2 ? 2.5 : 30.0));
        /* owned copies, not the spec's strings */
        assert_ptr_not_equal(c->precision, row2 ? s->rows[1].precision : s->precision);
    }
    /* env: the spec's per-backend choice, else the catalog's */
    assert_string_equal(m.cells[0].env, catalog_backend_find("torch-eager")->env);
    assert_string_equal(m.cells[1].env, "jax-cuda");
    assert_string_equal(m.cells[2].env, catalog_backend_find("numpy")->env);
    matrix_free(&m);
    spec_free(s);
}

/* memory_limit 0 means 80% of physical memory, resolved here (never 0). */
static void test_memory_limit_auto(void **state)
{
    (void)state;
    uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    struct spec *s = parse("name: m\nbackends: [numpy]\nrows: [{model: mlp, task: fit, batch: 1}]\n");
    struct matrix m;
    assert_true(s->memory_limit == 0);
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_true(m.cells[0].memory_limit > 0);
    assert_true(m.cells[0].memory_limit == phys / 5 * 4);
    matrix_free(&m);
    spec_free(s);
}

static void test_workload_cells(void **state)
{
    (void)state;
    char dir[] = "/tmp/benchgen-test-matrix-XXXXXX";
    char wl[64], path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(wl, sizeof(wl), "%s/mine.py", dir);
    snprintf(path, sizeof(path), "%s/spec.yaml", dir);
    FILE *f = fopen(wl, "w");
    assert_non_null(f);
    fputs("pass\n", f);
    fclose(f);

    static const char *const yaml = "name: wl\nbackends: [numpy]\n"
                                    "rows: [{model: mine, task: predict, batch: 2, workload: mine.py}]\n";
    struct spec *s = NULL;
    struct matrix m;
    assert_int_equal(spec_parse(&s, path, yaml, strlen(yaml)), 0);
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.ncells, 1);
    assert_string_equal(m.cells[0].key, "mine/predict/b2/numpy");
    assert_string_equal(m.cells[0].workload, s->rows[0].workload);
    assert_ptr_not_equal(m.cells[0].workload, s->rows[0].workload);
    matrix_free(&m);
    spec_free(s);
    assert_int_equal(unlink(wl), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Repeats are the outer loop: the whole matrix once, then again. */
static void test_repeats(void **state)
{
    (void)state;
    static const char *const want[] = {
        "bert/fit/b1/numpy",       "bert/fit/b1/keras3-jax",    "sam/fit/b2/numpy",
        "sam/fit/b2/keras3-jax",   "bert/fit/b1/numpy#r2",      "bert/fit/b1/keras3-jax#r2",
        "sam/fit/b2/numpy#r2",     "sam/fit/b2/keras3-jax#r2",  "bert/fit/b1/numpy#r3",
        "bert/fit/b1/keras3-jax#r3", "sam/fit/b2/numpy#r3",     "sam/fit/b2/keras3-jax#r3",
    };
    struct spec *s = parse("name: r\nrepeats: 3\nbackends: [numpy, keras3-jax]\n"
                           "rows: [{model: bert, task: fit, batch: 1}, {model: sam, task: fit, batch: 2}]\n");
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.ncells, 12);
    for (size_t i = 0; i < m.ncells; i++) {
        assert_string_equal(m.cells[i].key, want[i]);
        assert_int_equal(m.cells[i].repeat, (int)(i / 4) + 1);
        assert_int_equal(m.cells[i].id, (int)i + 1);
    }
    matrix_free(&m);
    spec_free(s);
}

/* Every key is unique and ids run 1..n, across repeats and row filters. */
static void test_key_uniqueness(void **state)
{
    (void)state;
    struct spec *s = parse("name: u\nrepeats: 2\n"
                           "backends: [torch-eager, torch-compiled, keras2-tensorflow, keras3-tensorflow, "
                           "keras3-jax, keras3-torch, numpy]\n"
                           "rows:\n"
                           "  - {model: bert, task: fit, batch: 1}\n"
                           "  - {model: bert, task: fit, batch: 2}\n"
                           "  - {model: bert, task: predict, batch: 1}\n"
                           "  - {model: gemma, task: fit, batch: 1}\n"
                           "  - {model: gemma, task: generate, batch: 1, backends: [keras3-jax]}\n"
                           "  - {model: mistral, task: generate, batch: 1}\n"
                           "  - {model: sd, task: predict, batch: 1}\n"
                           "  - {model: sam, task: predict, batch: 1}\n");
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.ncells, 2 * (7 * 7 + 1));
    for (size_t i = 0; i < m.ncells; i++) {
        assert_int_equal(m.cells[i].id, (int)i + 1);
        for (size_t j = 0; j < i; j++)
            if (strcmp(m.cells[i].key, m.cells[j].key) == 0)
                fail_msg("duplicate key %s at %zu and %zu", m.cells[i].key, j, i);
    }
    matrix_free(&m);
    spec_free(s);
}

/* ---- --only -------------------------------------------------------------- */

static size_t expand_only(const struct spec *s, const char *only, const char *const *want, size_t nwant)
{
    struct matrix m;
    int rc = matrix_expand(&m, s, only);
    if (rc != 0)
        fail_msg("--only '%s': %d %s", only, rc, error_last());
    if (m.ncells != nwant)
        fail_msg("--only '%s': %zu cells, want %zu", only, m.ncells, nwant);
    for (size_t i = 0; i < m.ncells; i++) {
        assert_string_equal(m.cells[i].key, want[i]);
        assert_int_equal(m.cells[i].id, (int)i + 1); /* the plan is what runs: ids renumbered */
    }
    size_t n = m.ncells;
    matrix_free(&m);
    return n;
}

static void test_only_filters(void **state)
{
    (void)state;
    struct spec *s = parse("name: o\nrepeats: 2\nbackends: [numpy, torch-eager, keras3-jax]\n"
                           "envs: {keras3-jax: jaxenv}\n"
                           "rows:\n"
                           "  - {model: bert, task: fit, batch: 8}\n"
                           "  - {model: bert, task: predict, batch: 1}\n"
                           "  - {model: sam, task: predict, batch: 8}\n");

    static const char *const bert_numpy[] = {"bert/fit/b8/numpy", "bert/predict/b1/numpy",
                                             "bert/fit/b8/numpy#r2", "bert/predict/b1/numpy#r2"};
    expand_only(s, "model=bert,backend=numpy", bert_numpy, 4); /* different keys: AND */

    static const char *const two_backends[] = {
        "sam/predict/b8/numpy", "sam/predict/b8/keras3-jax", "sam/predict/b8/numpy#r2",
        "sam/predict/b8/keras3-jax#r2"};
    expand_only(s, "backend=numpy,model=sam,backend=keras3-jax", two_backends, 4); /* same key: OR */

    static const char *const b8_predict[] = {"sam/predict/b8/numpy", "sam/predict/b8/torch-eager",
                                             "sam/predict/b8/keras3-jax", "sam/predict/b8/numpy#r2",
                                             "sam/predict/b8/torch-eager#r2", "sam/predict/b8/keras3-jax#r2"};
    expand_only(s, "batch=8, task=predict", b8_predict, 6);

    static const char *const by_env[] = {"bert/predict/b1/keras3-jax", "bert/predict/b1/keras3-jax#r2"};
    expand_only(s, "env=jaxenv,model=bert,task=predict", by_env, 2);

    /* key without '#': every repeat of that cell; with it, exactly one. */
    static const char *const by_key[] = {"bert/fit/b8/torch-eager", "sam/predict/b8/numpy",
                                         "bert/fit/b8/torch-eager#r2"};
    expand_only(s, "key=bert/fit/b8/torch-eager,key=sam/predict/b8/numpy#r1", by_key, 3);
    static const char *const by_key2[] = {"bert/fit/b8/torch-eager", "bert/fit/b8/torch-eager#r2"};
    expand_only(s, "key=bert/fit/b8/torch-eager", by_key2, 2);
    static const char *const by_key3[] = {"bert/fit/b8/torch-eager#r2"};
    expand_only(s, "key=bert/fit/b8/torch-eager#r2", by_key3, 1);
    spec_free(s);
}

static void test_only_errors(void **state)
{
    (void)state;
    static const struct {
        const char *only, *fragment;
    } cases[] = {
        {"colour=red", "--only: unknown key 'colour' (keys: model, task, backend, batch, env, method, key)"},
        {"model=bert,size=tiny", "unknown key 'size'"},
        {"foo", "--only: expected KEY=VALUE, got 'foo'"},
        {"model=bert,", "expected KEY=VALUE"},
        {"", "expected KEY=VALUE"},
        {"model=", "--only: model= needs a value"},
        {"=bert", "unknown key ''"},
        {"batch=eight", "--only: batch must be a positive integer, got 'eight'"},
        {"batch=0", "batch must be a positive integer"},
        {"model=bret", "--only 'model=bret' matches none of the 2 cells of o"},
        {"model=bert,task=predict", "matches none"},     /* AND of two that each match */
        {"key=bert/fit/b8/numpy#r2", "matches none"},   /* no second repeat */
    };
    struct spec *s = parse("name: o\nbackends: [numpy, keras3-jax]\n"
                           "rows: [{model: bert, task: fit, batch: 8}]\n");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct matrix m = {(struct cell *)0x1, 99, 99};
        error_clear();
        int rc = matrix_expand(&m, s, cases[i].only);
        if (rc != BG_EUSAGE || !strstr(error_last(), cases[i].fragment))
            fail_msg("--only '%s': got %d '%s', want BG_EUSAGE '%s'", cases[i].only, rc, error_last(),
                     cases[i].fragment);
        assert_null(m.cells); /* nothing half-built comes back */
        assert_int_equal(m.ncells, 0);
    }
    spec_free(s);
}

/* ---- filter, add, file names ---------------------------------------------- */

static void test_filter_keeps_ids(void **state)
{
    (void)state;
    struct spec *s = parse(three_rows);
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.ncells, 8);
    unsigned char keep[8] = {0, 1, 0, 0, 1, 1, 0, 1};
    matrix_filter(&m, keep);
    assert_int_equal(m.ncells, 4);
    assert_int_equal(m.cells[0].id, 2);
    assert_string_equal(m.cells[0].key, "bert/fit/b8/torch-eager");
    assert_int_equal(m.cells[1].id, 5);
    assert_int_equal(m.cells[2].id, 6);
    assert_int_equal(m.cells[3].id, 8);
    assert_string_equal(m.cells[3].key, "gemma/generate/b2/keras3-jax");

    unsigned char none[4] = {0};
    matrix_filter(&m, none);
    assert_int_equal(m.ncells, 0);
    matrix_free(&m);
    spec_free(s);
}

static void test_add_deep_copy(void **state)
{
    (void)state;
    char key[] = "mine/fit/b3/numpy#r2", model[] = "mine", task[] = "fit", backend[] = "numpy";
    char size[] = "tiny", precision[] = "float32", env[] = "base", workload[] = "/abs/mine.py";
    struct cell c = {.id = 17, .key = key, .model = model, .task = task, .backend = backend, .size = size,
                     .precision = precision, .env = env, .workload = workload, .batch = 3, .steps = 10,
                     .warmup = 2, .repeat = 2, .seed = 5, .timeout = 1.5, .memory_limit = 1024};
    struct matrix m = {0};
    for (int i = 0; i < 100; i++) { /* enough to grow the array several times */
        c.id = i + 1;
        assert_int_equal(matrix_add(&m, &c), 0);
    }
    assert_int_equal(m.ncells, 100);
    memset(key, 'x', sizeof(key) - 1);
    memset(workload, 'x', sizeof(workload) - 1);
    for (size_t i = 0; i < m.ncells; i++) {
        const struct cell *d = &m.cells[i];
        assert_int_equal(d->id, (int)i + 1);
        assert_string_equal(d->key, "mine/fit/b3/numpy#r2");
        assert_string_equal(d->workload, "/abs/mine.py");
        assert_string_equal(d->env, "base");
        assert_int_equal(d->batch, 3);
        assert_int_equal(d->warmup, 2);
        assert_int_equal(d->repeat, 2);
        assert_true(d->seed == 5 && d->timeout == 1.5 && d->memory_limit == 1024);
    }
    /* NULL strings stay NULL (built-in workload) */
    c.workload = NULL;
    assert_int_equal(matrix_add(&m, &c), 0);
    assert_null(m.cells[100].workload);
    matrix_free(&m);
    matrix_free(&m); /* idempotent */
}

static void test_key_filename(void **state)
{
    (void)state;
    static const struct {
        const char *key, *want;
    } cases[] = {
        {"bert/fit/b32/keras3-jax", "bert_fit_b32_keras3-jax"},
        {"sam/predict/b1/torch-compiled#r2", "sam_predict_b1_torch-compiled_r2"},
        {"mine.v2/fit/b1/numpy#r10", "mine.v2_fit_b1_numpy_r10"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *f = matrix_key_filename(cases[i].key);
        assert_non_null(f);
        assert_string_equal(f, cases[i].want);
        free(f);
    }
}

/* Cluster resources: the row's, then the backend's, then the spec's, field by field. */
static void test_resources_precedence(void **state)
{
    (void)state;
    struct spec *s = parse("name: res\n"
                           "backends: [numpy, torch-eager]\n"
                           "resources: {partition: gpu, gpus: 1, mem: 16G, torch-eager: {time: \"1:00:00\", gpus: 2}}\n"
                           "rows:\n"
                           "  - {model: bert, task: fit, batch: 8, resources: {partition: big, mem: 80G}}\n"
                           "  - {model: sam, task: predict, batch: 1, resources: {gpus: 0}}\n");
    struct matrix m;
    assert_int_equal(matrix_expand(&m, s, NULL), 0);
    assert_int_equal(m.ncells, 4);
    const struct resources *r = &m.cells[0].res; /* bert numpy: row over spec */
    assert_string_equal(r->partition, "big");
    assert_string_equal(r->mem, "80G");
    assert_int_equal(r->gpus, 1);
    assert_null(r->time);
    r = &m.cells[1].res; /* bert torch-eager: row over backend over spec */
    assert_string_equal(r->partition, "big");
    assert_int_equal(r->gpus, 2);
    assert_string_equal(r->time, "1:00:00");
    r = &m.cells[3].res; /* sam torch-eager: the row's explicit 0 GPUs wins */
    assert_int_equal(r->gpus, RESOURCES_NO_GPU);
    assert_string_equal(r->partition, "gpu");
    /* a plan loaded back keeps them (matrix_add copies) */
    struct matrix copy = {0};
    assert_int_equal(matrix_add(&copy, &m.cells[1]), 0);
    assert_true(resources_equal(&copy.cells[0].res, &m.cells[1].res));
    matrix_free(&copy);
    matrix_free(&m);
    spec_free(s);
}

/* enum status and catalog_statuses name the same statuses in the same order. */
static void test_status_enum(void **state)
{
    (void)state;
    size_t n = 0;
    while (catalog_statuses[n])
        n++;
    assert_int_equal(n, STATUS_COUNT - 1);
    static const char *const want[] = {"", "ok", "error", "crash", "timeout", "oom", "unsupported", "skipped",
                                       "interrupted"};
    for (int s = STATUS_NONE; s < STATUS_COUNT; s++) {
        assert_string_equal(status_name((enum status)s), want[s]);
        assert_int_equal(status_parse(want[s]), s);
    }
    assert_int_equal(status_parse(NULL), STATUS_NONE);
    assert_int_equal(status_parse("eror"), -1);
    assert_string_equal(status_name(STATUS_COUNT), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resources_precedence),
        cmocka_unit_test(test_status_enum),
        cmocka_unit_test(test_order_and_count),
        cmocka_unit_test(test_warmup_precedence),
        cmocka_unit_test(test_method_precedence),
        cmocka_unit_test(test_method_both),
        cmocka_unit_test(test_inherited_settings),
        cmocka_unit_test(test_memory_limit_auto),
        cmocka_unit_test(test_workload_cells),
        cmocka_unit_test(test_repeats),
        cmocka_unit_test(test_key_uniqueness),
        cmocka_unit_test(test_only_filters),
        cmocka_unit_test(test_only_errors),
        cmocka_unit_test(test_filter_keeps_ids),
        cmocka_unit_test(test_add_deep_copy),
        cmocka_unit_test(test_key_filename),
    };
    return cmocka_run_group_tests_name("matrix", tests, NULL, NULL);
}
