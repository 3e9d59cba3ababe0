/*
 * test_store.c - run.db and its readers: store (create, record, resume,
 * crash safety, schema checks), rundata (loading everything back) and show
 * (text and "benchgen-run/1" JSON).
 *
 * Every test works in its own mkdtemp directory, removed afterwards.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "base/error.h"
#include "base/util.h"
#include "plan/matrix.h"
#include "store/result.h"
#include "store/rundata.h"
#include "cli/show.h"
#include "plan/spec.h"
#include "store/store.h"
#include "store/store_record.h"
#include "store/store_sql.h" /* the store's own connection, for tests of its internals */

#ifndef BENCHGEN_VERSION
#define BENCHGEN_VERSION "0.0.0"
#endif

static const char spec_text[] = "name: unit\nsize: tiny\nbackends: [keras3-jax, torch-eager]\n";

struct fixture {
    char tmp[64];
    char run[128];
    struct spec spec;
    struct matrix plan;
    struct kvlist run_env;
};

/* ---- fixture ------------------------------------------------------------ */

static void add_cell_(struct matrix *m, const char *key, const char *model, const char *task, int batch,
                      const char *backend, const char *workload, int repeat)
{
    struct cell c = {0};
    c.id = (int)m->ncells + 1;
    c.key = (char *)key;
    c.model = (char *)model;
    c.task = (char *)task;
    c.backend = (char *)backend;
    c.size = (char *)"tiny";
    c.precision = (char *)"float32";
    c.env = (char *)(strcmp(backend, "torch-eager") == 0 ? "torch" : "keras3-jax");
    c.workload = (char *)workload;
    c.method = (char *)(repeat == 1 ? "published" : "corrected");
    c.batch = batch;
    c.steps = 10;
    c.warmup = 2;
    c.repeat = repeat;
    c.seed = 0xfedcba9876543210ULL; /* above 2^63: must survive the signed SQLite column */
    c.timeout = 600.5;
    c.memory_limit = 8ULL << 30;
    assert_int_equal(matrix_add(m, &c), 0);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    if (!f)
        return -1;
    snprintf(f->tmp, sizeof(f->tmp), "/tmp/bg_test_store_XXXXXX");
    if (!mkdtemp(f->tmp))
        return -1;
    snprintf(f->run, sizeof(f->run), "%s/runs/unit", f->tmp);
    f->spec.path = (char *)"data/matrix/unit.yaml";
    f->spec.name = (char *)"unit";
    f->spec.description = (char *)"unit-test run";
    f->spec.size = (char *)"tiny";
    f->spec.precision = (char *)"float32";
    f->spec.seed = 42;
    f->spec.text = (char *)spec_text;
    sha256_hex(spec_text, strlen(spec_text), f->spec.sha256);
    add_cell_(&f->plan, "bert/fit/b2/keras3-jax", "bert", "fit", 2, "keras3-jax", NULL, 1);
    add_cell_(&f->plan, "bert/fit/b2/torch-eager", "bert", "fit", 2, "torch-eager", NULL, 1);
    add_cell_(&f->plan, "mine/predict/b1/keras3-jax#r2", "mine", "predict", 1, "keras3-jax", "/abs/mine.py",
              2);
    kvlist_add(&f->run_env, "host.cpu", "Test CPU");
    kvlist_add(&f->run_env, "os.kernel", "6.1");
    kvlist_add(&f->run_env, "gpu.count", "0");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    util_rm_rf(f->tmp);
    matrix_free(&f->plan);
    kvlist_free(&f->run_env);
    free(f);
    return 0;
}

/* A result of ntimed steps of (base + i) ms and nwarmup warm-ups of 1000 + i ms. */
static void make_result_(struct result *r, const char *status, size_t nwarmup, size_t ntimed, int64_t base_ms)
{
    memset(r, 0, sizeof(*r));
    assert_true(status_parse(status) > STATUS_NONE);
    r->status = (enum status)status_parse(status);
    for (size_t i = 0; i < nwarmup; i++)
        assert_int_equal(result_add_sample(r, 1, (1000 + (int64_t)i) * 1000000), 0);
    for (size_t i = 0; i < ntimed; i++)
        assert_int_equal(result_add_sample(r, 0, (base_ms + (int64_t)i) * 1000000), 0);
    memset(r->input_sha256, 'a', 64);
    r->input_sha256[64] = '\0';
    r->input_sha256[0] = '0';
    r->input_bytes = 4096;
    kvlist_add(&r->phases, "python_ready", "2000");
    kvlist_add(&r->phases, "model_built", "900000");
    kvlist_add(&r->phases, "first_step_done", "5000000");
    kvlist_add(&r->facts, "param_count", "110000000");
    kvlist_add(&r->facts, "jit_compile", "true");
    kvlist_add(&r->env, "python.version", "3.11.7");
    kvlist_add(&r->env, "pkg.jax", "0.4.30");
    r->started = 1764515000;
    r->finished = 1764515060;
    r->wall_s = 60.25;
    r->peak_rss = 123456789;
    r->exit_code = 0;
    r->term_signal = 0;
}

static struct store *create_(struct fixture *f)
{
    struct store *s = NULL;
    int err = store_create(&s, f->run, &f->spec, &f->plan, &f->run_env, NULL, "benchgen run unit.yaml", NULL);
    if (err)
        fail_msg("store_create: %s", error_last());
    return s;
}

static void record_(struct store *s, const struct cell *c, const char *status, size_t nwarmup, size_t ntimed,
                    int64_t base_ms)
{
    struct result r;
    make_result_(&r, status, nwarmup, ntimed, base_ms);
    int err = store_record(s, c, &r, "logs/x.log");
    result_free(&r);
    if (err)
        fail_msg("store_record: %s", error_last());
}

static struct rundata *load_(const char *dir)
{
    struct rundata *rd = NULL;
    int err = rundata_load(&rd, dir);
    if (err)
        fail_msg("rundata_load: %s", error_last());
    return rd;
}

static void assert_near_(double got, double want, double tol, const char *what)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}
#define assert_near(got, want, tol) assert_near_((got), (want), (tol), #got)

/* ---- store -------------------------------------------------------------- */

static void test_create_refuses_existing(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    char logs[256];
    snprintf(logs, sizeof(logs), "%s/logs", f->run);
    assert_true(util_is_dir(logs));
    assert_string_equal(store_dir(s), f->run);
    store_close(s);

    struct store *again = NULL;
    int err = store_create(&again, f->run, &f->spec, &f->plan, &f->run_env, NULL, "x", NULL);
    assert_int_equal(err, BG_EUSAGE);
    assert_null(again);
    assert_non_null(strstr(error_last(), "already holds a run"));
    assert_non_null(strstr(error_last(), "--resume"));

    /* The refusal left the stored run alone. */
    struct rundata *rd = load_(f->run);
    assert_int_equal(rd->ncells, 3);
    rundata_free(rd);
}

/* The files a run depends on (store/runinputs.h) go into run.db with the
 * plan and read back as stored: bytes, hash, size, kind, origin; a file
 * over the content cap keeps its hash only; a run without them reads back
 * none (the older runs' case is the same table absent, rundata treats both
 * as none). */
static void test_inputs_round_trip(void **state)
{
    struct fixture *f = *state;
    struct run_inputs in = {0};
    static const char stext[] = "name: unit\n", work[] = "def setup(c, d):\n    return lambda: None\n";
    char big[65];
    memset(big, 'a', 64);
    big[64] = '\0';
    assert_int_equal(run_inputs_add(&in, "inputs/work/w.py", "workload", "/x/work/w.py", work, strlen(work)), 0);
    assert_int_equal(run_inputs_add(&in, "inputs/specs/s.yaml", "spec", "/x/specs/s.yaml", stext,
                                    strlen(stext)), 0);
    assert_int_equal(run_inputs_add(&in, "inputs/specs/s.yaml", "spec", NULL, "other", 5), 0); /* kept: first */
    assert_int_equal(run_inputs_add_hash(&in, "inputs/work/huge.py", "module", "/x/work/huge.py", big, 1u << 30), 0);
    assert_int_equal(in.n, 3);
    run_inputs_sort(&in);
    struct store *s = NULL;
    if (store_create(&s, f->run, &f->spec, &f->plan, &f->run_env, &in, "benchgen run unit.yaml", NULL) < 0)
        fail_msg("store_create: %s", error_last());
    store_close(s);

    struct rundata *rd = load_(f->run);
    assert_int_equal(rd->inputs.n, 3);
    const struct run_input *w = run_inputs_find(&rd->inputs, "inputs/work/w.py");
    assert_non_null(w);
    assert_string_equal(w->kind, "workload");
    assert_string_equal(w->origin, "/x/work/w.py");
    assert_int_equal(w->size, strlen(work));
    assert_int_equal(w->len, strlen(work));
    assert_memory_equal(w->content, work, strlen(work));
    char hex[65];
    sha256_hex(work, strlen(work), hex);
    assert_string_equal(w->sha256, hex);
    const struct run_input *sp = run_inputs_find(&rd->inputs, "inputs/specs/s.yaml");
    assert_non_null(sp);
    assert_int_equal(sp->len, strlen(stext)); /* the first one added */
    const struct run_input *h = run_inputs_find(&rd->inputs, "inputs/work/huge.py");
    assert_non_null(h);
    assert_null(h->content);
    assert_string_equal(h->sha256, big);
    assert_true(h->size == 1u << 30);
    rundata_free(rd);
    run_inputs_free(&in);
}

static void test_one_writer(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f), *second = NULL;
    /* the creator holds the lock; a second writer is refused, naming it */
    assert_int_equal(store_open(&second, f->run, false), BG_EUSAGE);
    assert_null(second);
    char want[64];
    snprintf(want, sizeof(want), "in use by benchgen pid %ld on host", (long)getpid());
    assert_non_null(strstr(error_last(), want));
    /* readers take no lock */
    assert_int_equal(store_open(&second, f->run, true), 0);
    store_close(second);
    store_close(s);
    /* released on close */
    assert_int_equal(store_open(&second, f->run, false), 0);
    store_close(second);
}

static void test_record_and_reload(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    assert_int_equal(store_mark_started(s, 1764515000), 0);
    record_(s, &f->plan.cells[0], "ok", 2, 10, 10);
    assert_int_equal(store_mark_finished(s, 1764515100), 0);
    store_close(s);

    struct rundata *rd = load_(f->run);
    assert_string_equal(rd->dir, f->run);
    assert_string_equal(rd->name, "unit");
    assert_string_equal(rd->description, "unit-test run");
    assert_string_equal(rd->spec_path, "data/matrix/unit.yaml");
    assert_string_equal(rd->spec_sha256, f->spec.sha256);
    assert_string_equal(rd->spec_text, spec_text);
    assert_string_equal(rd->size, "tiny");
    assert_string_equal(rd->precision, "float32");
    assert_int_equal(rd->seed, 42);
    assert_int_equal(strlen(rd->created_utc), 20);
    assert_string_equal(rd->started_utc, "2025-11-30T15:03:20Z");
    assert_string_equal(rd->finished_utc, "2025-11-30T15:05:00Z");
    assert_string_equal(rd->command_line, "benchgen run unit.yaml");
    assert_string_equal(rd->benchgen_version, BENCHGEN_VERSION);
    assert_true(rd->git_commit[0] != '\0');
    /* Run-wide environment comes back sorted by key. */
    assert_int_equal(rd->env.n, 3);
    assert_string_equal(rd->env.items[0].key, "gpu.count");
    assert_string_equal(rd->env.items[1].key, "host.cpu");
    assert_string_equal(rd->env.items[1].value, "Test CPU");
    assert_string_equal(rd->env.items[2].key, "os.kernel");

    assert_int_equal(rd->ncells, 3);
    const struct rd_cell *c = &rd->cells[0];
    assert_int_equal(c->cell.id, 1);
    assert_string_equal(c->cell.key, "bert/fit/b2/keras3-jax");
    assert_string_equal(c->cell.model, "bert");
    assert_string_equal(c->cell.task, "fit");
    assert_string_equal(c->cell.backend, "keras3-jax");
    assert_string_equal(c->cell.env, "keras3-jax");
    assert_null(c->cell.workload);
    assert_int_equal(c->cell.batch, 2);
    assert_int_equal(c->cell.steps, 10);
    assert_int_equal(c->cell.warmup, 2);
    assert_true(c->cell.seed == 0xfedcba9876543210ULL);
    assert_near(c->cell.timeout, 600.5, 0);
    assert_true(c->cell.memory_limit == (int64_t)(8LL << 30));
    assert_int_equal(c->result.status, STATUS_OK);
    assert_null(c->result.detail);
    assert_int_equal(strlen(c->result.input_sha256), 64);
    assert_int_equal(c->result.input_bytes, 4096);
    /* Times come back as the time_t the worker recorded, and print as stored. */
    char buf[32];
    assert_int_equal(c->result.started, 1764515000);
    assert_int_equal(c->result.finished, 1764515060);
    assert_string_equal(util_utc_or_null(buf, c->result.started), "2025-11-30T15:03:20Z");
    assert_string_equal(util_utc_or_null(buf, c->result.finished), "2025-11-30T15:04:20Z");
    assert_null(util_utc_or_null(buf, 0));
    assert_string_equal(c->log_path, "logs/x.log");
    assert_near(c->result.wall_s, 60.25, 0);
    assert_int_equal(c->result.peak_rss, 123456789);
    assert_int_equal(c->result.exit_code, 0);
    assert_int_equal(c->result.term_signal, 0);
    assert_int_equal(c->attempts, 1);
    assert_int_equal(c->result.nwarmup, 2);
    assert_int_equal(c->result.warmup_ns[0], 1000000000);
    assert_int_equal(c->result.warmup_ns[1], 1001000000);
    assert_int_equal(c->result.ntimed, 10);
    for (size_t i = 0; i < 10; i++)
        assert_int_equal(c->result.timed_ns[i], (10 + (int64_t)i) * 1000000);
    /* Markers in time order, facts and environment sorted by name. */
    assert_int_equal(c->result.phases.n, 3);
    assert_string_equal(c->result.phases.items[0].key, "python_ready");
    assert_string_equal(c->result.phases.items[1].key, "model_built");
    assert_string_equal(c->result.phases.items[1].value, "900000");
    assert_string_equal(c->result.phases.items[2].key, "first_step_done");
    assert_int_equal(c->result.facts.n, 2);
    assert_string_equal(c->result.facts.items[0].key, "jit_compile");
    assert_string_equal(c->result.facts.items[1].key, "param_count");
    assert_string_equal(c->result.facts.items[1].value, "110000000");
    assert_int_equal(c->result.env.n, 2);
    assert_string_equal(c->result.env.items[0].key, "pkg.jax");
    assert_string_equal(c->result.env.items[1].key, "python.version");
    /* Stats of 10..19 ms: mean 14.5, median 14.5. */
    assert_int_equal(c->st.n, 10);
    assert_near(c->st.mean, 14.5, 1e-12);
    assert_near(c->st.median, 14.5, 1e-12);
    assert_near(c->st.min, 10.0, 0);
    assert_near(c->st.max, 19.0, 0);

    const struct rd_cell *p = &rd->cells[1];
    assert_int_equal(p->result.status, STATUS_NONE);
    assert_int_equal(p->attempts, 0);
    assert_int_equal(p->result.ntimed, 0);
    assert_int_equal(p->result.nwarmup, 0);
    assert_int_equal(p->st.n, 0);
    assert_true(isnan(p->st.mean));
    assert_int_equal(p->result.phases.n + p->result.facts.n + p->result.env.n, 0);

    assert_string_equal(rd->cells[2].cell.workload, "/abs/mine.py");
    assert_int_equal(rd->cells[2].cell.repeat, 2);

    assert_ptr_equal(rundata_find(rd, "bert/fit/b2/torch-eager"), &rd->cells[1]);
    assert_null(rundata_find(rd, "nope"));
    rundata_free(rd);

    /* Reading leaves the run directory as the writer left it: no -wal, no -shm. */
    char path[256];
    snprintf(path, sizeof(path), "%s/%s-wal", f->run, STORE_DB_NAME);
    assert_false(util_is_file(path));
    snprintf(path, sizeof(path), "%s/%s-shm", f->run, STORE_DB_NAME);
    assert_false(util_is_file(path));
}

static void test_readonly_refuses_writes(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    store_close(s);
    assert_int_equal(store_open(&s, f->run, true), 0);
    assert_int_equal(store_mark_finished(s, 1764515000), BG_EDB);
    struct result r;
    make_result_(&r, "ok", 0, 1, 1);
    assert_int_equal(store_record(s, &f->plan.cells[0], &r, NULL), BG_EDB);
    assert_non_null(strstr(error_last(), "read-only"));
    result_free(&r);
    /* Not even raw SQL through the store's own connection. */
    assert_true(sqlite3_exec(s->db, "UPDATE run SET name = 'x'", NULL, NULL, NULL) != SQLITE_OK);
    store_close(s);
    struct rundata *rd = load_(f->run);
    assert_string_equal(rd->name, "unit");
    assert_null(rd->finished_utc);
    assert_int_equal(rd->cells[0].result.status, STATUS_NONE);
    rundata_free(rd);
}

static void test_rerecord_replaces(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    record_(s, &f->plan.cells[0], "error", 1, 3, 50);
    /* The second attempt has fewer samples and no facts: nothing of the first may survive. */
    struct result r;
    make_result_(&r, "ok", 1, 2, 20);
    kvlist_free(&r.facts);
    assert_int_equal(store_record(s, &f->plan.cells[0], &r, NULL), 0);
    result_free(&r);
    store_close(s);

    struct rundata *rd = load_(f->run);
    const struct rd_cell *c = &rd->cells[0];
    assert_int_equal(c->result.status, STATUS_OK);
    assert_int_equal(c->attempts, 2);
    assert_int_equal(c->result.ntimed, 2);
    assert_int_equal(c->result.timed_ns[0], 20000000);
    assert_int_equal(c->result.timed_ns[1], 21000000);
    assert_int_equal(c->result.nwarmup, 1);
    assert_int_equal(c->result.facts.n, 0);
    assert_int_equal(c->result.phases.n, 3);
    assert_int_equal(c->result.env.n, 2);
    assert_null(c->log_path);
    rundata_free(rd);
}

/* What a sequential run --ab removes: only the cells that never started. */
static void test_drop_unstarted(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    record_(s, &f->plan.cells[0], "ok", 1, 5, 10);
    record_(s, &f->plan.cells[1], "timeout", 0, 0, 0);
    size_t dropped = 99;
    assert_int_equal(store_drop_unstarted(s, &dropped), 0);
    assert_int_equal(dropped, 1);
    assert_int_equal(store_drop_unstarted(s, &dropped), 0); /* nothing left to drop */
    assert_int_equal(dropped, 0);
    struct matrix m = {0};
    assert_int_equal(store_load_plan(s, &m), 0);
    assert_int_equal(m.ncells, 2);
    assert_string_equal(m.cells[0].key, f->plan.cells[0].key);
    assert_string_equal(m.cells[1].key, f->plan.cells[1].key);
    matrix_free(&m);
    store_close(s);
    struct rundata *rd = load_(f->run);
    assert_int_equal(rd->ncells, 2);
    assert_int_equal(rd->cells[0].result.ntimed, 5);
    rundata_free(rd);
}

static void test_pending_and_load_plan(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    record_(s, &f->plan.cells[1], "timeout", 0, 0, 0);
    store_close(s);

    /* What --resume does: reopen, reload the plan, run what has no status. */
    assert_int_equal(store_open(&s, f->run, false), 0);
    struct matrix m = {0};
    assert_int_equal(store_load_plan(s, &m), 0);
    assert_int_equal(m.ncells, f->plan.ncells);
    for (size_t i = 0; i < m.ncells; i++) {
        const struct cell *a = &m.cells[i], *b = &f->plan.cells[i];
        assert_int_equal(a->id, b->id);
        assert_string_equal(a->key, b->key);
        assert_string_equal(a->model, b->model);
        assert_string_equal(a->task, b->task);
        assert_string_equal(a->backend, b->backend);
        assert_string_equal(a->size, b->size);
        assert_string_equal(a->precision, b->precision);
        assert_string_equal(a->env, b->env);
        if (b->workload)
            assert_string_equal(a->workload, b->workload);
        else
            assert_null(a->workload);
        assert_string_equal(a->method, b->method);
        assert_int_equal(a->batch, b->batch);
        assert_int_equal(a->steps, b->steps);
        assert_int_equal(a->warmup, b->warmup);
        assert_int_equal(a->repeat, b->repeat);
        assert_true(a->seed == b->seed);
        assert_near(a->timeout, b->timeout, 0);
        assert_true(a->memory_limit == b->memory_limit);
    }
    enum status status;
    unsigned char keep[3];
    for (size_t i = 0; i < m.ncells; i++) {
        assert_int_equal(store_cell_status(s, m.cells[i].id, &status), 0);
        keep[i] = status == STATUS_NONE;
    }
    assert_int_equal(keep[0], 1);
    assert_int_equal(keep[1], 0);
    assert_int_equal(keep[2], 1);
    assert_int_equal(store_cell_status(s, 2, &status), 0);
    assert_int_equal(status, STATUS_TIMEOUT);
    assert_int_equal(store_cell_status(s, 99, &status), BG_ENOTFOUND);

    /* Recording through the reopened store works and keeps the first start time. */
    assert_int_equal(store_mark_started(s, 1000000000), 0);
    assert_int_equal(store_mark_started(s, 2000000000), 0);
    record_(s, &m.cells[0], "ok", 1, 5, 10);
    matrix_free(&m);
    store_close(s);

    struct rundata *rd = load_(f->run);
    assert_int_equal(rd->cells[0].result.status, STATUS_OK);
    assert_int_equal(rd->cells[1].result.status, STATUS_TIMEOUT);
    assert_int_equal(rd->cells[2].result.status, STATUS_NONE);
    assert_string_equal(rd->started_utc, "2001-09-09T01:46:40Z");
    assert_null(rd->finished_utc);
    rundata_free(rd);

    /* A run stored before the method key has no method column: its plan
     * still loads, with no method (the worker then runs `corrected`). */
    sqlite3 *db = NULL;
    char path[512];
    snprintf(path, sizeof(path), "%s/run.db", f->run);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "ALTER TABLE cells DROP COLUMN method", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(store_open(&s, f->run, false), 0);
    assert_int_equal(store_load_plan(s, &m), 0);
    assert_int_equal(m.ncells, f->plan.ncells);
    assert_null(m.cells[0].method);
    assert_string_equal(m.cells[0].key, f->plan.cells[0].key);
    matrix_free(&m);
    store_close(s);
}

/* Kills the process from inside SQLite once store_record() has written rows
 * in its open transaction: the closest thing to SIGKILL mid-commit. */
static int kill_mid_txn_(void *arg)
{
    sqlite3 *db = arg;
    if (!sqlite3_get_autocommit(db) && sqlite3_total_changes(db) > 100)
        raise(SIGKILL);
    return 0;
}

static void test_crash_mid_record(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    record_(s, &f->plan.cells[0], "ok", 1, 10, 10);
    store_close(s);

    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct store *cs = NULL;
        if (store_open(&cs, f->run, false) != 0)
            _exit(2);
        sqlite3_progress_handler(cs->db, 10, kill_mid_txn_, cs->db);
        struct result r;
        memset(&r, 0, sizeof(r));
        r.status = STATUS_OK;
        for (int i = 0; i < 1000; i++)
            result_add_sample(&r, 0, 1000000 + i);
        store_record(cs, &f->plan.cells[1], &r, NULL);
        _exit(3); /* not killed: the test must fail */
    }
    int wstatus = 0;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFSIGNALED(wstatus));
    assert_int_equal(WTERMSIG(wstatus), SIGKILL);

    /* The killed cell is still pending with nothing of it stored; the earlier one is intact. */
    struct rundata *rd = load_(f->run);
    assert_int_equal(rd->cells[0].result.status, STATUS_OK);
    assert_int_equal(rd->cells[0].result.ntimed, 10);
    assert_int_equal(rd->cells[1].result.status, STATUS_NONE);
    assert_int_equal(rd->cells[1].result.ntimed, 0);
    assert_int_equal(rd->cells[1].attempts, 0);
    rundata_free(rd);

    /* And the run resumes: the database is consistent and writable. */
    assert_int_equal(store_open(&s, f->run, false), 0);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(s->db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    record_(s, &f->plan.cells[1], "ok", 1, 4, 30);
    store_close(s);
    rd = load_(f->run);
    assert_int_equal(rd->cells[1].result.status, STATUS_OK);
    assert_int_equal(rd->cells[1].result.ntimed, 4);
    rundata_free(rd);
}

static void test_record_rolls_back_on_error(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    record_(s, &f->plan.cells[0], "ok", 1, 10, 10);

    /* Fails after the cell row and samples were written: all of it must roll back. */
    struct result r;
    make_result_(&r, "error", 1, 3, 90);
    kvlist_add(&r.phases, "broken", "12abc");
    assert_int_equal(store_record(s, &f->plan.cells[0], &r, NULL), BG_EDB);
    assert_non_null(strstr(error_last(), "broken"));
    result_free(&r);

    /* A cell that is not in the plan (same id, other key). */
    struct cell bogus = f->plan.cells[1];
    bogus.key = (char *)"not/in/b1/plan";
    make_result_(&r, "ok", 0, 1, 1);
    assert_int_equal(store_record(s, &bogus, &r, NULL), BG_EDB);
    assert_non_null(strstr(error_last(), "not in this run's plan"));
    /* A result without a final status, and a value that is no status. */
    r.status = STATUS_NONE;
    assert_int_equal(store_record(s, &f->plan.cells[1], &r, NULL), BG_EDB);
    assert_non_null(strstr(error_last(), "no final status"));
    r.status = STATUS_COUNT;
    assert_int_equal(store_record(s, &f->plan.cells[1], &r, NULL), BG_EDB);
    assert_non_null(strstr(error_last(), "no final status"));
    result_free(&r);

    /* The store is still usable after the failures. */
    record_(s, &f->plan.cells[2], "unsupported", 0, 0, 0);
    store_close(s);

    struct rundata *rd = load_(f->run);
    const struct rd_cell *c = &rd->cells[0];
    assert_int_equal(c->result.status, STATUS_OK);
    assert_int_equal(c->attempts, 1);
    assert_int_equal(c->result.ntimed, 10);
    assert_int_equal(c->result.timed_ns[0], 10000000);
    assert_int_equal(c->result.phases.n, 3);
    assert_int_equal(rd->cells[1].result.status, STATUS_NONE);
    assert_int_equal(rd->cells[2].result.status, STATUS_UNSUPPORTED);
    rundata_free(rd);
}

static void exec_sql_(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void test_schema_checks(void **state)
{
    struct fixture *f = *state;
    struct store *s = NULL;
    struct rundata *rd = NULL;
    char path[256];

    /* No run here at all. */
    assert_int_equal(store_open(&s, f->tmp, true), BG_ENOTFOUND);
    assert_null(s);
    assert_int_equal(rundata_load(&rd, f->tmp), BG_ENOTFOUND);
    assert_null(rd);

    /* Some other SQLite database. */
    snprintf(path, sizeof(path), "%s/%s", f->tmp, STORE_DB_NAME);
    exec_sql_(path, "CREATE TABLE x(y)");
    assert_int_equal(store_open(&s, f->tmp, true), BG_EDAMAGED);
    assert_non_null(strstr(error_last(), "not a benchgen run"));
    assert_int_equal(rundata_load(&rd, f->tmp), BG_EDAMAGED);
    assert_non_null(strstr(error_last(), "not a benchgen run"));

    /* Not a database at all. */
    unlink(path);
    assert_int_equal(util_write_file_atomic(path, "hello, world, this is not SQLite at all\n", 40), 0);
    assert_int_equal(store_open(&s, f->tmp, false), BG_EDAMAGED);
    assert_non_null(strstr(error_last(), "not a benchgen run"));

    /* A run written by a newer benchgen. */
    s = create_(f);
    store_close(s);
    snprintf(path, sizeof(path), "%s/%s", f->run, STORE_DB_NAME);
    exec_sql_(path, "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
    assert_int_equal(store_open(&s, f->run, false), BG_EDB);
    assert_non_null(strstr(error_last(), "newer benchgen"));
    assert_int_equal(rundata_load(&rd, f->run), BG_EDB);
    assert_non_null(strstr(error_last(), "newer benchgen"));
    exec_sql_(path, "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    assert_int_equal(store_open(&s, f->run, true), 0);
    store_close(s);

    /* A status name benchgen does not know: the reader and the status
     * query refuse it (statuses are an enum, never compared as text). */
    exec_sql_(path, "UPDATE cells SET status = 'great' WHERE id = 2");
    assert_int_equal(rundata_load(&rd, f->run), BG_EDB);
    assert_non_null(strstr(error_last(), "unknown status 'great'"));
    assert_null(rd);
    enum status st;
    assert_int_equal(store_open(&s, f->run, true), 0);
    assert_int_equal(store_cell_status(s, 1, &st), 0);
    assert_int_equal(st, STATUS_NONE);
    assert_int_equal(store_cell_status(s, 2, &st), BG_EDB);
    assert_non_null(strstr(error_last(), "unknown status 'great'"));
    store_close(s);
}

/* Result columns a benchgen never writes (a hand-edited or hostile run.db):
 * a clear BG_EDB naming the cell, never a silently different value. */
static void test_foreign_result_columns(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    record_(s, &f->plan.cells[0], "ok", 2, 10, 10);
    store_close(s);
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", f->run, STORE_DB_NAME);
    struct rundata *rd = load_(f->run);
    char keep[32];
    assert_non_null(util_utc_or_null(keep, rd->cells[0].result.started));
    rundata_free(rd);
    rd = NULL;

    static const char *const bad[] = {
        "UPDATE cells SET started_utc = '2025-11-30 15:03:20' WHERE id = 1",  /* no T, no Z */
        "UPDATE cells SET started_utc = '2025-11-30T15:03:20.5Z' WHERE id = 1", /* fraction */
        "UPDATE cells SET started_utc = '2025-02-30T15:03:20Z' WHERE id = 1",  /* no such day */
        "UPDATE cells SET finished_utc = 'yesterday' WHERE id = 1",
        "UPDATE cells SET finished_utc = '1970-01-01T00:00:00Z' WHERE id = 1", /* 0 reads as "none" */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        exec_sql_(path, bad[i]);
        assert_int_equal(rundata_load(&rd, f->run), BG_EDB);
        assert_null(rd);
        assert_non_null(strstr(error_last(), "cell 1: "));
        assert_non_null(strstr(error_last(), "is not a UTC time"));
        char restore[160];
        snprintf(restore, sizeof(restore), "UPDATE cells SET started_utc = '%s', finished_utc = '%s' WHERE id = 1",
                 keep, keep);
        exec_sql_(path, restore);
    }
    rd = load_(f->run); /* restored: loads again */
    rundata_free(rd);
    rd = NULL;

    exec_sql_(path, "UPDATE cells SET input_sha256 = printf('%065d', 7) WHERE id = 1");
    assert_int_equal(rundata_load(&rd, f->run), BG_EDB);
    assert_non_null(strstr(error_last(), "cell 1: input_sha256 has 65 characters"));
    assert_null(rd);
}

static void test_create_sets_pragmas(void **state)
{
    struct fixture *f = *state;
    struct store *s = create_(f);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(s->db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(s->db, "PRAGMA synchronous", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 2); /* FULL */
    sqlite3_finalize(st);
    const char *sql = "SELECT value FROM meta WHERE key = 'created_by'";
    assert_int_equal(sqlite3_prepare_v2(s->db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "benchgen " BENCHGEN_VERSION);
    sqlite3_finalize(st);
    store_close(s);
}

static void test_read_while_writing(void **state)
{
    struct fixture *f = *state;
    /* `benchgen show` on a live run: the writer keeps its connection open. */
    struct store *s = create_(f);
    record_(s, &f->plan.cells[0], "ok", 1, 3, 10);
    struct rundata *rd = load_(f->run);
    assert_int_equal(rd->cells[0].result.status, STATUS_OK);
    assert_int_equal(rd->cells[1].result.status, STATUS_NONE);
    rundata_free(rd);
    record_(s, &f->plan.cells[1], "crash", 0, 0, 0);
    rd = load_(f->run);
    assert_int_equal(rd->cells[1].result.status, STATUS_CRASH);
    rundata_free(rd);
    store_close(s);
}

/* ---- show --------------------------------------------------------------- */

static char *show_(const char *dir, bool json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    int err = show_run(dir, json, mem);
    fclose(mem);
    if (err)
        fail_msg("show_run: %s", error_last());
    return buf;
}

/* Cell 1 ok (warm-ups 1000, 1001 ms; timed 10..19 ms), cell 2 pending, cell 3
 * an error whose timed steps are all 0 ns (mean 0: cv undefined) and whose
 * traceback is not valid UTF-8. */
static void make_show_run_(struct fixture *f)
{
    struct store *s = create_(f);
    assert_int_equal(store_mark_started(s, 1764515000), 0);
    record_(s, &f->plan.cells[0], "ok", 2, 10, 10);
    struct result r;
    make_result_(&r, "error", 0, 2, 0);
    r.timed_ns[1] = 0;
    r.detail = strdup("Traceback: bad byte \xff here");
    r.exit_code = 1;
    assert_int_equal(store_record(s, &f->plan.cells[2], &r, "logs/mine.log"), 0);
    result_free(&r);
    store_close(s);
}

static void test_show_text(void **state)
{
    struct fixture *f = *state;
    make_show_run_(f);
    char *text = show_(f->run, false);
    assert_non_null(strstr(text, "run       unit\n"));
    assert_non_null(strstr(text, "unit-test run"));
    assert_non_null(strstr(text, "data/matrix/unit.yaml"));
    assert_non_null(strstr(text, "started 2025-11-30T15:03:20Z"));
    assert_non_null(strstr(text, "finished -"));
    assert_non_null(strstr(text, "benchgen  " BENCHGEN_VERSION " (commit "));
    assert_non_null(strstr(text, "cells     3: 1 ok, 1 error, 1 pending\n"));
    assert_non_null(strstr(text, "KEY"));
    assert_non_null(strstr(text, "COMPILE_MS"));

    /* One line per cell, in plan order, columns aligned under the header. */
    const char *hdr = strstr(text, "\nKEY");
    const char *l1 = strstr(text, "\nbert/fit/b2/keras3-jax ");
    const char *l2 = strstr(text, "\nbert/fit/b2/torch-eager ");
    const char *l3 = strstr(text, "\nmine/predict/b1/keras3-jax#r2 ");
    assert_true(hdr && l1 && l2 && l3 && hdr < l1 && l1 < l2 && l2 < l3);
    char line[512];
    sscanf(l1 + 1, "%511[^\n]", line);
    assert_non_null(strstr(line, " ok "));
    assert_non_null(strstr(line, " 0aaaaaaaaaaa "));
    assert_null(strstr(line, "0aaaaaaaaaaaa")); /* 12 hex digits, not more */
    assert_non_null(strstr(line, " 10/2 "));
    assert_non_null(strstr(line, " 14.500 ")); /* mean and median of 10..19 */
    assert_non_null(strstr(line, " 1000.000")); /* compile: the first warm-up step */
    sscanf(l2 + 1, "%511[^\n]", line);
    assert_non_null(strstr(line, "pending"));
    sscanf(l3 + 1, "%511[^\n]", line);
    assert_non_null(strstr(line, " error "));
    const char *mean_col = strstr(hdr + 1, "MEAN_MS");
    size_t hdr_end_mean = (size_t)(mean_col - (hdr + 1)) + strlen("MEAN_MS");
    /* The mean column is right-aligned: its last digit sits under MEAN_MS's S. */
    sscanf(l1 + 1, "%511[^\n]", line);
    assert_true(strlen(line) > hdr_end_mean);
    assert_true(line[hdr_end_mean - 1] == '0' && line[hdr_end_mean] == ' ');
    free(text);
}

static void test_show_json(void **state)
{
    struct fixture *f = *state;
    make_show_run_(f);
    char *text = show_(f->run, true);
    char *again = show_(f->run, true);
    assert_string_equal(text, again); /* stable byte for byte */
    free(again);
    assert_null(strstr(text, "NaN"));
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "Infinity"));
    assert_true(text[strlen(text) - 1] == '\n');

    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    if (!root)
        fail_msg("JSON does not parse: %s (line %d)", jerr.text, jerr.line);
    assert_string_equal(json_string_value(json_object_get(root, "format")), "benchgen-run/1");

    json_t *run = json_object_get(root, "run");
    assert_string_equal(json_string_value(json_object_get(run, "name")), "unit");
    assert_string_equal(json_string_value(json_object_get(run, "spec_text")), spec_text);
    assert_string_equal(json_string_value(json_object_get(run, "spec_sha256")), f->spec.sha256);
    assert_int_equal(json_integer_value(json_object_get(run, "seed")), 42);
    assert_string_equal(json_string_value(json_object_get(run, "started_utc")), "2025-11-30T15:03:20Z");
    assert_true(json_is_null(json_object_get(run, "finished_utc")));
    assert_true(json_is_boolean(json_object_get(run, "git_dirty")));
    assert_string_equal(json_string_value(json_object_get(run, "benchgen_version")), BENCHGEN_VERSION);
    json_t *renv = json_object_get(run, "environment");
    assert_int_equal(json_object_size(renv), 3);
    assert_string_equal(json_string_value(json_object_get(renv, "host.cpu")), "Test CPU");

    json_t *cells = json_object_get(root, "cells");
    assert_int_equal(json_array_size(cells), 3);

    json_t *c = json_array_get(cells, 0);
    assert_int_equal(json_integer_value(json_object_get(c, "id")), 1);
    assert_string_equal(json_string_value(json_object_get(c, "key")), "bert/fit/b2/keras3-jax");
    assert_string_equal(json_string_value(json_object_get(c, "status")), "ok");
    assert_true(json_is_null(json_object_get(c, "workload")));
    assert_true(json_is_null(json_object_get(c, "detail")));
    assert_int_equal(json_integer_value(json_object_get(c, "batch")), 2);
    assert_int_equal(json_integer_value(json_object_get(c, "input_bytes")), 4096);
    assert_int_equal(json_integer_value(json_object_get(c, "peak_rss_bytes")), 123456789);
    assert_int_equal(json_integer_value(json_object_get(c, "attempts")), 1);
    assert_near(json_real_value(json_object_get(c, "wall_s")), 60.25, 0);
    assert_near(json_real_value(json_object_get(c, "compile_ms")), 1000.0, 0);
    json_t *samples = json_object_get(c, "samples");
    assert_int_equal(json_integer_value(json_object_get(samples, "timed")), 10);
    assert_int_equal(json_integer_value(json_object_get(samples, "warmup")), 2);
    json_t *st = json_object_get(c, "stats");
    assert_true(json_is_object(st));
    assert_near(json_real_value(json_object_get(st, "mean_ms")), 14.5, 1e-12);
    assert_near(json_real_value(json_object_get(st, "median_ms")), 14.5, 1e-12);
    assert_near(json_real_value(json_object_get(st, "min_ms")), 10.0, 0);
    assert_near(json_real_value(json_object_get(st, "max_ms")), 19.0, 0);
    /* statistics.quantiles(range(10, 20), n=100, method='inclusive')[4] == 10.45, [94] == 18.55 */
    assert_near(json_real_value(json_object_get(st, "p5_ms")), 10.45, 1e-12);
    assert_near(json_real_value(json_object_get(st, "p95_ms")), 18.55, 1e-12);
    /* statistics.stdev(range(10, 20)) == 3.0276503540974917 */
    assert_near(json_real_value(json_object_get(st, "stdev_ms")), 3.0276503540974917, 1e-12);
    json_t *ci = json_object_get(st, "ci95_ms");
    assert_int_equal(json_array_size(ci), 2);
    assert_true(json_real_value(json_array_get(ci, 0)) <= 14.5);
    assert_true(json_real_value(json_array_get(ci, 1)) >= 14.5);
    assert_int_equal(json_integer_value(json_object_get(st, "outliers")), 0);
    json_t *markers = json_object_get(c, "markers");
    assert_true(json_is_integer(json_object_get(markers, "model_built")));
    assert_int_equal(json_integer_value(json_object_get(markers, "model_built")), 900000);
    assert_string_equal(json_string_value(json_object_get(json_object_get(c, "facts"), "param_count")),
                        "110000000");
    assert_string_equal(json_string_value(json_object_get(json_object_get(c, "environment"), "pkg.jax")),
                        "0.4.30");

    json_t *p = json_array_get(cells, 1);
    assert_true(json_is_null(json_object_get(p, "status")));
    assert_true(json_is_null(json_object_get(p, "stats")));
    assert_true(json_is_null(json_object_get(p, "compile_ms")));
    assert_true(json_is_null(json_object_get(p, "wall_s")));
    assert_true(json_is_null(json_object_get(p, "input_sha256")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "samples"), "timed")), 0);
    assert_int_equal(json_object_size(json_object_get(p, "facts")), 0);
    /* Plan fields survive for pending cells; the seed above 2^63 reads back as its signed twin. */
    assert_int_equal(json_integer_value(json_object_get(p, "steps")), 10);
    assert_true((uint64_t)json_integer_value(json_object_get(p, "seed")) == 0xfedcba9876543210ULL);

    json_t *e = json_array_get(cells, 2);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "error");
    assert_string_equal(json_string_value(json_object_get(e, "workload")), "/abs/mine.py");
    assert_string_equal(json_string_value(json_object_get(e, "detail")),
                        "Traceback: bad byte \xef\xbf\xbd here"); /* U+FFFD */
    assert_int_equal(json_integer_value(json_object_get(e, "exit_code")), 1);
    json_t *est = json_object_get(e, "stats");
    assert_true(json_is_object(est));
    assert_true(json_is_null(json_object_get(est, "cv"))); /* 0 / 0 */
    assert_near(json_real_value(json_object_get(est, "mean_ms")), 0.0, 0);

    json_decref(root);
    free(text);
}

static void test_show_missing_run(void **state)
{
    struct fixture *f = *state;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_int_equal(show_run(f->tmp, true, mem), BG_ENOTFOUND);
    fclose(mem);
    assert_int_equal(len, 0);
    free(buf);
}

/* compile.cache (issue 22): a warm process's first call is never compile time */
static void test_compile_cache_facts(void **state)
{
    (void)state;
    struct result r = {0};
    assert_true(isnan(result_compile_ms(&r))); /* no warm-up sample */
    assert_int_equal(result_add_sample(&r, 1, 2500000), 0);
    assert_int_equal(result_add_sample(&r, 1, 1000000), 0);
    assert_false(result_warm_cache(&r)); /* runs from before the fact: cold */
    assert_true(fabs(result_compile_ms(&r) - 2.5) < 1e-9);
    assert_int_equal(kvlist_add(&r.facts, "compile.cache", "cold"), 0);
    assert_false(result_warm_cache(&r));
    assert_true(fabs(result_compile_ms(&r) - 2.5) < 1e-9);
    result_free(&r);
    r = (struct result){0};
    assert_int_equal(result_add_sample(&r, 1, 2500000), 0);
    assert_int_equal(kvlist_add(&r.facts, "compile.cache", "warm"), 0);
    assert_true(result_warm_cache(&r));
    assert_true(isnan(result_compile_ms(&r)));
    result_free(&r);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_one_writer), T(test_create_refuses_existing), T(test_record_and_reload),  T(test_rerecord_replaces),
        T(test_pending_and_load_plan),   T(test_crash_mid_record),   T(test_record_rolls_back_on_error),
        T(test_schema_checks),           T(test_create_sets_pragmas), T(test_read_while_writing),
        T(test_show_text),               T(test_show_json),          T(test_show_missing_run),
        T(test_readonly_refuses_writes), T(test_foreign_result_columns), T(test_inputs_round_trip),
        T(test_drop_unstarted),
        cmocka_unit_test(test_compile_cache_facts),
    };
#undef T
    return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
