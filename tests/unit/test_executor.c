/*
 * test_executor.c - the executor interface: kinds are checked, and what a
 * cell records about where it ran is this process's host, cores and devices.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/error.h"
#include "run/executor.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unknown_kind_refused),
        cmocka_unit_test(test_local_is_default),
        cmocka_unit_test(test_place_records_affinity),
    };
    return cmocka_run_group_tests_name("executor", tests, NULL, NULL);
}
