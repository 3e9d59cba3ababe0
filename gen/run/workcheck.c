/*
 * workcheck.c - `run --dry-run` loads each custom workload and checks its
 * declarations (see workcheck.h).
 */
#include "run/workcheck.h"
#include "envs/envs.h"
#include "machine/gpu.h"
#include "plan/device.h"
#include "plan/status.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"
#include "runners/worker.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most a declaration check may take: an import and two calls. */
#define WORKCHECK_TIMEOUT_S 120.0

/* One cell in declare-only mode; its result into r. log is a scratch file. */
static int check_cell(const struct cell *c, const char *log, struct result *r, char **not_checked)
{
    struct env_info env = {0};
    int err = 0;
    if (envs_resolve_for(c->env, c->backend, &env) < 0) {
        *not_checked = xstrdup(error_last());
        goto done;
    }
    if (strcmp(env.state, "ready") && strcmp(env.state, "external")) {
        *not_checked = xprintf("environment %s is %s: run `benchgen env sync %s`", c->env, env.state, c->env);
        goto done;
    }
    struct cell quick = *c; /* borrowed strings; no step runs */
    quick.steps = 0;
    quick.warmup = 0;
    if (!(quick.timeout > 0 && quick.timeout < WORKCHECK_TIMEOUT_S))
        quick.timeout = WORKCHECK_TIMEOUT_S;
    struct worker_job job = {.cell = &quick,
                             .python = env.python,
                             .prefix = (const char *const *)env.prefix,
                             .log_path = log,
                             .home = util_home_dir(),
                             .device = device_resolve(c->device, c->backend, gpu_nvml_count()),
                             .declare_only = true};
    err = worker_run(&job, r, NULL, NULL, NULL);
done:
    env_info_free(&env);
    return err;
}

int workcheck_run(const struct matrix *plan, FILE *out)
{
    size_t n = 0;
    for (size_t i = 0; i < plan->ncells; i++)
        n += plan->cells[i].workload != NULL;
    if (n == 0)
        return 0;
    const char *tmp = getenv("TMPDIR");
    char *tdir = xprintf("%s/benchgen-check.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tdir)) {
        int err = error_set(BG_EIO, "cannot create a scratch directory %s for the workload check", tdir);
        free(tdir);
        return err;
    }
    if (out)
        fprintf(out, "checking %zu custom-workload cell(s): supported() and inputs(), nothing run\n", n);
    int err = 0, failures = 0;
    char *first = NULL;
    for (size_t i = 0; i < plan->ncells && !err; i++) {
        const struct cell *c = &plan->cells[i];
        if (!c->workload)
            continue;
        char *log = xprintf("%s/cell-%zu.log", tdir, i);
        struct result r = {0};
        char *skip = NULL;
        err = check_cell(c, log, &r, &skip);
        if (!err && skip) {
            if (out)
                fprintf(out, "  %-40s not checked: %s\n", c->key, skip);
        } else if (!err && r.status == STATUS_OK) {
            if (out)
                fprintf(out, "  %-40s ok\n", c->key);
        } else if (!err && r.status == STATUS_UNSUPPORTED) {
            if (out)
                fprintf(out, "  %-40s unsupported: %s\n", c->key, r.detail ? r.detail : "no reason given");
        } else if (!err) {
            const char *d = r.detail ? r.detail : "no reason recorded";
            size_t len = strlen(d);
            while (len && (d[len - 1] == '\n' || d[len - 1] == ' '))
                len--;
            if (out)
                fprintf(out, "  %-40s %s: %.*s\n", c->key, status_name(r.status), (int)len, d);
            if (!first) {
                const char *nl = strchr(d, '\n');
                first = xprintf("%s: %.*s", c->key, (int)(nl ? (size_t)(nl - d) : strlen(d)), d);
            }
            failures++;
        }
        free(skip);
        result_free(&r);
        unlink(log);
        free(log);
    }
    util_rm_rf(tdir); /* ours: made by mkdtemp above, holding only the scratch logs */
    free(tdir);
    if (!err && failures)
        err = error_set(BG_ESPEC, "%d custom-workload cell(s) failed the declaration check (nothing was run); %s%s",
                        failures, first, failures > 1 ? " (the others above)" : "");
    free(first);
    return err;
}
