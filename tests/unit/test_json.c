/*
 * test_json.c - the one JSON writer (gen/base/json.h): the rule for text that
 * is not UTF-8 (each byte that does not start a valid sequence becomes
 * U+FFFD, in values and keys), null for NULL and non-finite numbers, the
 * builders' error contract, and the written form (sorted keys, two-space
 * indentation, final newline).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/json.h"

#define FFFD "\xef\xbf\xbd"

static void clean_is(const char *in, const char *want)
{
    char *got = json_utf8_clean(in);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_utf8_rule(void **state)
{
    (void)state;
    clean_is("plain ascii", "plain ascii");
    clean_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* kept */
    clean_is("a\xff" "b", "a" FFFD "b");                        /* a byte that cannot lead */
    clean_is("\xc0\xaf", FFFD FFFD);                            /* overlong '/' */
    clean_is("\xed\xa0\x80", FFFD FFFD FFFD);                   /* a surrogate */
    clean_is("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);          /* past U+10FFFF */
    clean_is("x\xe2\x82", "x" FFFD FFFD);                       /* cut short at the end */
    clean_is("\xe2\x82x", FFFD FFFD "x");                       /* cut short by ASCII */
    clean_is("latin-1 \xe9t\xe9", "latin-1 " FFFD "t" FFFD);   /* a Latin-1 environment value */
    clean_is("", "");
}

static void test_values_and_keys(void **state)
{
    (void)state;
    int err = 0;
    json_t *o = json_object();
    json_put(o, "s", json_str("tb \xff"), &err);
    json_put(o, "n", json_str(NULL), &err);
    json_put(o, "nan", json_num(NAN), &err);
    json_put(o, "inf", json_num(INFINITY), &err);
    json_put(o, "x", json_num(1.5), &err);
    json_put(o, "VAR\xfe", json_str("v"), &err); /* a variable name that is not UTF-8 */
    json_t *a = json_array();
    json_push(a, json_str("b"), &err);
    json_push(a, json_str("a"), &err);
    json_put(o, "a", a, &err);
    assert_int_equal(err, 0);
    char *text = json_text(o);
    assert_non_null(text);
    assert_string_equal(text, "{\n"
                              "  \"VAR" FFFD "\": \"v\",\n"
                              "  \"a\": [\n    \"b\",\n    \"a\"\n  ],\n"
                              "  \"inf\": null,\n"
                              "  \"n\": null,\n"
                              "  \"nan\": null,\n"
                              "  \"s\": \"tb " FFFD "\",\n"
                              "  \"x\": 1.5\n"
                              "}\n");
    free(text);

    /* json_write gives the same bytes */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(json_write(o, f), 0);
    fclose(f);
    text = json_text(o);
    assert_string_equal(buf, text);
    free(text);
    free(buf);
    json_decref(o);
}

static void test_error_contract(void **state)
{
    (void)state;
    int err = 0;
    json_t *o = json_object(), *a = json_array();
    json_put(o, "missing", NULL, &err); /* a failed builder: the error is kept */
    assert_int_equal(err, BG_EGENERIC);
    json_put(o, "later", json_str("released, not set"), &err);
    json_push(a, json_str("released, not appended"), &err);
    assert_int_equal(err, BG_EGENERIC);
    assert_int_equal(json_object_size(o), 0);
    assert_int_equal(json_array_size(a), 0);
    json_decref(o);
    json_decref(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_rule),
        cmocka_unit_test(test_values_and_keys),
        cmocka_unit_test(test_error_contract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
