/*
 * cellrun.c - one cell of a run, run here, its result written as a file
 * (see cellrun.h).
 */
#include "run/cellrun.h"
#include "run/cellfile.h"
#include "run/cellkey.h"
#include "run/executor.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"

#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
    stop_flag = 1;
}

/* s<array job>_<task>.<restart> under Slurm, l<ns>.<pid> elsewhere. */
static char *attempt_tag(int *restart)
{
    const char *array = getenv("SLURM_ARRAY_JOB_ID"), *task = getenv("SLURM_ARRAY_TASK_ID");
    const char *job = getenv("SLURM_JOB_ID"), *rc = getenv("SLURM_RESTART_COUNT");
    *restart = rc ? atoi(rc) : 0;
    if (array && task)
        return xprintf("s%s_%s.%d", array, task, *restart);
    if (job)
        return xprintf("s%s.%d", job, *restart);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return xprintf("l%lld%09ld.%ld", (long long)ts.tv_sec, ts.tv_nsec, (long)getpid());
}

/* What the stop signal means for a cell the worker killed. */
static void judge_signal(struct result *r, int sig)
{
    if (!sig)
        return;
    bool killed = r->status == STATUS_INTERRUPTED || (r->status == STATUS_CRASH && r->term_signal == sig);
    if (!killed)
        return;
    char *why;
    if (sig == SIGUSR1) {
        r->status = STATUS_TIMEOUT;
        why = xstrdup("killed at the Slurm job's time limit (--time): the task got SIGUSR1 from sbatch --signal");
    } else {
        r->status = STATUS_INTERRUPTED;
        why = xprintf("stopped by SIG%s%s", util_signal_name(sig) ? util_signal_name(sig) : "?",
                          getenv("SLURM_JOB_ID") ? " (Slurm preemption, requeue or scancel)" : "");
    }
    free(r->detail);
    r->detail = why;
}

/* Takes the attempt's key out of the environment (nothing started from
 * here inherits it) and makes this process undumpable, so no other process
 * of the user's, a workload of another cell included, can read it from
 * /proc; NULL when there is none. */
static char *take_key(void)
{
    const char *k = getenv(CELLKEY_ENV);
    char *key = k ? xstrdup(k) : NULL;
    if (k) {
        cellkey_wipe((char *)k, strlen(k));
        unsetenv(CELLKEY_ENV);
    }
    prctl(PR_SET_DUMPABLE, 0);
    return key;
}

static const struct cell *find_cell(const struct matrix *plan, int id)
{
    for (size_t i = 0; i < plan->ncells; i++)
        if (plan->cells[i].id == id)
            return &plan->cells[i];
    return NULL;
}

/* The cell as run.db's plan has it, which is what runs; cells/plan.json
 * (anyone who can write the run directory can edit it) only adds the
 * cluster resources and log limit, and must agree on everything else. */
static int load_cell(const char *run_dir, int id, struct matrix *db, struct matrix *file, struct cell **out)
{
    struct store *st = NULL;
    int err = cellfile_read_plan(run_dir, file);
    if (!err && (err = store_open(&st, run_dir, true)) == 0)
        err = store_load_plan(st, db);
    store_close(st);
    if (err < 0)
        return err;
    struct cell *c = (struct cell *)find_cell(db, id);
    const struct cell *f = find_cell(file, id);
    if (!c)
        return error_set(BG_ENOTFOUND, "%s: the plan has no cell %d", run_dir, id);
    if (!f)
        return error_set(BG_EUSAGE, "%s/cells/plan.json has no cell %d, run.db's plan has %s", run_dir, id, c->key);
    struct {
        const char *name;
        bool same;
    } fields[] = {
        {"key", !strcmp(c->key, f->key)},
        {"model", !strcmp(c->model, f->model)},
        {"task", !strcmp(c->task, f->task)},
        {"backend", !strcmp(c->backend, f->backend)},
        {"env", !strcmp(c->env, f->env)},
        {"size", !strcmp(c->size ? c->size : "", f->size ? f->size : "")},
        {"precision", !strcmp(c->precision ? c->precision : "", f->precision ? f->precision : "")},
        {"workload", !strcmp(c->workload ? c->workload : "", f->workload ? f->workload : "")},
        {"method", !strcmp(c->method ? c->method : "", f->method ? f->method : "")},
        {"batch", c->batch == f->batch},
        {"steps", c->steps == f->steps},
        {"warmup", c->warmup == f->warmup},
        {"repeat", c->repeat == f->repeat},
        {"seed", c->seed == f->seed},
        {"timeout_s", c->timeout == f->timeout},
        {"memory_limit", c->memory_limit == f->memory_limit},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
        if (!fields[i].same)
            return error_set(BG_EUSAGE,
                             "%s/cells/plan.json: cell %d's %s differs from the plan in run.db (%s); refusing to "
                             "run it (the run's plan is run.db's, not a file a cell can write)",
                             run_dir, id, fields[i].name, c->key);
    resources_free(&c->res);
    if ((err = resources_overlay(&c->res, &f->res)) < 0)
        return err;
    c->log_limit = f->log_limit;
    *out = c;
    return 0;
}

int cellrun(const char *run_dir, int id, const struct cellrun_options *o, enum status *status)
{
    struct matrix plan = {0}, file = {0};
    struct result r = {0};
    char *tag = NULL, *log = NULL, *key = take_key();
    struct cell *c = NULL;
    int restart = 0, max = o && o->max_attempts > 0 ? o->max_attempts : CELLRUN_MAX_ATTEMPTS;
    int err = load_cell(run_dir, id, &plan, &file, &c);
    *status = STATUS_NONE;
    if (err < 0)
        goto done;
    if (!key) {
        err = error_set(BG_EUSAGE,
                        "no attempt key (%s): `benchgen cell` runs the attempts `benchgen run` starts (--devices, "
                        "--cpus-per-cell, --executor slurm); a result without one would not be merged",
                        CELLKEY_ENV);
        goto done;
    }
    tag = o && o->tag ? xstrdup(o->tag) : attempt_tag(&restart);
    log = executor_log_path(run_dir, c);
    const char *cpus = getenv("SLURM_CPUS_PER_TASK");
    if (cpus && atoi(cpus) > 0)
        executor_set_threads(atoi(cpus), false);

    if (restart + 1 > max) {
        r.status = STATUS_INTERRUPTED;
        r.detail = xprintf("not run again: Slurm started this task %d times (--max-attempts %d); "
                               "`benchgen run --resume %s` tries it afresh",
                               restart + 1, max, run_dir);
        r.started = r.finished = time(NULL);
        err = executor_note_place(&r);
    } else {
        struct sigaction sa = {0};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGUSR1};
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
            sigaction(sigs[i], &sa, NULL);
        err = executor_run_cell(c, log, NULL, &stop_flag, NULL, o ? o->wait_idle : 0, &r);
        if (!err)
            judge_signal(&r, stop_signal);
    }
    if (!err)
        err = cellfile_write_attempt(run_dir, c, tag, 0, &r, key);
    if (!err)
        *status = r.status;
done:
    result_free(&r);
    matrix_free(&plan);
    matrix_free(&file);
    if (key)
        cellkey_wipe(key, strlen(key));
    free(key);
    free(tag);
    free(log);
    return err;
}
