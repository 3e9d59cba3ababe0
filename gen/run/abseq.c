/*
 * abseq.c - the sequential stopping of an interleaved `run --ab` (see
 * abseq.h; the rule is stats/seqtest.h, docs/COMPARE.md "Sequential
 * verdicts").
 */
#include "run/abseq.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct seqcell {
    char *id;
    double *la, *lb; /* log ms of each repeat's process mean, per arm */
    unsigned char *have_a, *have_b;
    size_t took; /* processes a side at the stop (or completed pairs so far) */
    bool stopped;
    enum seqtest_decision decision;
    char why[256];
};

struct abseq {
    const struct matrix *plan;
    const unsigned char *arm;
    const struct seqtest_design *d;
    double noise;
    struct seqcell *cells;
    size_t ncells;
    size_t *group; /* plan cell -> seqcell */
};

/* As compare names a cell: model/task/b<batch>/backend[@method]. */
static char *identity(const struct cell *c)
{
    const char *at = strchr(c->key, '@');
    size_t n = at ? strcspn(at, "#") : 0;
    return xprintf("%s/%s/b%d/%s%.*s", c->model, c->task, c->batch, c->backend, (int)n, at ? at : "");
}

char *abseq_note_key(const char *id) { return xprintf("run.seq.cell.%s", id); }

/* The index of the cell whose identity is id; q->ncells when none is. */
static size_t cell_of(const struct abseq *q, const char *id)
{
    size_t g = 0;
    while (g < q->ncells && strcmp(q->cells[g].id, id) != 0)
        g++;
    return g;
}

struct abseq *abseq_new(const struct matrix *plan, const unsigned char *arm, const struct seqtest_design *d,
                        double noise)
{
    struct abseq *q = xcalloc(1, sizeof(*q));
    q->plan = plan;
    q->arm = arm;
    q->d = d;
    q->noise = noise;
    q->group = xcalloc(plan->ncells ? plan->ncells : 1, sizeof(*q->group));
    q->cells = xcalloc(plan->ncells ? plan->ncells : 1, sizeof(*q->cells));
    for (size_t i = 0; i < plan->ncells; i++) {
        char *id = identity(&plan->cells[i]);
        size_t g = cell_of(q, id);
        if (g == q->ncells) {
            struct seqcell *c = &q->cells[q->ncells++];
            c->id = id;
            c->la = xcalloc(d->cap, sizeof(double));
            c->lb = xcalloc(d->cap, sizeof(double));
            c->have_a = xcalloc(d->cap, 1);
            c->have_b = xcalloc(d->cap, 1);
        } else {
            free(id);
        }
        q->group[i] = g;
    }
    return q;
}

int abseq_replan(struct abseq *q, const struct matrix *plan, const unsigned char *arm)
{
    size_t *group = xcalloc(plan->ncells ? plan->ncells : 1, sizeof(*group));
    for (size_t i = 0; i < plan->ncells; i++) {
        char *id = identity(&plan->cells[i]);
        size_t g = cell_of(q, id);
        if (g == q->ncells) {
            int err = error_set(BG_EGENERIC, "sequential run: %s is not a cell of the plan it continues", id);
            free(id);
            free(group);
            return err;
        }
        free(id);
        group[i] = g;
    }
    free(q->group);
    q->group = group;
    q->plan = plan;
    q->arm = arm;
    return 0;
}

bool abseq_needed(const struct abseq *q, size_t i) { return !q->cells[q->group[i]].stopped; }

int abseq_record(struct abseq *q, size_t i, const struct result *r)
{
    const struct cell *pc = &q->plan->cells[i];
    struct seqcell *c = &q->cells[q->group[i]];
    int b = q->arm[i] != 0;
    size_t rep = pc->repeat > 0 ? (size_t)pc->repeat : 1;
    if (c->stopped || rep > q->d->cap)
        return 0;
    double sum = 0.0;
    for (size_t k = 0; k < r->ntimed; k++)
        sum += (double)r->timed_ns[k] / 1e6;
    double mean = r->ntimed ? sum / (double)r->ntimed : NAN;
    if (r->status != STATUS_OK || !(mean > 0.0) || !isfinite(mean)) {
        c->stopped = true;
        c->decision = SEQTEST_UNDECIDED;
        snprintf(c->why, sizeof(c->why), "stopped: process %zu of arm %c ended %s", rep, b ? 'B' : 'A',
                 r->status == STATUS_OK ? "without timed steps" : status_name(r->status));
        return 0;
    }
    (b ? c->lb : c->la)[rep - 1] = log(mean);
    (b ? c->have_b : c->have_a)[rep - 1] = 1;
    size_t n = 0;
    while (n < q->d->cap && c->have_a[n] && c->have_b[n])
        n++;
    c->took = n;
    if (n != rep || seqtest_look_index(q->d, n) < 0)
        return 0; /* this pair did not complete a look */
    struct seqtest_result res;
    int err = seqtest_look(&res, q->d, c->la, c->lb, n, q->noise);
    if (err < 0)
        return err;
    if (res.decision != SEQTEST_CONTINUE) {
        c->stopped = true;
        c->decision = res.decision;
        snprintf(c->why, sizeof(c->why), "%s", res.why);
    }
    return 0;
}

int abseq_finish(struct abseq *q, struct store *a, struct store *b, FILE *out)
{
    const struct seqtest_design *d = q->d;
    char *design = xprintf("first %zu, step %zu, cap %zu, effect %g%%, alpha %g, spending %s, noise %g%%",
                           d->first, d->step, d->cap, d->effect * 100.0, d->alpha,
                           d->spending == SEQTEST_OBF ? "obrien-fleming" : "pocock", q->noise * 100.0);
    int err = 0;
    if ((err = store_note_run(a, "run.seq.design", design)) < 0 || (err = store_note_run(b, "run.seq.design", design)) < 0)
        goto done;
    if (out)
        fprintf(out, "sequential verdicts (%s):\n", design);
    for (size_t i = 0; i < q->ncells && !err; i++) {
        struct seqcell *c = &q->cells[i];
        char *key = abseq_note_key(c->id);
        char *v = c->stopped ? xprintf("%s; %zu processes a side; %s", seqtest_decision_name(c->decision), c->took,
                                       c->why)
                             : xprintf("unfinished; %zu processes a side; the run stopped before the cell did",
                                       c->took);
        if (out)
            fprintf(out, "  %s: %s\n", c->id, v);
        if ((err = store_note_run(a, key, v)) == 0)
            err = store_note_run(b, key, v);
        free(key);
        free(v);
    }
done:
    free(design);
    return err;
}

void abseq_free(struct abseq *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->ncells; i++) {
        free(q->cells[i].id);
        free(q->cells[i].la);
        free(q->cells[i].lb);
        free(q->cells[i].have_a);
        free(q->cells[i].have_b);
    }
    free(q->cells);
    free(q->group);
    free(q);
}
