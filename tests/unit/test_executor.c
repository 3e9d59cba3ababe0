/*
 * test_executor.c - the executor interface: kinds are checked, and what a
 * cell records about where it ran is this process's host, cores and devices;
 * attempt files are signed, and whatever in one could not have come from the
 * plan (a status that is none, impossible samples, other settings, a verdict
 * that says ok, a FIFO) is refused with its reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/error.h"
#include "run/cellcheck.h"
#include "run/cellfile.h"
#include "run/cellkey.h"
#include "run/executor.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_unknown_kind_refused(void **state)
{
    (void)state;
    struct exec_options eo = {.kind = "pbs"};
    struct executor ex;
    assert_int_equal(executor_open(&ex, &eo, NULL, NULL, NULL), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "unknown executor 'pbs'"));
}

static void test_local_is_default(void **state)
{
    (void)state;
    struct executor ex;
    assert_int_equal(executor_open(&ex, NULL, NULL, NULL, NULL), 0);
    assert_string_equal(ex.ops->name, "local");
    ex.ops->close(&ex);
}

/* executor_check() refuses what executor_open() refuses, opening nothing. */
static void test_check_options(void **state)
{
    (void)state;
    struct exec_options pbs = {.kind = "pbs"}, slurm_opt = {.partition = "gpu"}, neg = {.cpus_per_cell = -1};
    assert_int_equal(executor_check(NULL), 0);
    assert_int_equal(executor_check(&pbs), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "unknown executor 'pbs'"));
    assert_int_equal(executor_check(&slurm_opt), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "are for --executor slurm"));
    assert_int_equal(executor_check(&neg), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "--cpus-per-cell -1: expected a positive number"));
}

static void test_place_records_affinity(void **state)
{
    (void)state;
    cpu_set_t old, one;
    assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
    int first = -1;
    for (int i = 0; i < CPU_SETSIZE && first < 0; i++)
        if (CPU_ISSET(i, &old))
            first = i;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
    setenv("CUDA_VISIBLE_DEVICES", "3", 1);

    struct result r = {0};
    assert_int_equal(executor_note_place(&r), 0);
    char host[256] = "", want[16];
    gethostname(host, sizeof(host) - 1);
    snprintf(want, sizeof(want), "%d", first);
    assert_string_equal(kvlist_get(&r.env, "where.host"), host);
    assert_string_equal(kvlist_get(&r.env, "where.cores"), want);
    assert_string_equal(kvlist_get(&r.env, "where.devices"), "3");
    result_free(&r);
    unsetenv("CUDA_VISIBLE_DEVICES");
    sched_setaffinity(0, sizeof(old), &old);
}

static struct cell test_cell(void)
{
    struct cell c = {.id = 4, .key = "bert/fit/b1/torch-eager", .model = "bert", .task = "fit",
                     .backend = "torch-eager", .env = "torch", .batch = 1, .steps = 3, .warmup = 1,
                     .timeout = 10};
    return c;
}

/* Loads cells/4/name and checks it against c with one issued attempt. */
static int check(const char *dir, const struct cell *c, const char *name, const char *tag, const char *pub,
                 struct cellcheck_attempt *a, char *why)
{
    char *cdir = util_printf("%s/cells/4", dir);
    int fd = open(cdir, O_RDONLY | O_DIRECTORY);
    free(cdir);
    assert_true(fd >= 0);
    json_t *doc = NULL;
    int bad = cellfile_load(fd, name, name, CELLFILE_MAX_BYTES, &doc) < 0;
    close(fd);
    if (bad) {
        snprintf(why, 256, "%s", error_last());
        return 1;
    }
    struct store_issued one = {.seq = 1, .tag = (char *)tag, .pub = (char *)pub};
    struct store_issued_list issued = {.v = &one, .n = 1};
    int rc = cellcheck_attempt(doc, name, c, &issued, a, why, 256);
    json_decref(doc);
    return rc;
}

/* Rewrites cells/4/<tag>.json with field set to the JSON value, signed again
 * with key (what an attacker holding the attempt's key could write). */
static void resign(const char *dir, const char *tag, const char *field, const char *value, const char *key)
{
    char *path = util_printf("%s/cells/4/%s.json", dir, tag);
    json_t *doc = json_load_file(path, 0, NULL);
    assert_non_null(doc);
    json_object_set_new(doc, field, json_loads(value, JSON_DECODE_ANY, NULL));
    char *msg = cellcheck_signed_text(doc), sig[CELLKEY_SIG_HEX];
    assert_int_equal(cellkey_sign(sig, key, msg, strlen(msg)), 0);
    json_object_set_new(doc, "signature", json_string(sig));
    assert_int_equal(json_dump_file(doc, path, 0), 0);
    json_decref(doc);
    free(msg);
    free(path);
}

/* A signed attempt file keeps its status and samples; whatever could not
 * have come from the plan is refused with the reason, signed or not. */
static void test_attempt_checked(void **state)
{
    (void)state;
    char dir[] = "/tmp/benchgen-test-attempt-XXXXXX", priv[CELLKEY_HEX], pub[CELLKEY_HEX], other[CELLKEY_HEX],
         why[256];
    assert_non_null(mkdtemp(dir));
    assert_int_equal(cellkey_new(priv, pub), 0);
    struct cell c = test_cell();
    struct result r = {0};
    r.status = STATUS_TIMEOUT;
    result_add_sample(&r, 1, 5000);
    result_add_sample(&r, 0, 7000);
    assert_int_equal(cellfile_write_attempt(dir, &c, "t1", 0, &r, priv), 0);
    result_free(&r);

    struct cellcheck_attempt a;
    assert_int_equal(check(dir, &c, "t1.json", "t1", pub, &a, why), 0);
    assert_int_equal(a.r.status, STATUS_TIMEOUT);
    assert_int_equal(a.r.ntimed, 1);
    assert_int_equal(a.r.timed_ns[0], 7000);
    assert_string_equal(a.tag, "t1");
    cellcheck_attempt_free(&a);

    /* Another attempt's key, another cell, a tag nobody issued. */
    assert_int_equal(cellkey_new(other, other), 0);
    assert_int_equal(check(dir, &c, "t1.json", "t1", other, &a, why), 1);
    assert_non_null(strstr(why, "signature is not that of attempt t1's key"));
    struct cell c5 = test_cell();
    c5.key = "bert/fit/b2/torch-eager";
    assert_int_equal(check(dir, &c5, "t1.json", "t1", pub, &a, why), 1);
    assert_non_null(strstr(why, "it holds cell 4 (bert/fit/b1/torch-eager), this is cell 4 (bert/fit/b2"));
    assert_int_equal(check(dir, &c, "t1.json", "t2", pub, &a, why), 1);
    assert_non_null(strstr(why, "attempt t1 was never issued for cell 4"));

    static const struct {
        const char *field, *value, *why;
    } bad[] = {
        {"status", "\"timed out\"", "status timed out is not a final status"},
        {"timed_ns", "[-5]", "timed sample 0 is -5 ns"},
        {"timed_ns", "[1.5]", "timed sample 0 is 1.5, not a whole number"},
        {"timed_ns", "[null]", "timed sample 0 is null"},
        {"timed_ns", "[10000000001]", "timed sample 0 is 10000000001 ns: not within 1 ns and the cell's timeout"},
        {"timed_ns", "[6000000000, 6000000000]", "add up to more than the cell's timeout"},
        {"timed_ns", "[1, 2, 3, 4]", "4 timed samples, at most 3"},
        {"warmup_ns", "[]", "timed samples after 0 of 1 warm-up steps"},
        {"status", "\"ok\"", "status ok with 1 warm-up and 1 timed samples, the plan in run.db says 1 and 3"},
        {"status", "\"skipped\"", "status skipped with samples"},
        {"phases", "[[\"timed\", \"soon\"]]", "markers timed is 'soon', not a whole number of ns"},
        {"facts", "[[\"a\"]]", "facts entry 0 is not a [name, value] pair"},
        {"input_sha256", "\"xyz\"", "input_sha256 is not a SHA-256"},
        {"wall_s", "-1.0", "wall_s is not a duration"},
        {"detail", "3", "detail is not a text"},
        {"tag", "\"t9\"", "attempt t9 was never issued"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        r.status = STATUS_TIMEOUT;
        result_add_sample(&r, 1, 5000);
        result_add_sample(&r, 0, 7000);
        assert_int_equal(cellfile_write_attempt(dir, &c, "t1", 0, &r, priv), 0);
        result_free(&r);
        memset(&r, 0, sizeof(r));
        resign(dir, "t1", bad[i].field, bad[i].value, priv);
        assert_int_equal(check(dir, &c, "t1.json", "t1", pub, &a, why), 1);
        if (!strstr(why, bad[i].why))
            fail_msg("%s=%s: got '%s', expected '%s'", bad[i].field, bad[i].value, why, bad[i].why);
    }

    /* Ran with other settings than run.db's plan. */
    struct cell b8 = test_cell();
    b8.batch = 8;
    assert_int_equal(cellfile_write_attempt(dir, &b8, "t1", 0, &r, priv), 0);
    assert_int_equal(check(dir, &c, "t1.json", "t1", pub, &a, why), 1);
    assert_non_null(strstr(why, "it ran with batch 8, the plan in run.db says 1"));

    /* A verdict may only say the task failed, never with samples. */
    assert_int_equal(check(dir, &c, "t1.json", "s7_4.", pub, &a, why), 1);
    r.status = STATUS_OK;
    assert_int_equal(cellfile_write_attempt(dir, &c, "s7_4.x", 1, &r, NULL), 0);
    assert_int_equal(check(dir, &c, "s7_4.x.slurm.json", "s7_4.", pub, &a, why), 1);
    assert_non_null(strstr(why, "it can only say a task failed"));
    r.status = STATUS_TIMEOUT;
    assert_int_equal(cellfile_write_attempt(dir, &c, "s7_4.x", 1, &r, NULL), 0);
    assert_int_equal(check(dir, &c, "s7_4.x.slurm.json", "s7_4.", pub, &a, why), 0);
    assert_true(a.verdict);
    assert_int_equal(a.restart, -1);
    cellcheck_attempt_free(&a);

    /* A FIFO, a link and a directory are refused for what they are. */
    char *p = util_printf("%s/cells/4/fifo.json", dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(check(dir, &c, "fifo.json", "t1", pub, &a, why), 1);
    assert_non_null(strstr(why, "not a regular file (a FIFO)"));
    free(p);
    p = util_printf("%s/cells/4/link.json", dir);
    assert_int_equal(symlink("t1.json", p), 0);
    assert_int_equal(check(dir, &c, "link.json", "t1", pub, &a, why), 1);
    assert_non_null(strstr(why, "a symbolic link"));
    free(p);
    assert_int_equal(util_rm_rf(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_kind_refused),
        cmocka_unit_test(test_local_is_default),
        cmocka_unit_test(test_check_options),
        cmocka_unit_test(test_place_records_affinity),
        cmocka_unit_test(test_attempt_checked),
    };
    return cmocka_run_group_tests_name("executor", tests, NULL, NULL);
}
