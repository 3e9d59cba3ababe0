/*
 * slurmrun.c - a run submitted to Slurm: verdicts, status, collect (see
 * slurmrun.h).
 */
#include "run/slurmrun.h"
#include "run/cellfile.h"
#include "run/collect.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool slurmrun_status_final(enum status status)
{
    return status != STATUS_NONE && status != STATUS_INTERRUPTED;
}

int slurmrun_verdict(const char *run_dir, const struct cell *c, const char *job, const struct slurm_task *t,
                     const char *newest_tag, enum status newest_status)
{
    struct result r = {0};
    char prefix[64], tag[128];
    snprintf(prefix, sizeof(prefix), "s%s_%d.", job, c->id);
    if (*newest_tag && strncmp(newest_tag, prefix, strlen(prefix)) == 0)
        snprintf(tag, sizeof(tag), "%s", newest_tag);
    else
        snprintf(tag, sizeof(tag), "s%s_%d.x", job, c->id);
    char *line = slurm_show(job, c->id);
    char *reason = line ? slurm_field(line, "Reason") : NULL, *code = line ? slurm_field(line, "ExitCode") : NULL;
    if (t) {
        r.status = slurm_state_status(t->state);
        r.detail = xprintf("Slurm ended task %s_%d as %s (reason %s, exit code %s) on %s%s%s", job, c->id,
                           t->state, reason ? reason : t->reason, code ? code : "?", *t->node ? t->node : "no node",
                           newest_status ? "; the task recorded: " : "", status_name(newest_status));
    } else {
        r.status = STATUS_INTERRUPTED;
        r.detail = xprintf("Slurm no longer knows task %s_%d and it left no final result; "
                           "`benchgen run --resume` runs it again",
                           job, c->id);
    }
    r.started = r.finished = time(NULL);
    r.exit_code = -1;
    kvlist_add(&r.env, "slurm.array_job_id", job);
    if (t && *t->node)
        kvlist_add(&r.env, "slurm.node", t->node);
    if (t)
        kvlist_add(&r.env, "slurm.state", t->state);
    /* A verdict is not signed: it may only say the task failed (cellcheck.h). */
    int err = cellfile_write_attempt(run_dir, c, tag, 1, &r, NULL);
    free(line);
    free(reason);
    free(code);
    result_free(&r);
    return err;
}

int slurmrun_newest(struct store *st, const struct cell *c, bool writer, char tag[128], enum status *status)
{
    struct result r = {0};
    struct strlist files = {0}, tags = {0}, statuses = {0};
    int err = collect_read(st, c, writer, &r, tag, &files, &tags, &statuses, NULL);
    *status = err ? STATUS_NONE : r.status;
    result_free(&r);
    strlist_free(&files);
    strlist_free(&tags);
    strlist_free(&statuses);
    return err;
}

/* The job each cell was last submitted in (from the slurm.job.<id> notes,
 * "cells=1-5,7 submitted=..."); jobs[i] for plan cell i, "" if none. */
static int cell_jobs(struct store *st, const struct matrix *plan, char (*jobs)[32], struct strlist *all)
{
    struct kvlist notes = {0};
    int err = store_run_notes(st, "slurm.job.", &notes);
    for (size_t k = 0; !err && k < notes.n; k++) {
        const char *job = notes.items[k].key + strlen("slurm.job.");
        const char *r = strstr(notes.items[k].value, "cells=");
        if (!r)
            continue;
        err = strlist_add_unique(all, job);
        for (r += 6; !err && *r && *r != ' ';) {
            char *end;
            long a = strtol(r, &end, 10), b = a;
            if (end == r)
                break;
            if (*end == '-')
                b = strtol(end + 1, &end, 10);
            for (size_t i = 0; i < plan->ncells; i++)
                if (plan->cells[i].id >= a && plan->cells[i].id <= b)
                    snprintf(jobs[i], 32, "%s", job);
            r = *end == ',' ? end + 1 : end;
        }
    }
    kvlist_free(&notes);
    return err;
}

/* What each cell's task is doing: jobs[] and the queue, for the functions below. */
struct view {
    char (*jobs)[32];
    struct strlist all;
    struct slurm_tasks q;
};

static int view_load(struct store *st, const struct matrix *plan, struct view *v)
{
    memset(v, 0, sizeof(*v));
    v->jobs = xcalloc(plan->ncells ? plan->ncells : 1, sizeof(*v->jobs));
    int err = cell_jobs(st, plan, v->jobs, &v->all);
    if (!err && v->all.n)
        err = slurm_queue(&v->all, &v->q);
    return err;
}

static void view_free(struct view *v)
{
    free(v->jobs);
    strlist_free(&v->all);
    slurm_tasks_free(&v->q);
}

static const struct slurm_task *view_task(const struct view *v, const struct matrix *plan, size_t i)
{
    return v->jobs[i][0] ? slurm_find(&v->q, v->jobs[i], plan->cells[i].id) : NULL;
}

bool slurmrun_submitted(struct store *st)
{
    struct kvlist notes = {0};
    bool yes = store_run_notes(st, "slurm.job.", &notes) == 0 && notes.n > 0;
    kvlist_free(&notes);
    return yes;
}

int slurmrun_collect(struct store *st, const struct matrix *plan, int *verdicts, int *files, int *cells,
                     int *still, int *quarantined)
{
    struct view v;
    *verdicts = *files = *cells = *still = *quarantined = 0;
    int err = view_load(st, plan, &v);
    for (size_t i = 0; !err && i < plan->ncells; i++) {
        if (!v.jobs[i][0])
            continue;
        char tag[128];
        enum status status;
        if ((err = slurmrun_newest(st, &plan->cells[i], true, tag, &status)) < 0 ||
            slurmrun_status_final(status))
            continue;
        const struct slurm_task *t = view_task(&v, plan, i);
        if (t && !slurm_state_final(t->state)) {
            (*still)++;
            continue;
        }
        /* Forgotten by Slurm: only a cell that never wrote anything in its
         * last job is judged; an `interrupted` one stays as it is. */
        if (!t && status)
            continue;
        if (t && status && slurm_state_status(t->state) == STATUS_ERROR)
            continue;
        if ((err = slurmrun_verdict(store_dir(st), &plan->cells[i], v.jobs[i], t, tag, status)) == 0)
            (*verdicts)++;
    }
    view_free(&v);
    if (!err)
        err = collect_run(st, plan, files, cells, quarantined);
    return err;
}

int slurmrun_active(struct store *st, const struct matrix *plan, unsigned char *active, size_t *n)
{
    struct view v;
    *n = 0;
    int err = view_load(st, plan, &v);
    for (size_t i = 0; !err && i < plan->ncells; i++) {
        const struct slurm_task *t = view_task(&v, plan, i);
        active[i] = t && !slurm_state_final(t->state);
        *n += active[i];
    }
    view_free(&v);
    return err;
}

int slurmrun_print_status(struct store *st, const struct matrix *plan, FILE *out)
{
    struct view v;
    int err = view_load(st, plan, &v);
    size_t nfinal = 0, nuncollected = 0, nrunning = 0, nqueued = 0, ninterrupted = 0, npending = 0;
    for (size_t i = 0; !err && i < plan->ncells; i++) {
        const struct cell *c = &plan->cells[i];
        char tag[128], state[160];
        enum status db, file;
        if ((err = store_cell_status(st, c->id, &db)) < 0 || (err = slurmrun_newest(st, c, false, tag, &file)) < 0)
            break;
        const struct slurm_task *t = view_task(&v, plan, i);
        if (slurmrun_status_final(db)) {
            snprintf(state, sizeof(state), "%s", status_name(db));
            nfinal++;
        } else if (slurmrun_status_final(file)) {
            snprintf(state, sizeof(state), "%s (not collected: benchgen collect)", status_name(file));
            nuncollected++;
        } else if (t && !strcmp(t->state, "RUNNING")) {
            snprintf(state, sizeof(state), "running on %s (job %s_%d)", t->node, t->job, t->task);
            nrunning++;
        } else if (t && !slurm_state_final(t->state)) {
            snprintf(state, sizeof(state), "queued (%s, %s; job %s_%d)", t->state, t->reason, t->job, t->task);
            nqueued++;
        } else if (db == STATUS_INTERRUPTED || file == STATUS_INTERRUPTED) {
            snprintf(state, sizeof(state), "interrupted%s%s (`benchgen run --resume` runs it again)",
                     t ? ", Slurm: " : "", t ? t->state : "");
            ninterrupted++;
        } else if (t) {
            snprintf(state, sizeof(state), "ended %s without a result (benchgen collect judges it)", t->state);
            nuncollected++;
        } else {
            snprintf(state, sizeof(state), "pending");
            npending++;
        }
        fprintf(out, "%4d  %-40s %s\n", c->id, c->key, state);
    }
    if (!err)
        fprintf(out, "%zu cell(s): %zu final, %zu to collect, %zu running, %zu queued, %zu interrupted, %zu pending\n",
                plan->ncells, nfinal, nuncollected, nrunning, nqueued, ninterrupted, npending);
    view_free(&v);
    return err;
}
