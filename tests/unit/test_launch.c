/*
 * test_launch.c - `run` as a library call (run/launch.h), without argv: a
 * new run, a resume and an interleaved A/B run of real NumPy MLP cells in
 * the `base` environment (`benchgen env sync base`; tests/run.sh builds it
 * for `make test`, and a missing one fails here with that command rather
 * than passing untested). Also what the entry points refuse: request errors
 * are marked as the request's (the command line prints its usage) and
 * create nothing, and so do executor options the executor refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/error.h"
#include "base/util.h"
#include "envs/envs.h"
#include "plan/status.h"
#include "run/abarm.h"
#include "run/launch.h"
#include "store/rundata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[] = "/tmp/benchgen-test-launch-XXXXXX";

static char *path(const char *name) { return util_printf("%s/%s", tmp, name); }

/* A spec of two MLP cells (or, with extra, one more line). */
static char *write_spec(const char *name, const char *extra)
{
    char *p = path(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fprintf(f, "name: launch-test\nsteps: 4\nwarmup: 1\ntimeout: 120\nbackends: [numpy]\nrows:\n"
               "  - {model: mlp, task: fit, batch: 8}\n  - {model: mlp, task: predict, batch: 8}\n%s",
            extra ? extra : "");
    fclose(f);
    return p;
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(tmp));
    struct env_info e = {0};
    int bad = envs_resolve_for("base", "numpy", &e) < 0 || strcmp(e.state, "ready") != 0;
    if (bad)
        print_error("the base environment is %s: run `./benchgen env sync base` (tests/run.sh does for make test)\n",
                    e.state ? e.state : error_last());
    env_info_free(&e);
    return bad ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    return util_rm_rf(tmp);
}

/* What the hooks saw. */
struct seen {
    int plans, readies;
    size_t ncells;
    bool ab, upto;
    char dir[512];
    size_t left;
};

static void on_plan(void *arg, const struct matrix *plan, const unsigned char *arm, bool upto)
{
    struct seen *s = arg;
    s->plans++;
    s->ncells = plan->ncells;
    s->ab = arm != NULL;
    s->upto = upto;
}

static void on_ready(void *arg, const struct run_outcome *out)
{
    struct seen *s = arg;
    s->readies++;
    snprintf(s->dir, sizeof(s->dir), "%s", out->dir);
    s->left = out->left;
}

/* Every cell of the run in dir ended ok with its timed steps, recorded
 * attempts times; returns how many cells. */
static size_t all_ok(const char *dir, int attempts)
{
    struct rundata *rd = NULL;
    assert_int_equal(rundata_load(&rd, dir), 0);
    size_t n = rd->ncells;
    for (size_t i = 0; i < n; i++) {
        const struct rd_cell *c = &rd->cells[i];
        if (c->result.status != STATUS_OK)
            fail_msg("%s: %s ended %s: %s", dir, c->cell.key, status_name(c->result.status),
                     c->result.detail ? c->result.detail : "");
        assert_int_equal(c->result.ntimed, 4);
        assert_int_equal(c->attempts, attempts);
    }
    rundata_free(rd);
    return n;
}

static void test_new_run_and_resume(void **state)
{
    (void)state;
    struct seen seen = {0};
    struct run_hooks hooks = {.plan = on_plan, .ready = on_ready, .arg = &seen};
    char *spec = write_spec("spec.yaml", NULL), *dir = path("new");
    struct run_request req = {.spec = spec, .out = dir, .cmdline = "test_launch new", .hooks = &hooks};
    struct run_outcome out;

    assert_int_equal(run_launch(&out, &req), 0);
    assert_true(out.ran);
    assert_false(out.usage);
    assert_string_equal(out.dir, dir);
    assert_int_equal(out.sum.total, 2);
    assert_int_equal(out.sum.ok, 2);
    assert_int_equal(seen.plans, 1);
    assert_int_equal(seen.readies, 1);
    assert_int_equal(seen.ncells, 2);
    assert_false(seen.ab);
    assert_string_equal(seen.dir, dir);
    run_outcome_free(&out);
    assert_int_equal(all_ok(dir, 1), 2);
    struct rundata *rd = NULL;
    assert_int_equal(rundata_load(&rd, dir), 0);
    assert_string_equal(rd->command_line, "test_launch new");
    rundata_free(rd);

    /* A finished run leaves nothing to resume ... */
    memset(&seen, 0, sizeof(seen));
    struct run_request res = {.resume = dir, .spec = spec, .hooks = &hooks};
    assert_int_equal(run_resume(&out, &res), 0);
    assert_true(out.ran);
    assert_int_equal(out.left, 0);
    assert_int_equal(out.sum.total, 0);
    assert_int_equal(seen.plans, 0);
    assert_int_equal(seen.readies, 1);
    assert_string_equal(seen.dir, dir);
    run_outcome_free(&out);

    /* ... unless --retry names how its cells ended: both run again. */
    res.retry = "error,ok";
    assert_int_equal(run_resume(&out, &res), 0);
    assert_int_equal(out.left, 2);
    assert_int_equal(out.sum.total, 2);
    assert_int_equal(out.sum.ok, 2);
    run_outcome_free(&out);
    assert_int_equal(all_ok(dir, 2), 2);

    /* An edited spec is refused (the run's error, not the request's). */
    char *edited = write_spec("edited.yaml", "repeats: 2\n");
    res.spec = edited;
    assert_int_equal(run_resume(&out, &res), BG_EUSAGE);
    assert_false(out.usage);
    assert_non_null(strstr(error_last(), "has changed since the run"));
    run_outcome_free(&out);

    /* A status that is none is the request's error. */
    res.spec = NULL;
    res.retry = "fine";
    assert_int_equal(run_resume(&out, &res), BG_EUSAGE);
    assert_true(out.usage);
    assert_non_null(strstr(error_last(), "--retry: unknown status 'fine'"));
    run_outcome_free(&out);
    free(edited);
    free(spec);
    free(dir);
}

static void test_ab_run(void **state)
{
    (void)state;
    struct seen seen = {0};
    struct run_hooks hooks = {.plan = on_plan, .ready = on_ready, .arg = &seen};
    char *spec = write_spec("ab.yaml", NULL), *dir = path("ab"), *a = NULL, *b = NULL;
    const char *benv[] = {"BENCHGEN_TEST_ARM=b"};
    struct run_request req = {.spec = spec, .out = dir, .only = "task=predict", .repeats = 1,
                              .benv = benv, .nbenv = 1, .cmdline = "test_launch ab", .hooks = &hooks};
    struct run_outcome out;

    assert_int_equal(run_launch_ab(&out, &req), 0);
    assert_true(out.ran);
    assert_false(out.seq);
    assert_int_equal(out.sum.total, 2);
    assert_int_equal(out.sum.ok, 2);
    assert_int_equal(seen.plans, 1);
    assert_true(seen.ab);
    assert_false(seen.upto);
    assert_int_equal(seen.ncells, 2);
    assert_int_equal(seen.readies, 1);
    /* the one layout compare reads */
    abarm_dirs(dir, &a, &b);
    assert_string_equal(out.dir, dir);
    assert_string_equal(out.dir_a, a);
    assert_string_equal(out.dir_b, b);
    assert_int_equal(strcmp(a + strlen(dir), "/a"), 0);
    assert_int_equal(strcmp(b + strlen(dir), "/b"), 0);
    run_outcome_free(&out);
    assert_int_equal(all_ok(a, 1), 1);
    assert_int_equal(all_ok(b, 1), 1);
    struct rundata *ra = NULL, *rb = NULL;
    assert_int_equal(rundata_load(&ra, a), 0);
    assert_int_equal(rundata_load(&rb, b), 0);
    assert_string_equal(kvlist_get(&ra->env, "run.ab"), "a");
    assert_string_equal(kvlist_get(&rb->env, "run.ab"), "b");
    assert_null(kvlist_get(&ra->env, "run.setenv"));
    assert_string_equal(kvlist_get(&rb->env, "run.setenv"), "BENCHGEN_TEST_ARM=b");
    rundata_free(ra);
    rundata_free(rb);

    /* Without repeats: sequential verdicts, the plan up to the cap a side
     * (a dry run: the plan, nothing created). */
    memset(&seen, 0, sizeof(seen));
    char *dry = path("ab-dry");
    struct run_request seq = {.spec = spec, .out = dry, .first = 3, .cap = 5, .dry_run = true, .hooks = &hooks};
    assert_int_equal(run_launch_ab(&out, &seq), 0);
    assert_false(out.ran);
    assert_true(out.seq);
    assert_int_equal(seen.plans, 1);
    assert_true(seen.upto);
    assert_int_equal(seen.ncells, 2 * 2 * 5);
    assert_int_equal(seen.readies, 0);
    assert_int_equal(access(dry, F_OK), -1);
    run_outcome_free(&out);
    free(dry);
    free(a);
    free(b);
    free(spec);
    free(dir);
}

/* Request errors are marked so, and nothing is created for them, nor for
 * options the executor refuses. */
static void test_refused(void **state)
{
    (void)state;
    char *spec = write_spec("bad.yaml", NULL), *dir = path("bad");
    struct run_outcome out;

    struct run_request r1 = {.spec = spec, .out = dir, .exec = {.kind = "slurm"}};
    assert_int_equal(run_launch_ab(&out, &r1), BG_EUSAGE);
    assert_true(out.usage);
    assert_non_null(strstr(error_last(), "--ab runs locally"));
    run_outcome_free(&out);

    struct run_request r2 = {.spec = spec, .out = dir, .first = 6, .cap = 4};
    assert_int_equal(run_launch_ab(&out, &r2), BG_EUSAGE);
    assert_true(out.usage);
    assert_string_equal(error_last(), "the cap (4) is below the first batch (6) a side");
    run_outcome_free(&out);

    struct run_request r3 = {.spec = spec, .out = dir, .effect = "150"};
    assert_int_equal(run_launch_ab(&out, &r3), BG_EUSAGE);
    assert_true(out.usage);
    assert_non_null(strstr(error_last(), "--effect expects a percentage"));
    run_outcome_free(&out);

    struct run_request r4 = {.out = dir};
    assert_int_equal(run_launch(&out, &r4), BG_EUSAGE);
    assert_true(out.usage);
    assert_string_equal(error_last(), "missing SPEC");
    run_outcome_free(&out);

    /* the executor's own refusal: checked before the run directory exists */
    struct run_request r5 = {.spec = spec, .out = dir, .exec = {.cpus_per_cell = 100000}};
    assert_int_equal(run_launch(&out, &r5), BG_EUSAGE);
    assert_false(out.usage);
    assert_non_null(strstr(error_last(), "--cpus-per-cell 100000"));
    run_outcome_free(&out);

    assert_int_equal(access(dir, F_OK), -1);
    free(spec);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_run_and_resume),
        cmocka_unit_test(test_ab_run),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests_name("launch", tests, setup, teardown);
}
