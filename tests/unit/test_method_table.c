/*
 * test_method_table.c - the model x task table of runners/workloads/method.py
 * (what the Python workloads build) against the C catalog (what a spec may
 * ask for): the same models with the same tasks, so a spec never plans a
 * cell the workloads cannot run and the workloads never carry a task no spec
 * can reach. Runs the configured Python over method.py (it imports no
 * framework) and compares its printed table with catalog_model_at().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/catalog.h"

/* The NumPy reference model lives in workloads/numpy_ref.py, not in the
 * shared method: it is the framework-free check of the pipeline itself. */
static const char *const not_in_method[] = {"mlp", NULL};

static int skipped_model(const char *name)
{
    for (size_t i = 0; not_in_method[i]; i++)
        if (strcmp(not_in_method[i], name) == 0)
            return 1;
    return 0;
}

struct row {
    char model[64];
    unsigned tasks;
};

/* Each line "model task task ..." from method.MODEL_TASKS. */
static size_t read_table(struct row *rows, size_t cap)
{
    const char *script =
        "import sys; sys.path.insert(0, sys.argv[1]); from workloads import method\n"
        "for m, ts in sorted(method.MODEL_TASKS.items()): print(m, *ts)\n";
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "'%s' -c '%s' '%s/runners'", BENCHGEN_PYTHON, script, BENCHGEN_SOURCE_DIR);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512];
    size_t n = 0;
    while (fgets(line, sizeof(line), p) && n < cap) {
        char *save = NULL, *tok = strtok_r(line, " \n", &save);
        if (!tok)
            continue;
        snprintf(rows[n].model, sizeof(rows[n].model), "%s", tok);
        rows[n].tasks = 0;
        while ((tok = strtok_r(NULL, " \n", &save))) {
            unsigned bit = catalog_task_bit(tok);
            if (!bit)
                fail_msg("method.py: model %s has task '%s', which the catalog does not know", rows[n].model, tok);
            rows[n].tasks |= bit;
        }
        n++;
    }
    assert_int_equal(pclose(p), 0);
    return n;
}

static void test_same_models_same_tasks(void **state)
{
    (void)state;
    struct row rows[64];
    size_t n = read_table(rows, 64);
    assert_true(n > 0);
    size_t in_catalog = 0;
    for (size_t i = 0; catalog_model_at(i); i++) {
        const struct catalog_model *m = catalog_model_at(i);
        if (skipped_model(m->name))
            continue;
        in_catalog++;
        size_t k = 0;
        while (k < n && strcmp(rows[k].model, m->name) != 0)
            k++;
        if (k == n)
            fail_msg("catalog model %s is missing from method.MODEL_TASKS", m->name);
        if (rows[k].tasks != m->tasks)
            fail_msg("model %s: method.py tasks 0x%x, catalog tasks 0x%x", m->name, rows[k].tasks, m->tasks);
    }
    for (size_t k = 0; k < n; k++)
        if (!catalog_model_find(rows[k].model))
            fail_msg("method.MODEL_TASKS has model %s, which the catalog does not know", rows[k].model);
    assert_int_equal(in_catalog, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_models_same_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
