/*
 * cellrun.c - one cell of a run, run here, its result written as a file
 * (see cellrun.h).
 */
#include "run/cellrun.h"
#include "run/cellfile.h"
#include "run/executor.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"

#include <signal.h>
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
        why = xprintf("stopped by SIG%s%s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
                          getenv("SLURM_JOB_ID") ? " (Slurm preemption, requeue or scancel)" : "");
    }
    free(r->detail);
    r->detail = why;
}

int cellrun(const char *run_dir, int id, const struct cellrun_options *o, enum status *status)
{
    struct matrix plan = {0};
    struct result r = {0};
    char *tag = NULL, *log = NULL;
    const struct cell *c = NULL;
    int restart = 0, max = o && o->max_attempts > 0 ? o->max_attempts : CELLRUN_MAX_ATTEMPTS;
    int err = cellfile_read_plan(run_dir, &plan);
    *status = STATUS_NONE;
    if (err < 0)
        goto done;
    for (size_t i = 0; i < plan.ncells && !c; i++)
        if (plan.cells[i].id == id)
            c = &plan.cells[i];
    if (!c) {
        err = error_set(BG_ENOTFOUND, "%s: the plan has no cell %d", run_dir, id);
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
        err = executor_run_cell(c, log, &stop_flag, NULL, &r);
        if (!err)
            judge_signal(&r, stop_signal);
    }
    if (!err)
        err = cellfile_write_attempt(run_dir, c, tag, 0, &r);
    if (!err)
        *status = r.status;
done:
    result_free(&r);
    matrix_free(&plan);
    free(tag);
    free(log);
    return err;
}
