/*
 * executor_slurm.c - the Slurm executor: one job array, one task per cell
 * (see executor.h, slurm.h, docs/CLUSTER.md).
 *
 * start() writes RUN_DIR/cells/plan.json and RUN_DIR/cells/job.sh (which
 * execs `benchgen cell RUN_DIR $SLURM_ARRAY_TASK_ID`), submits the cells'
 * ids as one array with sbatch --parsable --requeue, and notes the job in
 * run.db (slurm.job.<id>). Array task id = cell id, so `run --resume`
 * submits just the ids left.
 *
 * next() watches the result files and squeue. A cell is done when its
 * newest attempt file holds a final status, or when Slurm has ended its
 * task (TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, CANCELLED, PREEMPTED, ...)
 * without one: then this side writes a verdict file with the status that
 * state means and Slurm's reason (scontrol) in the detail. A requeued task
 * (preemption, scontrol requeue) is not done: its `interrupted` attempt is
 * kept, and the next attempt counts. Ctrl-C stops the watching only; the
 * array keeps running, and status/collect/--resume pick it up later.
 */
#include "run/executor.h"
#include "run/cellfile.h"
#include "run/cellkey.h"
#include "run/collect.h"
#include "run/slurm.h"
#include "run/slurmrun.h"
#include "base/error.h"
#include "base/util.h"
#include "base/voice.h"
#include "base/xalloc.h"
#include "store/store_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long a task may sit in a final state before its missing result is
 * judged from Slurm's state (the file may still be on its way over NFS). */
#define GRACE_NS (3 * 1000000000LL)

struct scell {
    const struct cell *cell;
    char job[32];
    bool done, seen_running;
    int64_t final_since; /* 0: not seen in a final state yet */
};

/* squeue failing this many times in a row ends the watching (the array
 * keeps running; status/collect later). */
#define MAX_QUEUE_FAILURES 30

struct slurm {
    int queue_failures; /* in a row */
    struct scell *cells;
    size_t n, ndone;
    struct strlist jobs;
    char *run_dir; /* absolute: tasks run elsewhere */
};

static int slurm_open(struct executor *ex)
{
    const struct exec_options *o = ex->opt;
    struct slurm *s = xcalloc(1, sizeof(*s));
    ex->priv = s;
    if (o->devices)
        return error_set(BG_EUSAGE, "--devices is for the local executor; under Slurm use --gpus-per-cell N");
    if (o->gpus_per_cell < 0 || o->max_parallel < 0 || o->cpus_per_cell < 0)
        return error_set(BG_EUSAGE, "--gpus-per-cell, --cpus-per-cell and --max-parallel take positive numbers");
    static const char *const cmds[] = {"sbatch", "squeue", "scontrol", "scancel"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (!slurm_have(cmds[i]))
            return error_set(BG_EUSAGE, "--executor slurm: %s is not on PATH (run this on a Slurm login node)",
                             cmds[i]);
    return 0;
}

/* 'text' quoted for sh; an error stays in sb. */
static void sh_quote(struct strbuf *sb, const char *text)
{
    strbuf_puts(sb, "'");
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            strbuf_puts(sb, "'\\''");
        else
            strbuf_append(sb, p, 1);
    }
    strbuf_puts(sb, "'");
}

static int write_script(const char *run_dir, int max_attempts, double wait_idle, char **path_out)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return error_set(BG_EIO, "cannot find the benchgen binary (/proc/self/exe)");
    exe[n] = '\0';
    struct strbuf sb = {0};
    strbuf_puts(&sb, "#!/bin/sh\n"
                     "# One task of a benchgen Slurm array: the cell whose id is the task id.\n"
                     "# Written by `benchgen run --executor slurm`; see docs/CLUSTER.md.\n"
                     "BENCHGEN_HOME=");
    sh_quote(&sb, util_home_dir());
    strbuf_puts(&sb, "\nexport BENCHGEN_HOME\nexec ");
    sh_quote(&sb, exe);
    strbuf_puts(&sb, " cell ");
    sh_quote(&sb, run_dir);
    strbuf_printf(&sb, " \"$SLURM_ARRAY_TASK_ID\" --max-attempts %d", max_attempts);
    if (wait_idle > 0)
        strbuf_printf(&sb, " --wait-idle %g", wait_idle);
    strbuf_puts(&sb, "\n");
    char *path = xprintf("%s/cells/job.sh", run_dir);
    int err = strbuf_error(&sb);
    if (!err)
        err = util_write_file_atomic(path, sb.buf, sb.len);
    if (!err && chmod(path, 0755) < 0)
        err = error_set(BG_EIO, "chmod %s", path);
    strbuf_free(&sb);
    if (err)
        free(path);
    else
        *path_out = path;
    return err;
}

/* Minutes in a Slurm time limit ("MM", "MM:SS", "HH:MM:SS", "D-HH[:MM[:SS]]"); -1 if unknown. */
static long limit_minutes(const char *t)
{
    if (!t || !*t)
        return -1;
    long d = 0, h = 0, m = 0, sec = 0;
    const char *dash = strchr(t, '-');
    int k;
    if (dash) {
        d = atol(t);
        k = sscanf(dash + 1, "%ld:%ld:%ld", &h, &m, &sec);
        return k >= 1 ? d * 1440 + h * 60 + m : -1;
    }
    k = sscanf(t, "%ld:%ld:%ld", &h, &m, &sec);
    if (k == 1)
        return h; /* plain minutes */
    if (k == 2)
        return h + (m > 0); /* MM:SS */
    return k == 3 ? h * 60 + m : -1;
}

/* Appends one formatted argument. */
static void addf(struct strlist *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct strlist *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *v = NULL;
    if (vasprintf(&v, fmt, ap) < 0)
        xalloc_die(0);
    va_end(ap);
    strlist_add(a, v);
    free(v);
}

static void build_args(const struct exec_options *o, const struct resources *r, const char *run_dir,
                       const char *ranges, const char *name, struct strlist *a)
{
    if (o->max_parallel > 0)
        addf(a, "--array=%s%%%d", ranges, o->max_parallel);
    else
        addf(a, "--array=%s", ranges);
    addf(a, "--job-name=benchgen-%s", name);
    char *dir = slurm_pattern_escape(run_dir); /* a '%' in it is no pattern */
    addf(a, "--output=%s/logs/slurm-%%A_%%a.out", dir);
    free(dir);
    addf(a, "--open-mode=append");
    addf(a, "--requeue");
    /* The signal may come up to a minute early: only worth it for long limits. */
    if (limit_minutes(r->time) >= 10)
        addf(a, "--signal=B:USR1@90");
    if (r->partition)
        addf(a, "--partition=%s", r->partition);
    if (r->gpus > 0)
        addf(a, "--gres=gpu:%d", r->gpus);
    if (r->cpus > 0)
        addf(a, "--cpus-per-task=%d", r->cpus);
    if (r->mem)
        addf(a, "--mem=%s", r->mem);
    if (r->time)
        addf(a, "--time=%s", r->time);
    for (size_t i = 0; i < o->nsbatch_args; i++)
        addf(a, "%s", o->sbatch_args[i]);
}

/* Cells that ask for the same resources go in one array. */
struct group {
    struct resources res;
    int *ids;
    size_t n;
};

/* The resources cell c gets: the spec's (plan.json), then the command line's. */
static int cell_resources(const struct exec_options *o, const struct matrix *plan, int id, struct resources *out)
{
    struct resources cli = {.partition = (char *)o->partition,
                            .gpus = o->gpus_per_cell,
                            .cpus = o->cpus_per_cell,
                            .mem = (char *)o->mem,
                            .time = (char *)o->time_limit};
    memset(out, 0, sizeof(*out));
    int err = resources_overlay(out, &cli);
    for (size_t i = 0; !err && i < plan->ncells; i++)
        if (plan->cells[i].id == id)
            err = resources_overlay(out, &plan->cells[i].res);
    return err;
}

static int submit_group(struct executor *ex, struct slurm *s, const struct group *g, char job[32])
{
    struct strlist args = {0};
    char *ranges = slurm_ranges(g->ids, g->n), *note_key = NULL, *note = NULL, *script = NULL;
    const char *base = strrchr(s->run_dir, '/');
    int err = write_script(s->run_dir, ex->opt->max_attempts > 0 ? ex->opt->max_attempts : 3, ex->opt->wait_idle,
                           &script);
    build_args(ex->opt, &g->res, s->run_dir, ranges, base ? base + 1 : s->run_dir, &args);
    /* The array's tasks get the submission's private key through sbatch's
     * environment only; run.db keeps the public half per cell (cellkey.h). */
    char priv[CELLKEY_HEX], pub[CELLKEY_HEX];
    if (!err)
        err = cellkey_new(priv, pub);
    if (!err) {
        setenv(CELLKEY_ENV, priv, 1);
        err = slurm_submit(&args, script, job);
        unsetenv(CELLKEY_ENV);
        cellkey_wipe(priv, sizeof(priv));
    }
    for (size_t i = 0; !err && i < g->n; i++) {
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "s%s_%d.", job, g->ids[i]);
        err = store_issue(ex->st, g->ids[i], prefix, pub);
    }
    char when[32];
    util_iso8601_utc(time(NULL), when);
    if (!err) {
        note_key = xprintf("slurm.job.%s", job);
        note = xprintf("cells=%s submitted=%s", ranges, when);
        err = store_note_run(ex->st, note_key, note);
    }
    if (!err)
        strlist_add(&s->jobs, job);
    strlist_free(&args);
    free(ranges);
    free(note_key);
    free(note);
    free(script);
    return err;
}

static int slurm_start(struct executor *ex, const struct matrix *todo)
{
    struct slurm *s = ex->priv;
    struct matrix plan = {0};
    struct group *groups = NULL;
    size_t ngroups = 0;
    int err = 0;
    if (todo->ncells == 0)
        return 0;
    if (!(s->run_dir = util_realpath(store_dir(ex->st))))
        return error_set(BG_EIO, "%s: cannot resolve the run directory", store_dir(ex->st));
    if ((err = slurm_check_dir(s->run_dir)) < 0)
        return err;
    if ((err = cellfile_ensure_plan(s->run_dir, ex->st)) < 0 || (err = cellfile_read_plan(s->run_dir, &plan)) < 0)
        goto done;
    s->cells = xcalloc(todo->ncells, sizeof(*s->cells));
    groups = xcalloc(todo->ncells, sizeof(*groups));
    s->n = todo->ncells;
    for (size_t i = 0; !err && i < todo->ncells; i++) {
        struct resources r;
        s->cells[i].cell = &todo->cells[i];
        if ((err = cell_resources(ex->opt, &plan, todo->cells[i].id, &r)) < 0)
            break;
        size_t g = 0;
        while (g < ngroups && !resources_equal(&groups[g].res, &r))
            g++;
        if (g == ngroups) {
            groups[ngroups++].res = r;
            groups[g].ids = xcalloc(todo->ncells, sizeof(int));
        } else {
            resources_free(&r);
        }
        groups[g].ids[groups[g].n++] = todo->cells[i].id;
    }
    struct strbuf jobs = {0};
    for (size_t g = 0; !err && g < ngroups; g++) {
        char job[32];
        if ((err = submit_group(ex, s, &groups[g], job)) < 0)
            break;
        for (size_t i = 0; i < s->n; i++)
            for (size_t k = 0; k < groups[g].n; k++)
                if (groups[g].ids[k] == s->cells[i].cell->id)
                    snprintf(s->cells[i].job, sizeof(s->cells[i].job), "%s", job);
        strbuf_printf(&jobs, "%s%s", g ? "," : "", job);
    }
    if (jobs.len)
        snprintf(ex->submitted, sizeof(ex->submitted), "%s", jobs.buf);
    strbuf_free(&jobs);
done:
    for (size_t g = 0; g < ngroups; g++) {
        resources_free(&groups[g].res);
        free(groups[g].ids);
    }
    free(groups);
    matrix_free(&plan);
    return err;
}

/* ---- watching ---------------------------------------------------------------- */

/* Decides whether cell sc is done now; writes a verdict when Slurm ended its
 * task without a final result. q is the queue (NULL: not asked this round). */
static int judge(struct executor *ex, struct slurm *s, struct scell *sc, const struct slurm_tasks *q)
{
    char tag[128];
    enum status st;
    int err = slurmrun_newest(ex->st, sc->cell, true, tag, &st);
    if (err < 0 || slurmrun_status_final(st)) {
        sc->done = err == 0;
        return err;
    }
    if (!q)
        return 0;
    const struct slurm_task *t = slurm_find(q, sc->job, sc->cell->id);
    if (t && !strcmp(t->state, "RUNNING") && !sc->seen_running) {
        sc->seen_running = true;
        if (ex->hooks.started) {
            char where[192];
            snprintf(where, sizeof(where), "node %s (job %s_%d)", t->node, sc->job, sc->cell->id);
            ex->hooks.started(ex->hooks.arg, sc->cell, where);
        }
    }
    if (t && !slurm_state_final(t->state)) {
        sc->final_since = 0;
        return 0;
    }
    int64_t now = util_now_ns();
    if (!sc->final_since) {
        sc->final_since = now;
        return 0;
    }
    if (now - sc->final_since < GRACE_NS)
        return 0;
    /* Ended without a final result of its own. A task that ended COMPLETED
     * or FAILED after recording `interrupted` (a stray SIGTERM) keeps it. */
    if (!t || !st || slurm_state_status(t->state) != STATUS_ERROR)
        err = slurmrun_verdict(s->run_dir, sc->cell, sc->job, t, tag, st);
    sc->done = err == 0;
    return err;
}

static int fill_event(struct executor *ex, struct slurm *s, struct scell *sc, struct exec_event *ev)
{
    char tag[128];
    ev->cell = sc->cell;
    int err = collect_read(ex->st, sc->cell, true, &ev->result, tag, &ev->files, &ev->tags, &ev->statuses, NULL);
    if (!err)
        ev->log_path = executor_log_path(s->run_dir, sc->cell);
    if (err < 0)
        exec_event_free(ev);
    return err;
}

static void report_state(struct executor *ex, struct slurm *s, const struct slurm_tasks *q)
{
    if (!ex->hooks.state)
        return;
    size_t pending = 0, running = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->cells[i].done)
            continue;
        const struct slurm_task *t = slurm_find(q, s->cells[i].job, s->cells[i].cell->id);
        if (t && !strcmp(t->state, "RUNNING"))
            running++;
        else if (t && !slurm_state_final(t->state))
            pending++;
    }
    char line[160];
    snprintf(line, sizeof(line), "Slurm job%s %s%s: %zu running, %zu queued", s->jobs.n > 1 ? "s" : "",
             s->jobs.n ? s->jobs.v[0] : "?", s->jobs.n > 1 ? ",..." : "", running, pending);
    ex->hooks.state(ex->hooks.arg, line);
}

static int slurm_next(struct executor *ex, struct exec_event *ev)
{
    struct slurm *s = ex->priv;
    /* BENCHGEN_SLURM_POLL_MS: how often to look (tests use a short one). */
    const char *env = getenv("BENCHGEN_SLURM_POLL_MS");
    int poll_ms = ex->opt->poll_ms > 0 ? ex->opt->poll_ms : env && atoi(env) > 0 ? atoi(env) : 2000;
    memset(ev, 0, sizeof(*ev));
    for (;;) {
        /* Done cells first, one per call. */
        for (size_t i = 0; i < s->n; i++) {
            struct scell *sc = &s->cells[i];
            if (sc->done && sc->cell) {
                int err = fill_event(ex, s, sc, ev);
                sc->cell = NULL; /* handed back */
                s->ndone++;
                return err < 0 ? err : 1;
            }
        }
        if (s->ndone == s->n)
            return 0;
        if (ex->stop && *ex->stop)
            return error_set(BG_EINTR,
                             "stopped watching; Slurm job(s) %s keep running. Later: `benchgen status %s`, "
                             "`benchgen collect %s`; `scancel` stops them",
                             ex->submitted, s->run_dir, s->run_dir);
        struct slurm_tasks q = {0};
        int err = slurm_queue(&s->jobs, &q);
        if (err < 0 && ++s->queue_failures < MAX_QUEUE_FAILURES) {
            /* A busy or restarting slurmctld: keep watching the files. */
            voice_warn(store_voice(ex->st), "slurm", NULL, "%s (attempt %d of %d; still watching)", error_last(),
                       s->queue_failures, MAX_QUEUE_FAILURES);
            err = 0;
            for (size_t i = 0; !err && i < s->n; i++)
                if (s->cells[i].cell && !s->cells[i].done)
                    err = judge(ex, s, &s->cells[i], NULL);
        } else if (err == 0) {
            s->queue_failures = 0;
            for (size_t i = 0; !err && i < s->n; i++)
                if (s->cells[i].cell && !s->cells[i].done)
                    err = judge(ex, s, &s->cells[i], &q);
        }
        if (!err)
            report_state(ex, s, &q);
        slurm_tasks_free(&q);
        if (err < 0)
            return err;
        bool any = false;
        for (size_t i = 0; i < s->n && !any; i++)
            any = s->cells[i].done && s->cells[i].cell;
        if (!any) {
            struct timespec nap = {poll_ms / 1000, (poll_ms % 1000) * 1000000L};
            nanosleep(&nap, NULL);
        }
    }
}

static void slurm_close(struct executor *ex)
{
    struct slurm *s = ex->priv;
    if (!s)
        return;
    free(s->cells);
    strlist_free(&s->jobs);
    free(s->run_dir);
    free(s);
    ex->priv = NULL;
}

/* slurm_open() changes nothing in this process: the same checks. */
static int slurm_check(const struct exec_options *opt)
{
    struct executor ex = {.opt = opt};
    int err = slurm_open(&ex);
    slurm_close(&ex);
    return err;
}

const struct executor_ops executor_slurm_ops = {
    .name = "slurm",
    .open = slurm_open,
    .check = slurm_check,
    .start = slurm_start,
    .next = slurm_next,
    .close = slurm_close,
};
