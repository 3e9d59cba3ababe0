/*
 * bisect_step.c - one step of `benchgen bisect`: the interleaved A/B run of
 * two releases of the package (each a derived environment pinning it),
 * started or continued, stopped sequentially as `run --ab` stops (or a
 * fixed count a side), and compare's verdicts on it (see bisect.h).
 */
#include "bisect/bisect_step.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "compare/compare.h"
#include "plan/abplan.h"
#include "plan/matrix.h"
#include "plan/spec.h"
#include "run/abarm.h"
#include "envs/envs.h"
#include "envs/envs_derive.h"
#include "envs/envs_sync.h"
#include "run/abseq.h"
#include "run/scheduler.h"
#include "stats/seqtest.h"
#include "stats/significance.h"
#include "store/rundata.h"
#include "store/rundir.h"
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bisect_design(struct bisect *b, const struct seqtest_design **out)
{
    *out = NULL;
    if (!b->design) {
        struct seqtest_design d;
        int err = seqtest_design(&d, (size_t)b->o.first, SEQTEST_STEP, (size_t)b->o.cap, SIGNIFICANCE_ALPHA,
                                 b->o.effect, SEQTEST_POCOCK);
        if (err < 0)
            return err;
        b->design = xmalloc(sizeof(*b->design));
        *b->design = d;
    }
    *out = b->design;
    return 0;
}

/* Moves every cell of plan to the environment that pins pkg==version, and
 * builds those environments. On a build failure *why gets the reason (the
 * environment's failure marker, else the error) and 0 is returned. */
static int pin_plan(struct matrix *plan, const char *pkg, const char *version, char **why,
                    const struct voice *voice)
{
    struct kvlist derived = {0};
    char *pin = xprintf("%s==%s", pkg, version);
    const char *pins[] = {pin};
    int err = 0;
    for (size_t i = 0; i < plan->ncells && !err; i++) {
        struct cell *c = &plan->cells[i];
        const char *name = kvlist_get(&derived, c->env);
        char *made = NULL;
        if (!name && (err = envs_derive(c->env, pins, 1, &made)) == 0) {
            kvlist_add(&derived, c->env, made);
            name = made;
        }
        if (!err) {
            free(c->env);
            c->env = xstrdup(name);
        }
        free(made);
    }
    const char **names = xcalloc(derived.n ? derived.n : 1, sizeof(*names));
    for (size_t i = 0; i < derived.n; i++)
        names[i] = derived.items[i].value;
    int serr = err ? 0 : envs_sync(names, derived.n, voice);
    if (serr == BG_EINTR) /* Ctrl-C during a build: no reason to skip the release */
        err = serr;
    else if (serr < 0) {
        char *msg = xstrdup(error_last());
        for (size_t i = 0; i < derived.n && !*why; i++) {
            struct env_info e;
            if (envs_resolve(names[i], &e) < 0)
                continue;
            char *path = xprintf("%s/%s", e.dir, ENVS_FAILED_MARKER), *text = NULL;
            size_t len = 0;
            if (strcmp(e.state, "ready") != 0 && util_read_file(path, &text, &len) == 0 && text) {
                /* the marker's last non-empty line says why */
                while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
                    text[--len] = '\0';
                char *last = strrchr(text, '\n');
                *why = xprintf("environment %s cannot be built: %s", names[i], last ? last + 1 : text);
            }
            free(text);
            free(path);
            env_info_free(&e);
        }
        if (!*why)
            *why = xprintf("environment cannot be built: %s", msg);
        free(msg);
        error_clear();
    }
    free(names);
    free(pin);
    kvlist_free(&derived);
    return err;
}

/* Opens an arm's run directory when it exists (a step being continued),
 * else creates it. */
static int open_arm(struct store **st, const char *dir, const struct spec *spec, const struct matrix *plan,
                    const char *cmdline, const char *which, const char *pin, const struct voice *voice)
{
    char *db = xprintf("%s/%s", dir, STORE_DB_NAME);
    bool exists = util_is_file(db);
    free(db);
    if (exists) {
        char h[65];
        int err = store_open(st, dir, false);
        if (!err)
            store_set_voice(*st, voice);
        if (!err && (err = store_spec_sha256(*st, h)) == 0 && strcmp(h, spec->sha256) != 0)
            err = error_set(BG_EUSAGE, "%s has changed since the step in %s was started; start a new bisect",
                            spec->path, dir);
        return err;
    }
    int err = rundir_check_free(dir);
    return err < 0 ? err : abarm_create(st, dir, spec, plan, cmdline, which, &pin, 1, NULL, 0, voice);
}

/* Keeps the processes of the interleaved plan that have no final status in
 * their arm's run (none yet, or interrupted). */
static int left_to_run(struct matrix *both, unsigned char *arm, struct store *st[2])
{
    unsigned char *keep = xcalloc(both->ncells ? both->ncells : 1, 1);
    size_t n = 0;
    int err = 0;
    for (size_t i = 0; i < both->ncells && !err; i++) {
        enum status s;
        if ((err = store_cell_status(st[arm[i]], both->cells[i].id, &s)) == 0 &&
            (s == STATUS_NONE || s == STATUS_INTERRUPTED)) {
            keep[i] = 1;
            arm[n++] = arm[i];
        }
    }
    if (!err)
        matrix_filter(both, keep);
    free(keep);
    return err;
}

/* Keeps the cells bisected (b->targets) of a step's plan, numbered 1, 2,
 * ... as --only numbers what it keeps: a sequential step runs only them. */
static void keep_targets(struct matrix *m, const struct bisect *b)
{
    unsigned char *keep = xcalloc(m->ncells ? m->ncells : 1, 1);
    for (size_t i = 0; i < m->ncells; i++) {
        size_t n = strcspn(m->cells[i].key, "#"); /* the key less "#r<k>": compare's id */
        for (size_t k = 0; k < b->ntargets && !keep[i]; k++)
            keep[i] = strlen(b->targets[k]) == n && strncmp(b->targets[k], m->cells[i].key, n) == 0;
    }
    matrix_filter(m, keep);
    for (size_t i = 0; i < m->ncells; i++)
        m->cells[i].id = (int)i + 1;
    free(keep);
}

/* The processes left of a sequential step (`run --ab`'s stopping,
 * run/abseq.h, with the step's band as the rule's noise floor) into *both
 * and *arm, and the rule that stops them into *q. The processes that ended
 * before an interruption are given to the rule again in plan order, so
 * each cell stops where one uninterrupted run would have stopped it. A
 * step whose run got as far as its notes (B holds the design) has nothing
 * left: *q stays NULL. */
static int seq_prepare(struct bisect *b, const struct bisect_step *s, struct store *st[2], const struct matrix *pa,
                       const struct matrix *pb, const char *da, const char *db, struct matrix *both,
                       unsigned char **arm, struct abseq **q)
{
    const struct seqtest_design *d = NULL;
    struct rundata *rd[2] = {NULL, NULL};
    struct kvlist finished = {0};
    int err = bisect_design(b, &d);
    if (err < 0 || (err = store_run_notes(st[1], "run.seq.design", &finished)) < 0 || finished.n)
        goto done;
    if ((err = abplan_interleave(both, arm, pa, pb)) < 0 || (err = rundata_load(&rd[0], da)) < 0 ||
        (err = rundata_load(&rd[1], db)) < 0)
        goto done;
    *q = abseq_new(both, *arm, d, s->noise);
    for (size_t i = 0; i < both->ncells && !err; i++) {
        const struct rd_cell *c = rundata_find(rd[(*arm)[i]], both->cells[i].key);
        if (c && c->result.status != STATUS_NONE && c->result.status != STATUS_INTERRUPTED)
            err = abseq_record(*q, i, &c->result);
    }
    if (!err && (err = left_to_run(both, *arm, st)) == 0)
        err = abseq_replan(*q, both, *arm);
done:
    kvlist_free(&finished);
    rundata_free(rd[0]);
    rundata_free(rd[1]);
    return err;
}

/* After a sequential step's processes, as run --ab: both runs get the
 * design and each cell's stop (unless they have them: q NULL), and the
 * processes not needed leave their plans (again after a crash between the
 * two: it removes only what never started). */
static int seq_finish(struct abseq *q, struct store *st[2])
{
    size_t dropped = 0;
    /* the per-cell stops go to both runs' notes (compare shows them), not
     * to the terminal: the step's verdict line says what bisect decided */
    int err = q ? abseq_finish(q, st[0], st[1], NULL) : 0;
    if (!err && (err = store_drop_unstarted(st[0], &dropped)) == 0)
        err = store_drop_unstarted(st[1], &dropped);
    return err;
}

static void add_cell(struct bisect_step *s, const struct compare_cell *c)
{
    char text[96];
    compare_verdict_text(text, sizeof(text), c);
    s->cells = xrealloc(s->cells, (s->ncells + 1) * sizeof(*s->cells));
    bool t = c->t.verdict != SIGNIFICANCE_NONE;
    s->cells[s->ncells++] = (struct bisect_cell){xstrdup(c->id), xstrdup(text), t ? c->t.ratio : NAN,
                                                 t ? c->t.ci_lo : NAN, t ? c->t.ci_hi : NAN, (int)c->a.nreps};
}

/* Reads the step's verdict from compare: at the endpoints every cell (the
 * ones that moved become the targets), later only the targets. */
static int judge(struct bisect *b, struct bisect_step *s, const char *da, const char *db)
{
    const char *dirs[] = {da, db};
    struct compare_result r = {0};
    struct compare_options co = {.alpha = SIGNIFICANCE_ALPHA, .noise = s->noise};
    int err = compare_load(&r, dirs, 2, &co);
    if (err < 0)
        return err;
    enum significance_verdict want = b->o.faster ? SIGNIFICANCE_FASTER : SIGNIFICANCE_SLOWER;
    const struct compare_pair *p = &r.pairs[0];
    bool moved = false, ambiguous = false, tested = false;
    double logsum = 0, logall = 0;
    size_t nlog = 0, nall = 0;
    for (size_t i = 0; i < p->ncells && !err; i++) {
        const struct compare_cell *c = &p->cells[i];
        bool target = false;
        for (size_t k = 0; k < b->ntargets; k++)
            target = target || strcmp(b->targets[k], c->id) == 0;
        if (s->no > 0 && !target)
            continue;
        add_cell(s, c);
        if (c->a.status != STATUS_OK && c->a.nreps)
            err = error_set(BG_EGENERIC, "%s: %s's cell %s ended %s: the good release must run (its log: %s)",
                            s->dir, b->rel.v[s->a].version, c->id, compare_side_status(&c->a), da);
        else if (c->b.status != STATUS_OK) {
            free(s->reason);
            s->reason = xprintf("its cell %s ended %s (the logs in %s)", c->id, compare_side_status(&c->b), db);
            s->verdict = BISECT_SKIP;
        }
        if (c->t.verdict == SIGNIFICANCE_NONE)
            continue;
        tested = true;
        if (c->t.verdict == want) {
            moved = true;
            if (s->no == 0) {
                b->targets = xrealloc(b->targets, (b->ntargets + 1) * sizeof(*b->targets));
                b->targets[b->ntargets++] = xstrdup(c->id);
            }
        } else if (c->t.verdict == SIGNIFICANCE_AMBIGUOUS) {
            ambiguous = true;
            if (!*s->reason) {
                free(s->reason);
                s->reason = xprintf("%s: %s", c->id, c->t.why);
            }
        }
        if (c->t.ratio > 0 && (s->no > 0 || c->t.verdict == want)) {
            logsum += log(c->t.ratio);
            nlog++;
        }
        if (c->t.ratio > 0) {
            logall += log(c->t.ratio);
            nall++;
        }
    }
    if (b->o.sequential) { /* the most processes a side any cell of the step took */
        int most = 0;
        for (size_t i = 0; i < s->ncells; i++)
            most = s->cells[i].processes > most ? s->cells[i].processes : most;
        s->processes = most ? most : s->processes;
    }
    /* over the bisected cells; at endpoints where none moved, over every tested one */
    s->ratio = nlog ? exp(logsum / (double)nlog) : nall ? exp(logall / (double)nall) : NAN;
    if (!err && s->verdict != BISECT_SKIP) {
        if (!tested && s->no == 0)
            err = error_set(BG_EGENERIC, "%s: no cell could be compared at the endpoints", s->dir);
        s->verdict = moved ? BISECT_BAD : ambiguous ? BISECT_AMBIGUOUS : BISECT_GOOD;
        if (s->verdict != BISECT_AMBIGUOUS) {
            free(s->reason);
            s->reason = xstrdup("");
        }
    }
    if (!err && s->verdict == BISECT_SKIP && s->no == 0)
        err = error_set(BG_EGENERIC, "%s: the bad release's cells must run: %s", s->dir, s->reason);
    compare_result_free(&r);
    return err;
}

int bisect_step_run(struct bisect *b, struct bisect_step *s)
{
    const char *pkg = b->o.package, *va = b->rel.v[s->a].version, *vb = b->rel.v[s->b].version;
    struct spec *spec = NULL;
    struct matrix pa = {0}, pb = {0}, both = {0};
    unsigned char *arm = NULL;
    struct store *st[2] = {NULL, NULL};
    struct abseq *q = NULL;
    char *why = NULL, *top = xprintf("%s/%s", b->dir, s->dir), *da, *db, *pina = xprintf("%s==%s", pkg, va),
         *pinb = xprintf("%s==%s", pkg, vb);
    abarm_dirs(top, &da, &db); /* the layout of an A/B run, run/abarm.h */
    char *cmdline = xprintf("benchgen bisect %s --package %s --good %s --bad %s: step %d, A --with %s, B --with %s",
                            b->o.spec, pkg, b->o.good, b->o.bad, s->no, pina, pinb);
    int err = spec_load(&spec, b->o.spec);
    if (err < 0)
        goto done;
    spec->repeats = b->o.sequential ? b->o.cap : s->processes;
    if ((err = matrix_expand(&pa, spec, b->o.only)) < 0 || (err = matrix_expand(&pb, spec, b->o.only)) < 0)
        goto done;
    if (b->o.sequential && s->no > 0) {
        keep_targets(&pa, b);
        keep_targets(&pb, b);
    }
    if ((err = pin_plan(&pa, pkg, va, &why, b->voice)) < 0)
        goto done;
    if (why) {
        err = error_set(BG_EPYTHON, "the good release %s: %s", va, why);
        goto done;
    }
    if ((err = pin_plan(&pb, pkg, vb, &why, b->voice)) < 0)
        goto done;
    if (why) {
        if (s->no == 0) {
            err = error_set(BG_EPYTHON, "the bad release %s: %s", vb, why);
            goto done;
        }
        s->verdict = BISECT_SKIP;
        free(s->reason);
        s->reason = why;
        why = NULL;
        free(s->dir);
        s->dir = xstrdup("");
        goto done;
    }
    if ((err = util_mkdir_p(top, 0755)) < 0 ||
        (err = open_arm(&st[0], da, spec, &pa, cmdline, "a", pina, b->voice)) < 0 ||
        (err = open_arm(&st[1], db, spec, &pb, cmdline, "b", pinb, b->voice)) < 0)
        goto done;
    if (b->o.sequential)
        err = seq_prepare(b, s, st, &pa, &pb, da, db, &both, &arm, &q);
    else if ((err = abplan_interleave(&both, &arm, &pa, &pb)) == 0)
        err = left_to_run(&both, arm, st);
    if (err < 0)
        goto done;
    if (both.ncells) {
        voice_note(b->voice, "bisect", NULL, "%zu process(es) of %s (A) and %s (B) in %s", both.ncells, va, vb, top);
        struct sched_arm arms[2] = {{.st = st[0]}, {.st = st[1]}};
        struct sched_summary sum;
        if ((err = sched_run_ab(arms, &both, arm, q, &sum)) < 0)
            goto done;
    }
    if (b->o.sequential && (err = seq_finish(q, st)) < 0)
        goto done;
    store_close(st[0]);
    store_close(st[1]);
    st[0] = st[1] = NULL;
    err = judge(b, s, da, db);
done:
    store_close(st[0]);
    store_close(st[1]);
    matrix_free(&pa);
    matrix_free(&pb);
    matrix_free(&both);
    spec_free(spec);
    abseq_free(q);
    free(arm);
    free(why);
    free(top);
    free(da);
    free(db);
    free(pina);
    free(pinb);
    free(cmdline);
    return err;
}
