/*
 * abarm.c - the run directory of one arm of an A/B run (run/abarm.h).
 */
#include "run/abarm.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "run/depends.h"
#include "run/sysinfo.h"
#include "store/runinputs.h"

int abarm_create(struct store **st, const char *dir, const struct spec *spec, const struct matrix *plan,
                 const char *cmdline, const char *which, const char *const *with, size_t nwith,
                 const char *const *setenv, size_t nsetenv, const struct voice *voice)
{
    struct kvlist host = {0};
    struct run_inputs inputs = {0};
    int err = sysinfo_collect(&host);
    if (!err)
        err = depends_collect(&inputs, spec, plan);
    if (!err)
        err = kvlist_add(&host, "run.ab", which);
    for (size_t i = 0; !err && i < nwith; i++)
        err = kvlist_add(&host, "run.with", with[i]);
    for (size_t i = 0; !err && i < nsetenv; i++)
        err = kvlist_add(&host, "run.setenv", setenv[i]);
    if (!err)
        err = store_create(st, dir, spec, plan, &host, &inputs, cmdline, voice);
    kvlist_free(&host);
    run_inputs_free(&inputs);
    return err;
}

void abarm_dirs(const char *dir, char **a, char **b)
{
    *a = xprintf("%s/a", dir);
    *b = xprintf("%s/b", dir);
}
