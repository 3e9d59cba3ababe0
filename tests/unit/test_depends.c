/*
 * test_depends.c - what a run records as its inputs (run/depends.h): the
 * spec and the workloads under inputs/, laid out as the spec sees them; the
 * local modules a workload imports, found through every import form the
 * header names and followed through the modules found, and nothing it does
 * not import (a commented-out import, a module named only at run time, an
 * installed module); a package whole; each with its bytes and hash.
 * Files live in a mkdtemp directory the test removes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/util.h"
#include "plan/matrix.h"
#include "plan/spec.h"
#include "run/depends.h"

static char tmp[64];

static void put(const char *rel, const char *text)
{
    char *path = util_printf("%s/%s", tmp, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    assert_int_equal(util_mkdir_p(path, 0755), 0);
    *slash = '/';
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(path);
}

static const struct run_input *find(const struct run_inputs *l, const char *path, const char *kind)
{
    const struct run_input *in = run_inputs_find(l, path);
    if (in && strcmp(in->kind, kind) != 0)
        fail_msg("%s is %s, expected %s", path, in->kind, kind);
    return in;
}

static void test_collects_spec_workload_and_local_modules(void **state)
{
    (void)state;
    snprintf(tmp, sizeof(tmp), "/tmp/test_depends-XXXXXX");
    assert_non_null(mkdtemp(tmp));
    put("proj/work/w.py", "import os, alpha as a\n"
                          "from beta.sub import thing\n"
                          "from . import gamma, delta as d\n"
                          "from .eps import x\n"
                          "def setup(cell, data):\n"
                          "    import zeta\n"
                          "# import commented\n"
                          "importlib.import_module('dynamic')\n");
    put("proj/work/alpha.py", "import chained\n");
    put("proj/work/chained.py", "X = 1\n");
    put("proj/work/beta/__init__.py", "");
    put("proj/work/beta/sub.py", "thing = 1\n");
    put("proj/work/beta/deeper/more.py", "Y = 2\n");
    put("proj/work/gamma.py", "");
    put("proj/work/delta.py", "");
    put("proj/work/eps.py", "");
    put("proj/work/zeta.py", "");
    put("proj/work/commented.py", "");
    put("proj/work/dynamic.py", "");
    put("proj/work/unrelated.py", "");
    put("proj/specs/s.yaml", "name: dep\nsteps: 1\nwarmup: 0\nbackends: [numpy]\n"
                             "rows:\n  - {model: m, task: predict, batch: 1, workload: ../work/w.py}\n");
    char *spec_path = util_printf("%s/proj/specs/s.yaml", tmp);
    struct spec *spec = NULL;
    struct matrix plan = {0};
    struct run_inputs l = {0};
    if (spec_load(&spec, spec_path) < 0 || matrix_expand(&plan, spec, NULL) < 0)
        fail_msg("%s", error_last());
    if (depends_collect(&l, spec, &plan) < 0)
        fail_msg("depends_collect: %s", error_last());

    const struct run_input *s = find(&l, "inputs/specs/s.yaml", "spec");
    assert_non_null(s);
    assert_string_equal(s->sha256, spec->sha256);
    const struct run_input *w = find(&l, "inputs/work/w.py", "workload");
    assert_non_null(w);
    char hex[65];
    char *wpath = util_printf("%s/proj/work/w.py", tmp);
    assert_int_equal(sha256_file(wpath, hex), 0);
    assert_string_equal(w->sha256, hex);
    assert_non_null(w->content);
    assert_int_equal(w->len, w->size);
    const char *modules[] = {"alpha.py", "chained.py", "beta/__init__.py", "beta/sub.py", "beta/deeper/more.py",
                             "gamma.py", "delta.py", "eps.py", "zeta.py"};
    for (size_t i = 0; i < sizeof(modules) / sizeof(*modules); i++) {
        char *p = util_printf("inputs/work/%s", modules[i]);
        if (!find(&l, p, "module"))
            fail_msg("%s not recorded", p);
        free(p);
    }
    const char *not_imported[] = {"inputs/work/commented.py", "inputs/work/dynamic.py", "inputs/work/unrelated.py"};
    for (size_t i = 0; i < sizeof(not_imported) / sizeof(*not_imported); i++)
        if (run_inputs_find(&l, not_imported[i]))
            fail_msg("%s recorded, but nothing imports it", not_imported[i]);
    for (size_t i = 1; i < l.n; i++) /* sorted by path */
        assert_true(strcmp(l.v[i - 1].path, l.v[i].path) < 0);

    run_inputs_free(&l);
    matrix_free(&plan);
    spec_free(spec);
    free(spec_path);
    free(wpath);
    util_rm_rf(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collects_spec_workload_and_local_modules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
