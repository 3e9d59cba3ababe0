/*
 * test_ablate.c - parsing and writing the test-only BENCHGEN_ABLATE knobs
 * (runners/ablate.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "runners/ablate.h"

static void test_parse_names(void **state)
{
    (void)state;
    unsigned m = 99;
    assert_int_equal(ablate_parse(&m, NULL), 0);
    assert_int_equal(m, 0);
    assert_int_equal(ablate_parse(&m, ""), 0);
    assert_int_equal(m, 0);
    assert_int_equal(ablate_parse(&m, "pipe"), 0);
    assert_int_equal(m, ABLATE_PIPE);
    assert_int_equal(ablate_parse(&m, " cgroup , inputs-copy,tmpdir"), 0);
    assert_int_equal(m, ABLATE_CGROUP | ABLATE_INPUTS_COPY | ABLATE_TMPDIR);
    assert_int_equal(ablate_parse(&m, "sampling,sampling"), 0);
    assert_int_equal(m, ABLATE_SAMPLING);
    assert_int_equal(ablate_parse(&m, "all"), 0);
    assert_int_equal(m, ABLATE_CGROUP | ABLATE_SAMPLING | ABLATE_ENV | ABLATE_INPUTS_COPY | ABLATE_PIPE |
                            ABLATE_TMPDIR);
}

static void test_parse_refuses(void **state)
{
    (void)state;
    unsigned m = 0;
    assert_int_equal(ablate_parse(&m, "cgroup,pipes"), BG_EUSAGE);
    assert_int_equal(m, 0);
    assert_non_null(strstr(error_last(), "'pipes' is no knob"));
    assert_non_null(strstr(error_last(), "inputs-copy"));
    assert_int_equal(ablate_parse(&m, "cgroup,,env"), BG_EUSAGE);
    assert_int_equal(ablate_parse(&m, "env,"), BG_EUSAGE);
    assert_int_equal(ablate_parse(&m, "Env"), BG_EUSAGE);
    setenv(ABLATE_VAR, "env,nope", 1);
    assert_int_equal(ablate_from_env(&m), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "BENCHGEN_ABLATE: 'nope' is no knob"));
    assert_int_equal(ablate_active(), 0); /* refused as a whole */
    setenv(ABLATE_VAR, "env,pipe", 1);
    assert_int_equal(ablate_active(), ABLATE_ENV | ABLATE_PIPE);
    unsetenv(ABLATE_VAR);
    assert_int_equal(ablate_active(), 0);
}

static void test_format_round_trip(void **state)
{
    (void)state;
    char buf[128];
    unsigned m = 0, back = 0;
    ablate_format(0, buf, sizeof(buf));
    assert_string_equal(buf, "");
    assert_int_equal(ablate_parse(&m, "tmpdir,env,cgroup"), 0);
    ablate_format(m, buf, sizeof(buf));
    assert_string_equal(buf, "cgroup,env,tmpdir"); /* the order of ablate.h */
    assert_int_equal(ablate_parse(&m, "all"), 0);
    ablate_format(m, buf, sizeof(buf));
    assert_string_equal(buf, "cgroup,sampling,env,inputs-copy,pipe,tmpdir");
    assert_int_equal(ablate_parse(&back, buf), 0);
    assert_int_equal(back, m);
    ablate_format(m, buf, 10); /* too small: whole names only, never a cut one */
    assert_string_equal(buf, "cgroup");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_names),
        cmocka_unit_test(test_parse_refuses),
        cmocka_unit_test(test_format_round_trip),
    };
    return cmocka_run_group_tests_name("ablate", tests, NULL, NULL);
}
