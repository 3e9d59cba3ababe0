/*
 * scheduler.c - the run loop: an executor starts cells, the store records them,
 * progress is printed (see scheduler.h).
 */
#include "run/scheduler.h"
#include "plan/catalog.h"
#include "plan/status.h"
#include "run/abseq.h"
#include "run/executor.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "stats/stats.h"
#include "store/store_record.h"
#include "base/util.h"
#include "base/voice.h"

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
    const struct voice *voice; /* who hears the run (the store's, store_voice()) */
    int index, total;
    const struct cell *cell;
    double done_wall; /* seconds spent on finished cells */
    int done;
    double typical_all, typical_done; /* the catalog's first guesses: every cell, the finished ones */
};

/* Estimated seconds left: the catalog's typical duration of each cell still
 * to come (catalog_typical_seconds()), scaled by how long the finished cells
 * took against their typical durations (1 before any finished), plus what
 * the current cell has left of its own estimate (a cell running long says
 * nothing yet about the others). */
static double eta(const struct progress *p, double current)
{
    if (p->typical_all <= 0)
        return -1;
    double scale = p->done && p->typical_done > 0 ? p->done_wall / p->typical_done : 1.0;
    double cur = p->cell ? catalog_typical_seconds(p->cell->model, p->cell->size) : 0;
    double others = p->typical_all - p->typical_done - cur;
    double rest = cur * scale - current;
    return (others > 0 ? others : 0) * scale + (rest > 0 ? rest : 0);
}

/* What the cell is doing, from the markers it reached: starting, importing,
 * inputs (making them), building, warmup K/N, timed K/N (the step running
 * now, 1-based). */
static void phase_of(struct voice_event *ev, const struct result *r, const struct cell *c)
{
    if (r->ntimed || kvlist_get(&r->phases, "timed")) {
        ev->phase = "timed";
        ev->step = (int)(r->ntimed < (size_t)c->steps ? r->ntimed + 1 : r->ntimed);
        ev->steps = c->steps;
    } else if (r->nwarmup || kvlist_get(&r->phases, "warmup") || kvlist_get(&r->phases, "setup")) {
        ev->phase = "warmup";
        ev->step = (int)(r->nwarmup < (size_t)c->warmup ? r->nwarmup + 1 : r->nwarmup);
        ev->steps = c->warmup;
    } else if (kvlist_get(&r->phases, "inputs")) {
        ev->phase = "building";
    } else if (kvlist_get(&r->phases, "import")) {
        ev->phase = "inputs";
    } else if (kvlist_get(&r->phases, "python")) {
        ev->phase = "importing";
    } else {
        ev->phase = "starting";
    }
}

static void tick(void *arg, const struct result *r, int64_t elapsed_ns)
{
    struct progress *p = arg;
    if (!voice_on(p->voice))
        return;
    struct voice_event ev = {.kind = VOICE_CELL_PHASE, .level = VOICE_PROGRESS, .topic = "run",
                             .cell = p->cell->key, .index = p->index, .total = p->total, .done = p->done};
    ev.elapsed_s = elapsed_ns / 1e9;
    ev.eta_s = eta(p, ev.elapsed_s);
    phase_of(&ev, r, p->cell);
    voice_emit(p->voice, &ev);
}

static bool failed(enum status s)
{
    return s == STATUS_ERROR || s == STATUS_CRASH || s == STATUS_TIMEOUT || s == STATUS_OOM;
}

/* A cell's line: its status and time, then its timings, or the first line
 * of its reason (for a Python exception "what failed: Type: message") and,
 * when it failed, where its log is. */
static void say_done(const struct progress *p, const struct result *r, const char *log_path)
{
    if (!voice_on(p->voice))
        return;
    char line[640] = "";
    struct voice_event ev = {.kind = VOICE_CELL_END, .level = VOICE_NOTE, .topic = "run", .cell = p->cell->key,
                             .index = p->index, .total = p->total, .done = p->done + 1,
                             .status = status_name(r->status), .wall_s = r->wall_s, .text = line};
    if (r->status == STATUS_OK && r->ntimed > 0) {
        struct stats st;
        if (stats_compute(r->timed_ns, r->ntimed, &st) == 0) {
            snprintf(line, sizeof(line), "mean %.3f ms/step, median %.3f, CV %.1f%%", st.mean, st.median,
                     st.cv * 100);
            ev.has_stats = true;
            ev.mean_ms = st.mean;
            ev.median_ms = st.median;
            ev.cv = st.cv;
        }
    } else if (r->detail) {
        /* First line of the reason, enough to see what happened. */
        const char *nl = strchr(r->detail, '\n');
        int len = nl ? (int)(nl - r->detail) : (int)strlen(r->detail);
        snprintf(line, sizeof(line), "%.*s", len > 480 ? 480 : len, r->detail);
    }
    if (failed(r->status) && log_path)
        ev.log = log_path;
    voice_emit(p->voice, &ev);
}

/* A run's progress before its first cell: the ETA's first guess is the sum
 * of the catalog's typical durations of every cell in todo. */
static void progress_init(struct progress *p, const struct matrix *todo, const struct voice *voice)
{
    *p = (struct progress){.voice = voice, .total = (int)todo->ncells};
    for (size_t i = 0; i < todo->ncells; i++)
        p->typical_all += catalog_typical_seconds(todo->cells[i].model, todo->cells[i].size);
}

/* A cell came back: its line, and what it teaches the ETA (its wall time
 * against its typical duration). */
static void progress_cell_done(struct progress *p, const struct cell *c, const struct result *r,
                               const char *log_path)
{
    p->cell = c;
    say_done(p, r, log_path);
    p->done++;
    p->done_wall += r->wall_s;
    p->typical_done += catalog_typical_seconds(c->model, c->size);
}

void sched_print_plan(const struct matrix *todo, FILE *out)
{
    fprintf(out, "plan: %zu cell(s)\n", todo->ncells);
    for (size_t i = 0; i < todo->ncells; i++) {
        const struct cell *c = &todo->cells[i];
        fprintf(out, "  %3d  %-40s size=%s precision=%s steps=%d warmup=%d env=%s method=%s timeout=%gs%s%s\n",
                c->id, c->key, c->size, c->precision, c->steps, c->warmup, c->env,
                c->method ? c->method : "corrected", c->timeout,
                c->workload ? " workload=" : "", c->workload ? c->workload : "");
    }
}

void sched_print_plan_arms(const struct matrix *todo, const unsigned char *arm, bool upto, FILE *out)
{
    if (!arm) {
        sched_print_plan(todo, out);
        return;
    }
    fprintf(out, "interleaved A/B plan: %s%zu process(es), A and B in ABBA order\n", upto ? "up to " : "",
            todo->ncells);
    for (size_t i = 0; i < todo->ncells; i++)
        fprintf(out, "  %4zu  %c  %-40s env=%s\n", i + 1, arm[i] ? 'B' : 'A', todo->cells[i].key, todo->cells[i].env);
}

/* The executor's hooks: a cell starts, a cell ticks. */
static void on_started(void *arg, const struct cell *c, const char *where)
{
    struct progress *p = arg;
    p->index++;
    p->cell = c;
    struct voice_event ev = {.kind = VOICE_CELL_START, .level = VOICE_PROGRESS, .topic = "run", .cell = c->key,
                             .index = p->index, .total = p->total, .done = p->done, .where = where};
    voice_emit(p->voice, &ev);
}

static void on_state(void *arg, const char *line)
{
    struct progress *p = arg;
    struct voice_event ev = {.kind = VOICE_RUN_STATE, .level = VOICE_PROGRESS, .topic = "run", .text = line,
                             .done = p->done, .total = p->total};
    voice_emit(p->voice, &ev);
}

/* One result into run.db: merged from its attempt files, or recorded. */
static int record(struct store *st, const struct exec_event *ev)
{
    if (ev->files.n == 0)
        return store_record(st, ev->cell, &ev->result, ev->log_path);
    int merged;
    return store_merge(st, ev->cell, &ev->result, ev->log_path, (const char *const *)ev->files.v,
                       (const char *const *)ev->tags.v, (const char *const *)ev->statuses.v, ev->files.n, &merged);
}

static void on_tick(void *arg, const struct cell *c, const struct result *r, int64_t elapsed_ns)
{
    struct progress *p = arg;
    p->cell = c;
    tick(p, r, elapsed_ns);
}

static void count(struct sched_summary *sum, enum status status)
{
    sum->total++;
    switch (status) {
    case STATUS_OK: sum->ok++; break;
    case STATUS_UNSUPPORTED: sum->unsupported++; break;
    case STATUS_SKIPPED: sum->skipped++; break;
    case STATUS_INTERRUPTED: sum->interrupted++; break;
    default: sum->failed++; break;
    }
}

/* SIGINT and SIGTERM ask the run to stop (on_stop); OLD keeps the caller's
 * handlers for stop_handlers_restore(). */
static void stop_handlers_install(struct sigaction old[2])
{
    struct sigaction sa = {0};
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old[0]);
    sigaction(SIGTERM, &sa, &old[1]);
    stop_requested = 0;
}

static void stop_handlers_restore(const struct sigaction old[2])
{
    sigaction(SIGINT, &old[0], NULL);
    sigaction(SIGTERM, &old[1], NULL);
}

int sched_run(struct store *st, const struct matrix *todo, const struct exec_options *eo,
              struct sched_summary *sum)
{
    struct sigaction old[2];
    stop_handlers_install(old);

    memset(sum, 0, sizeof(*sum));
    struct progress p;
    progress_init(&p, todo, store_voice(st));
    struct exec_hooks hooks = {.tick = on_tick, .started = on_started, .state = on_state, .arg = &p};
    struct executor ex;
    int err = executor_open(&ex, eo, st, &stop_requested, &hooks);
    bool opened = err == 0;
    if (!err)
        err = store_mark_started(st, time(NULL));
    if (!err)
        err = ex.ops->start(&ex, todo);
    if (!err && *ex.submitted) {
        snprintf(sum->submitted, sizeof(sum->submitted), "%s", ex.submitted);
        voice_note(p.voice, "run", NULL, "submitted %zu cell(s) to %s job %s", todo->ncells, ex.ops->name,
                   ex.submitted);
    }
    bool wait = !(eo && eo->no_wait);
    while (!err && wait) {
        struct exec_event ev;
        int got = ex.ops->next(&ex, &ev);
        if (got <= 0) {
            err = got;
            break;
        }
        p.cell = ev.cell;
        err = record(st, &ev);
        if (!err) {
            progress_cell_done(&p, ev.cell, &ev.result, ev.log_path);
            count(sum, ev.result.status);
        }
        exec_event_free(&ev);
    }
    if (opened)
        ex.ops->close(&ex);
    if (!err && !stop_requested && wait)
        err = store_mark_finished(st, time(NULL));
    stop_handlers_restore(old);
    if (!err && stop_requested)
        err = error_set(BG_EINTR, "interrupted: the cell in flight was recorded as interrupted; "
                                  "continue with `benchgen run --resume %s`", store_dir(st));
    return err;
}

/* Sets (restore 0) or restores (restore 1) an arm's variables; saved[] keeps
 * the old values (NULL: was unset). */
static void arm_env(const struct sched_arm *a, char **saved, int restore)
{
    for (size_t i = 0; i < a->nsetenv; i++) {
        const char *eq = strchr(a->setenv[i], '=');
        char name[256];
        if (!eq || (size_t)(eq - a->setenv[i]) >= sizeof(name))
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(eq - a->setenv[i]), a->setenv[i]);
        if (!restore) {
            const char *old = getenv(name);
            saved[i] = old ? xstrdup(old) : NULL;
            setenv(name, eq + 1, 1);
        } else {
            if (saved[i])
                setenv(name, saved[i], 1);
            else
                unsetenv(name);
            free(saved[i]);
            saved[i] = NULL;
        }
    }
}

#define SCHED_ARM_MAX_ENV 64

/* ---- an arm's compile caches ------------------------------------------------ */

/* Where an arm keeps its compile caches: RUN_DIR/compile-cache, made by the
 * first process that needs it (runners/worker.c) and removed by
 * arm_caches_remove() when the A/B run ends. owned is false when the
 * directory was there before this run: then it is used but never removed. */
struct arm_caches {
    char *root[2];
    bool owned[2];
};

static void arm_caches_open(struct arm_caches *ac, const struct sched_arm arms[2])
{
    for (int k = 0; k < 2; k++) {
        ac->root[k] = xprintf("%s/compile-cache", store_dir(arms[k].st));
        ac->owned[k] = access(ac->root[k], F_OK) != 0;
    }
}

/* One cell's cache in its arm: ROOT/<16 hex digits of the SHA-256 of the
 * cell's key without its repeat suffix "#r<k>">, so every process of the
 * cell (its repeats) shares it and no other cell does. malloc'd. */
static char *arm_cache_dir(const char *root, const struct cell *c)
{
    const char *rep = strrchr(c->key, '#');
    size_t n = strlen(c->key);
    if (rep && rep[1] == 'r' && rep[2] && strspn(rep + 2, "0123456789") == strlen(rep + 2))
        n = (size_t)(rep - c->key);
    char hex[65];
    if (sha256_hex(c->key, n, hex) < 0)
        return NULL;
    return xprintf("%s/%.16s", root, hex);
}

/* Removes the roots this run made (what the compilers wrote for its cells,
 * in directories benchgen created); the first failure is returned. */
static int arm_caches_remove(struct arm_caches *ac)
{
    int err = 0;
    for (int k = 0; k < 2; k++) {
        int e = ac->owned[k] ? util_rm_rf(ac->root[k]) : 0;
        if (e < 0 && !err)
            err = e;
        free(ac->root[k]);
    }
    return err;
}

int sched_run_ab(const struct sched_arm arms[2], const struct matrix *todo, const unsigned char *arm,
                 struct abseq *seq, struct sched_summary *sum)
{
    struct sigaction old[2];
    stop_handlers_install(old);

    memset(sum, 0, sizeof(*sum));
    struct progress p;
    progress_init(&p, todo, store_voice(arms[0].st));
    struct exec_hooks hooks = {.tick = on_tick, .started = on_started, .state = on_state, .arg = &p};
    struct arm_caches caches;
    arm_caches_open(&caches, arms);
    int err = 0;
    for (int k = 0; k < 2 && !err; k++)
        if (arms[k].nsetenv > SCHED_ARM_MAX_ENV)
            err = error_set(BG_EUSAGE, "too many variables for one arm (%zu, at most %d)", arms[k].nsetenv,
                            SCHED_ARM_MAX_ENV);
    for (int k = 0; k < 2 && !err; k++)
        err = store_mark_started(arms[k].st, time(NULL));
    for (size_t i = 0; !err && i < todo->ncells && !stop_requested; i++) {
        const struct cell *c = &todo->cells[i];
        const struct sched_arm *a = &arms[arm[i] ? 1 : 0];
        if (seq && !abseq_needed(seq, i)) { /* its cell has stopped: out of the count and the ETA */
            sum->skipped_seq++;
            p.total--;
            p.typical_all -= catalog_typical_seconds(c->model, c->size);
            continue;
        }
        struct result r = {0};
        char *saved[SCHED_ARM_MAX_ENV] = {0};
        char *log = executor_log_path(store_dir(a->st), c);
        char *cache = arm_cache_dir(caches.root[arm[i] ? 1 : 0], c);
        on_started(&p, c, arm[i] ? "arm B" : "arm A");
        arm_env(a, saved, 0);
        err = executor_run_cell(c, log, cache, &stop_requested, &hooks, a->wait_idle, &r);
        arm_env(a, saved, 1);
        if (!err)
            err = store_record(a->st, c, &r, log);
        if (!err) {
            progress_cell_done(&p, c, &r, log);
            count(sum, r.status);
        }
        if (!err && seq && !stop_requested)
            err = abseq_record(seq, i, &r);
        result_free(&r);
        free(log);
        free(cache);
    }
    for (int k = 0; k < 2 && !err && !stop_requested; k++)
        err = store_mark_finished(arms[k].st, time(NULL));
    int rm = arm_caches_remove(&caches); /* every process has ended: nothing reads them again */
    if (rm < 0 && !err)
        err = rm;
    stop_handlers_restore(old);
    if (!err && stop_requested)
        err = error_set(BG_EINTR, "interrupted: the cell in flight was recorded as interrupted; "
                                  "resume %s and %s one at a time with `benchgen run --resume DIR`",
                        store_dir(arms[0].st), store_dir(arms[1].st));
    return err;
}
