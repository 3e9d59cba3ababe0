/*
 * scheduler.c - the run loop: environments, workers, store, progress (see scheduler.h).
 */
#include "run/scheduler.h"
#include "run/envs.h"
#include "base/error.h"
#include "stats/stats.h"
#include "base/util.h"
#include "runners/worker.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

struct progress {
    bool tty;
    int index, total;
    const struct cell *cell;
    double done_wall; /* seconds spent on finished cells */
    int done;
};

static void fmt_duration(double s, char *buf, size_t n)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

/* Estimated seconds left: the mean finished-cell time for each cell still
 * to come, plus what the current cell has left of that mean (a cell running
 * long says nothing yet about the others). */
static double eta(const struct progress *p, double current)
{
    if (p->done == 0)
        return -1;
    double per = p->done_wall / p->done;
    double rest = per - current;
    return per * (p->total - p->index) + (rest > 0 ? rest : 0);
}

static void tick(void *arg, const struct result *r, int64_t elapsed_ns)
{
    struct progress *p = arg;
    if (!p->tty)
        return;
    double el = elapsed_ns / 1e9;
    char e[32], t[32] = "?";
    fmt_duration(el, e, sizeof(e));
    double left = eta(p, el);
    if (left >= 0)
        fmt_duration(left, t, sizeof(t));
    const char *phase = r->ntimed ? "timed" : r->nwarmup ? "warm-up" : "starting";
    size_t n = r->ntimed ? r->ntimed : r->nwarmup;
    int of = r->ntimed ? p->cell->steps : p->cell->warmup;
    fprintf(stderr, "\r\033[K[%d/%d] %s  %s %zu/%d  %s  ETA %s", p->index, p->total, p->cell->key, phase, n, of,
            e, t);
    fflush(stderr);
}

static void print_done(const struct progress *p, const struct result *r)
{
    char line[256] = "";
    if (strcmp(r->status, "ok") == 0 && r->ntimed > 0) {
        struct stats st;
        if (stats_compute(r->timed_ns, r->ntimed, &st) == 0)
            snprintf(line, sizeof(line), "  mean %.3f ms/step, median %.3f, CV %.1f%%", st.mean, st.median,
                     st.cv * 100);
    } else if (r->detail) {
        /* First line of the reason, enough to see what happened. */
        const char *nl = strchr(r->detail, '\n');
        int len = nl ? (int)(nl - r->detail) : (int)strlen(r->detail);
        snprintf(line, sizeof(line), "  %.*s", len > 160 ? 160 : len, r->detail);
    }
    if (p->tty)
        fprintf(stderr, "\r\033[K");
    fprintf(stderr, "[%d/%d] %-40s %-11s %6.1f s%s\n", p->index, p->total, p->cell->key, r->status, r->wall_s,
            line);
}

void sched_print_plan(const struct matrix *todo, FILE *out)
{
    fprintf(out, "plan: %zu cell(s)\n", todo->ncells);
    for (size_t i = 0; i < todo->ncells; i++) {
        const struct cell *c = &todo->cells[i];
        fprintf(out, "  %3d  %-40s size=%s precision=%s steps=%d warmup=%d env=%s timeout=%gs%s%s\n", c->id,
                c->key, c->size, c->precision, c->steps, c->warmup, c->env, c->timeout,
                c->workload ? " workload=" : "", c->workload ? c->workload : "");
    }
}

static int run_one(struct store *st, const struct cell *c, struct progress *p, struct result *r)
{
    int err = 0;
    char *file = matrix_key_filename(c->key);
    char *log = file ? util_printf("%s/logs/%s.log", store_dir(st), file) : NULL;
    struct env_info env = {0};
    if (!log) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (envs_resolve(c->env, &env) < 0 || (strcmp(env.state, "ready") && strcmp(env.state, "external"))) {
        snprintf(r->status, sizeof(r->status), "skipped");
        r->detail = env.state ? util_printf("environment %s is %s: run `benchgen env sync %s`", c->env, env.state,
                                            c->env)
                              : strdup(error_last());
        r->started = r->finished = time(NULL);
    } else {
        struct worker_job job = {.cell = c, .python = env.python, .log_path = log, .home = util_home_dir()};
        if ((err = worker_run(&job, r, &stop_requested, tick, p)) < 0)
            goto done;
    }
    err = store_record(st, c, r, log);
done:
    env_info_free(&env);
    free(log);
    free(file);
    return err;
}

int sched_run(struct store *st, const struct matrix *todo, struct sched_summary *sum)
{
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    stop_requested = 0;

    memset(sum, 0, sizeof(*sum));
    struct progress p = {.tty = isatty(STDERR_FILENO), .total = (int)todo->ncells};
    int err = store_mark_started(st, time(NULL));
    for (size_t i = 0; !err && i < todo->ncells && !stop_requested; i++) {
        const struct cell *c = &todo->cells[i];
        struct result r = {0};
        p.index = (int)i + 1;
        p.cell = c;
        if (!p.tty)
            fprintf(stderr, "[%d/%d] %s: running\n", p.index, p.total, c->key);
        err = run_one(st, c, &p, &r);
        if (!err) {
            print_done(&p, &r);
            p.done++;
            p.done_wall += r.wall_s;
            sum->total++;
            if (!strcmp(r.status, "ok"))
                sum->ok++;
            else if (!strcmp(r.status, "unsupported"))
                sum->unsupported++;
            else if (!strcmp(r.status, "skipped"))
                sum->skipped++;
            else if (!strcmp(r.status, "interrupted"))
                sum->interrupted++;
            else
                sum->failed++;
        }
        result_free(&r);
    }
    if (!err && !stop_requested)
        err = store_mark_finished(st, time(NULL));
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (!err && stop_requested)
        err = error_set(BG_EINTR, "interrupted: the cell in flight was recorded as interrupted; "
                                  "continue with `benchgen run --resume %s`", store_dir(st));
    return err;
}
