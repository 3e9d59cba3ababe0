/*
 * test_executor.c - the executor interface: kinds are checked, and what a
 * cell records about where it ran is this process's host, cores and devices;
 * attempt files carry the status by name and a name that is no status is
 * refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/error.h"
#include "run/cellfile.h"
#include "run/executor.h"

#include <ftw.h>
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

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

/* An attempt file keeps the status; one whose status is not a status name is
 * refused when read and skipped when listed. */
static void test_attempt_status(void **state)
{
    (void)state;
    char dir[] = "/tmp/benchgen-test-attempt-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct cell c = {.id = 4, .key = "bert/fit/b1/torch-eager"};
    struct result r = {0};
    r.status = STATUS_TIMEOUT;
    assert_int_equal(cellfile_write_attempt(dir, &c, "t1", 0, &r), 0);

    struct cellfile_attempts a = {0};
    assert_int_equal(cellfile_list_attempts(dir, c.id, &a), 0);
    assert_int_equal(a.n, 1);
    assert_int_equal(a.v[0].status, STATUS_TIMEOUT);
    struct result back = {0};
    assert_int_equal(cellfile_read_attempt(dir, &c, a.v[0].name, &back), 0);
    assert_int_equal(back.status, STATUS_TIMEOUT);
    result_free(&back);

    /* "timeout" -> "timed out": no status of benchgen's. */
    char path[256], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof(path), "%s/cells/4/%s", dir, a.v[0].name);
    assert_int_equal(util_read_file(path, &text, &len), 0);
    char *at = strstr(text, "\"timeout\"");
    assert_non_null(at);
    char *edited = util_printf("%.*s\"timed out\"%s", (int)(at - text), text, at + strlen("\"timeout\""));
    assert_int_equal(util_write_file_atomic(path, edited, strlen(edited)), 0);
    memset(&back, 0, sizeof(back));
    assert_int_equal(cellfile_read_attempt(dir, &c, a.v[0].name, &back), BG_EIO);
    assert_non_null(strstr(error_last(), "unknown status 'timed out'"));
    result_free(&back);
    cellfile_attempts_free(&a);
    assert_int_equal(cellfile_list_attempts(dir, c.id, &a), 0);
    assert_int_equal(a.n, 0);
    cellfile_attempts_free(&a);
    free(text);
    free(edited);
    assert_int_equal(nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_kind_refused),
        cmocka_unit_test(test_local_is_default),
        cmocka_unit_test(test_place_records_affinity),
        cmocka_unit_test(test_attempt_status),
    };
    return cmocka_run_group_tests_name("executor", tests, NULL, NULL);
}
