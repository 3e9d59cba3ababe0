/*
 * test_bisect.c - the state file of `benchgen bisect` (gen/bisect/
 * bisect_state.c): what bisect_save() writes, bisect_load() reads back the
 * same (so --resume continues where the search was), sequential steps'
 * rule included; a "benchgen-bisect/1" state (fixed counts, written before
 * the steps stopped sequentially) still reads, as a fixed-count bisect;
 * and a state that is missing, not a bisect, or whose step names a
 * directory outside DIR is refused without a crash. The search itself
 * runs in tests/integration/test_bisect.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "bisect/bisect.h"
#include "testutil.h"

/* A bisect of three releases after its endpoints and one skipped step. */
static struct bisect *sample(const char *dir)
{
    struct bisect *b = xcalloc(1, sizeof(*b));
    b->dir = xstrdup(dir);
    b->o.spec = xstrdup("/specs/x.yaml");
    b->o.package = xstrdup("pkg");
    b->o.good = xstrdup("1.0");
    b->o.bad = xstrdup("1.2");
    b->o.sequential = true;
    b->o.first = 4;
    b->o.cap = 12;
    b->o.effect = 0.05;
    b->o.noise = 0.1;
    b->rel.index = xstrdup("http://127.0.0.1:1/simple");
    b->rel.n = 3;
    b->rel.v = xcalloc(3, sizeof(*b->rel.v));
    const char *v[] = {"1.0", "1.1", "1.2"};
    for (size_t i = 0; i < 3; i++)
        b->rel.v[i] = (struct envs_release){xstrdup(v[i]), i != 1, xstrdup(i == 1 ? "pkg-1.1.tar.gz" : "-")};
    b->rel.nexcluded = 1;
    b->rel.excluded = xcalloc(1, sizeof(char *));
    b->rel.excluded[0] = xstrdup("1.1rc1 a pre-release");
    b->skipped = xcalloc(3, sizeof(bool));
    b->skipped[1] = true;
    b->ntargets = 1;
    b->targets = xcalloc(1, sizeof(char *));
    b->targets[0] = xstrdup("mlp/fit/b8/numpy");
    b->nsteps = 2;
    b->steps = xcalloc(2, sizeof(*b->steps));
    b->steps[0] = (struct bisect_step){.no = 0, .attempt = 1, .a = 0, .b = 2, .dir = xstrdup("00-endpoints"),
                                       .processes = 5, .noise = 0.02, .verdict = BISECT_BAD, .reason = xstrdup(""),
                                       .ratio = 1.3};
    b->steps[0].ncells = 1;
    b->steps[0].cells = xcalloc(1, sizeof(*b->steps[0].cells));
    b->steps[0].cells[0] = (struct bisect_cell){xstrdup("mlp/fit/b8/numpy"), xstrdup("slower"), 1.3, 1.2, 1.4, 5};
    b->steps[1] = (struct bisect_step){.no = 1, .attempt = 1, .a = 0, .b = 1, .dir = xstrdup(""), .processes = 5,
                                       .noise = 0.1, .verdict = BISECT_SKIP,
                                       .reason = xstrdup("environment base+pkg-1.1 cannot be built: no wheel"),
                                       .ratio = NAN};
    b->lo = 0;
    b->hi = 2;
    b->outcome = BISECT_FOUND;
    return b;
}

static char *tmpdir(void)
{
    char *d = xstrdup("/tmp/test_bisect.XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static void rm_dir(const char *d)
{
    util_rm_rf(d);
}

static void test_round_trip(void **state)
{
    (void)state;
    char *d = tmpdir();
    struct bisect *b = sample(d), *r = NULL;
    assert_int_equal(bisect_save(b), 0);
    assert_int_equal(bisect_resume(&r, d), 0);
    assert_string_equal(r->o.spec, "/specs/x.yaml");
    assert_string_equal(r->o.package, "pkg");
    assert_true(r->o.sequential);
    assert_int_equal(r->o.first, 4);
    assert_int_equal(r->o.cap, 12);
    assert_true(fabs(r->o.effect - 0.05) < 1e-12);
    assert_int_equal(r->o.processes, 0);
    assert_int_equal(r->o.max_processes, 0);
    assert_true(fabs(r->o.noise - 0.1) < 1e-12);
    assert_int_equal(r->rel.n, 3);
    assert_string_equal(r->rel.v[1].version, "1.1");
    assert_false(r->rel.v[1].wheel);
    assert_string_equal(r->rel.v[1].files, "pkg-1.1.tar.gz");
    assert_true(r->skipped[1]);
    assert_int_equal(r->rel.nexcluded, 1);
    assert_int_equal(r->ntargets, 1);
    assert_string_equal(r->targets[0], "mlp/fit/b8/numpy");
    assert_int_equal(r->nsteps, 2);
    assert_int_equal(r->steps[0].verdict, BISECT_BAD);
    assert_true(fabs(r->steps[0].ratio - 1.3) < 1e-12);
    assert_int_equal(r->steps[0].ncells, 1);
    assert_string_equal(r->steps[0].cells[0].verdict, "slower");
    assert_int_equal(r->steps[0].cells[0].processes, 5);
    assert_int_equal(r->steps[0].processes, 5);
    assert_int_equal(r->steps[1].verdict, BISECT_SKIP);
    assert_true(isnan(r->steps[1].ratio));
    assert_string_equal(r->steps[1].reason, "environment base+pkg-1.1 cannot be built: no wheel");
    assert_int_equal(r->outcome, BISECT_FOUND);
    assert_int_equal(r->lo, 0);
    assert_int_equal(r->hi, 2);

    /* the same state is the same bytes */
    char *p = xprintf("%s/%s", d, BISECT_STATE);
    char *one = test_read_text(p);
    assert_int_equal(bisect_save(r), 0);
    char *two = test_read_text(p);
    assert_string_equal(one, two);
    assert_non_null(strstr(one, "\"format\": \"benchgen-bisect/2\""));
    assert_non_null(strstr(one, "\"first_bad\": \"1.2\""));
    free(one);
    free(two);
    free(p);
    bisect_free(b);
    bisect_free(r);
    rm_dir(d);
    free(d);
}

/* A state written before the steps stopped sequentially ("benchgen-bisect/1":
 * a fixed count a side, no sequential fields) reads as a fixed-count bisect,
 * so `bisect --resume` of it goes on as it began; saved again, it is /2. */
static void test_format_1(void **state)
{
    (void)state;
    char *d = tmpdir();
    struct bisect *b = sample(d), *r = NULL;
    b->o.sequential = false;
    b->o.first = b->o.cap = 0;
    b->o.effect = 0;
    b->o.processes = 5;
    b->o.max_processes = 20;
    assert_int_equal(bisect_save(b), 0);
    /* what /1 wrote: no sequential, first, cap, effect, nor a cell's processes */
    char *p = xprintf("%s/%s", d, BISECT_STATE);
    json_error_t je;
    json_t *root = json_load_file(p, 0, &je), *opt = json_object_get(root, "options");
    assert_non_null(opt);
    assert_int_equal(json_object_set_new(root, "format", json_string("benchgen-bisect/1")), 0);
    const char *gone[] = {"sequential", "first", "cap", "effect"};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(json_object_del(opt, gone[i]), 0);
    json_t *steps = json_object_get(root, "steps");
    for (size_t i = 0; i < json_array_size(steps); i++) {
        json_t *cells = json_object_get(json_array_get(steps, i), "cells");
        for (size_t k = 0; k < json_array_size(cells); k++)
            assert_int_equal(json_object_del(json_array_get(cells, k), "processes"), 0);
    }
    assert_int_equal(json_dump_file(root, p, JSON_INDENT(2) | JSON_SORT_KEYS), 0);
    assert_int_equal(bisect_resume(&r, d), 0);
    assert_false(r->o.sequential);
    assert_int_equal(r->o.processes, 5);
    assert_int_equal(r->o.max_processes, 20);
    assert_int_equal(r->nsteps, 2);
    assert_int_equal(r->steps[0].processes, 5);
    assert_int_equal(r->steps[0].cells[0].processes, 0);
    assert_int_equal(bisect_save(r), 0);
    char *again = test_read_text(p);
    assert_non_null(strstr(again, "\"format\": \"benchgen-bisect/2\""));
    assert_non_null(strstr(again, "\"sequential\": false"));
    bisect_free(r);
    r = NULL;

    /* /1 knew no sequential steps: one that says so is not a /1 state */
    assert_int_equal(json_object_set_new(opt, "sequential", json_true()), 0);
    assert_int_equal(json_dump_file(root, p, JSON_INDENT(2) | JSON_SORT_KEYS), 0);
    assert_int_equal(bisect_resume(&r, d), BG_EDAMAGED);
    assert_null(r);
    json_decref(root);
    free(again);
    free(p);
    bisect_free(b);
    rm_dir(d);
    free(d);
}

/* Writes text as DIR's state and returns what bisect_resume() says. */
static int resume_text(const char *d, const char *text)
{
    char *p = xprintf("%s/%s", d, BISECT_STATE);
    assert_int_equal(util_write_file_atomic(p, text, strlen(text)), 0);
    free(p);
    struct bisect *r = NULL;
    int err = bisect_resume(&r, d);
    assert_null(r);
    return err;
}

static void test_refused(void **state)
{
    (void)state;
    char *d = tmpdir();
    struct bisect *r = NULL;
    assert_int_equal(bisect_resume(&r, d), BG_ENOTFOUND);
    assert_null(r);
    assert_non_null(strstr(error_last(), "holds no bisect"));
    assert_int_equal(resume_text(d, "{\"format\": \"benchgen-run/1\"}"), BG_EDAMAGED);
    assert_int_equal(resume_text(d, "{\"format\": "), BG_EDAMAGED);
    assert_int_equal(resume_text(d, "[]"), BG_EDAMAGED);

    /* a step whose directory leaves DIR, or a range that is no range */
    struct bisect *b = sample(d);
    assert_int_equal(bisect_save(b), 0);
    char *p = xprintf("%s/%s", d, BISECT_STATE), *text = test_read_text(p);
    const char *tweaks[][2] = {{"\"00-endpoints\"", "\"../../escape\""},
                               {"\"00-endpoints\"", "\"/etc\""},
                               {"\"hi\": 2", "\"hi\": 7"},
                               {"\"b\": 2", "\"b\": 99"},
                               {"\"verdict\": \"bad\"", "\"verdict\": \"maybe\""},
                               {"\"cap\": 12", "\"cap\": 2"},
                               {"\"effect\": 0.05", "\"effect\": 0"}};
    for (size_t i = 0; i < sizeof(tweaks) / sizeof(tweaks[0]); i++) {
        char *at = strstr(text, tweaks[i][0]);
        assert_non_null(at);
        char *bad = xprintf("%.*s%s%s", (int)(at - text), text, tweaks[i][1], at + strlen(tweaks[i][0]));
        assert_int_equal(resume_text(d, bad), BG_EDAMAGED);
        free(bad);
    }
    free(text);
    free(p);
    bisect_free(b);
    rm_dir(d);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_format_1),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
