/*
 * bisect.c - `benchgen bisect`: the search over a package's releases (see
 * bisect.h; one step is bisect_step.c, the state file bisect_state.c, the
 * outputs bisect_out.c).
 */
#include "bisect/bisect.h"
#include "run/abarm.h"
#include "bisect/bisect_step.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "plan/spec.h"
#include "envs/envs.h"
#include "stats/seqtest.h"
#include "stats/significance.h"
#include "store/rundata.h"
#include "store/rundir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bisect_verdict_name(enum bisect_verdict v)
{
    static const char *const names[] = {"pending", "bad", "good", "ambiguous", "skip"};
    return names[v];
}

const char *bisect_outcome_name(enum bisect_outcome o)
{
    static const char *const names[] = {"running", "found", "nothing to bisect", "undecided"};
    return names[o];
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* How the steps stop, as `run --ab` decides it (cli_run.c): sequential
 * unless --repeats asks for a fixed count; the first batch, cap and effect
 * from the options, else the spec's ab_first, ab_cap, ab_effect, else
 * seqtest's defaults. The spec's `repeats:` is not used: bisect's steps
 * always had their own count. */
static int step_rule(struct bisect_options *o, const struct spec *spec)
{
    if (o->processes && (o->first || o->cap || o->effect > 0))
        return error_set(BG_EUSAGE, "--repeats asks for a fixed count a side: drop --first, --cap and --effect, "
                                    "or drop --repeats for sequential steps");
    o->sequential = !o->processes;
    if (!o->sequential) {
        o->max_processes = o->max_processes ? o->max_processes : 4 * o->processes;
        return 0;
    }
    if (o->max_processes)
        return error_set(BG_EUSAGE, "--max-repeats goes with --repeats (a fixed count a side); the sequential "
                                    "steps stop at --cap");
    o->first = o->first ? o->first : spec->ab_first ? spec->ab_first : SEQTEST_FIRST;
    o->cap = o->cap ? o->cap : spec->ab_cap ? spec->ab_cap : SEQTEST_CAP;
    if (!(o->effect > 0))
        o->effect = spec->ab_effect > 0.0 ? spec->ab_effect : SEQTEST_EFFECT;
    if (o->cap < o->first)
        return error_set(BG_EUSAGE, "the cap (%d) is below the first batch (%d) a side", o->cap, o->first);
    return 0;
}

/* The interpreter that reads the index: the one that makes the first
 * cell's environment, as the installer will ask for its wheels. Settles
 * how the steps stop (step_rule()), which reads the spec too. */
static int index_python(struct bisect_options *o, char **python)
{
    struct spec *spec = NULL;
    struct matrix plan = {0};
    int err = spec_load(&spec, o->spec);
    if (!err)
        err = step_rule(o, spec);
    if (!err)
        err = matrix_expand(&plan, spec, o->only);
    if (!err && plan.ncells == 0)
        err = error_set(BG_EUSAGE, "--only %s selects no cell of %s", o->only ? o->only : "", o->spec);
    if (!err) {
        struct env_info e;
        if ((err = envs_resolve(plan.cells[0].env, &e)) == 0) {
            if (!e.builder)
                err = error_set(BG_EUSAGE, "environment %s is registered (env add), not a lock file: bisect "
                                           "derives environments from locks",
                                e.name);
            else
                *python = xstrdup(e.builder);
            env_info_free(&e);
        }
    }
    matrix_free(&plan);
    spec_free(spec);
    return err;
}

static struct bisect *alloc_bisect(const struct bisect_options *o, const char *dir)
{
    struct bisect *b = xcalloc(1, sizeof(*b));
    b->o = *o;
    b->o.spec = dup_or_null(o->spec);
    b->o.package = dup_or_null(o->package);
    b->o.good = dup_or_null(o->good);
    b->o.bad = dup_or_null(o->bad);
    b->o.only = dup_or_null(o->only);
    b->o.index = dup_or_null(o->index);
    b->o.out = NULL;
    b->dir = xstrdup(dir);
    return b;
}

int bisect_start(struct bisect **out, const struct bisect_options *o)
{
    *out = NULL;
    if (o->processes && o->max_processes && o->max_processes < o->processes)
        return error_set(BG_EUSAGE, "--max-repeats %d is below --repeats %d", o->max_processes, o->processes);
    int err = rundir_check_free(o->out);
    if (err < 0)
        return err;
    char *python = NULL, *spec_abs = util_realpath(o->spec);
    if (!spec_abs)
        return error_set(BG_ENOTFOUND, "%s: no such spec", o->spec);
    struct bisect_options opt = *o;
    opt.spec = spec_abs;
    struct bisect *b = alloc_bisect(&opt, o->out);
    struct envs_releases_opts ro = {.index = o->index, .pre = o->pre, .yanked = o->yanked};
    const struct seqtest_design *d;
    if ((err = index_python(&b->o, &python)) < 0 || (b->o.sequential && (err = bisect_design(b, &d)) < 0))
        goto done;
    ro.python = python;
    if ((err = envs_releases_list(&b->rel, o->package, o->good, o->bad, &ro)) < 0)
        goto done;
    b->skipped = xcalloc(b->rel.n, sizeof(*b->skipped));
    b->lo = 0;
    b->hi = b->rel.n - 1;
    if ((err = util_mkdir_p(b->dir, 0755)) == 0)
        err = bisect_save(b);
done:
    free(python);
    free(spec_abs);
    if (err < 0)
        bisect_free(b);
    else
        *out = b;
    return err;
}

int bisect_resume(struct bisect **out, const char *dir)
{
    struct bisect *b = xcalloc(1, sizeof(*b));
    int err = bisect_load(b, dir);
    if (err < 0) {
        bisect_free(b);
        b = NULL;
    }
    *out = b;
    return err;
}

/* The untested releases strictly inside the range left. */
static size_t candidates(const struct bisect *b)
{
    size_t n = 0;
    for (size_t i = b->lo + 1; i < b->hi; i++)
        n += !b->skipped[i];
    return n;
}

/* The untested release nearest the middle of the range (the lower of two). */
static bool pick_middle(const struct bisect *b, size_t *mid)
{
    size_t best = 0;
    double want = ((double)b->lo + (double)b->hi) / 2, bestd = INFINITY;
    for (size_t i = b->lo + 1; i < b->hi; i++)
        if (!b->skipped[i] && fabs((double)i - want) < bestd) {
            bestd = fabs((double)i - want);
            best = i;
        }
    *mid = best;
    return bestd < INFINITY;
}

static int ceil_log2(size_t n)
{
    int k = 0;
    while (((size_t)1 << k) < n)
        k++;
    return k;
}

void bisect_progress(const struct bisect *b, int *step, int *at_most)
{
    int done = 0;
    for (size_t i = 0; i < b->nsteps; i++)
        if (b->steps[i].no > 0 && b->steps[i].verdict != BISECT_PENDING && b->steps[i].verdict != BISECT_SKIP &&
            b->steps[i].verdict != BISECT_AMBIGUOUS)
            done = b->steps[i].no;
    *step = done + 1;
    *at_most = done + ceil_log2(candidates(b) + 1);
}

/* Appends the next step: the last one again with more processes when it was
 * ambiguous and the cap allows, else the endpoints or the middle of the
 * range. NULL, with b->outcome set, when the search is over. */
static struct bisect_step *next_step(struct bisect *b)
{
    struct bisect_step next = {.attempt = 1, .processes = b->o.sequential ? b->o.cap : b->o.processes};
    const struct bisect_step *last = b->nsteps ? &b->steps[b->nsteps - 1] : NULL;
    int lastno = 0;
    for (size_t i = 0; i < b->nsteps; i++)
        if (b->steps[i].verdict != BISECT_SKIP)
            lastno = b->steps[i].no;
    if (last && last->verdict == BISECT_AMBIGUOUS) {
        /* a sequential step is ambiguous only at its cap: no more to add */
        if (b->o.sequential || last->processes >= b->o.max_processes) {
            b->outcome = last->no == 0 ? BISECT_NOTHING : BISECT_UNDECIDED;
            return NULL;
        }
        next = *last;
        next.attempt++;
        next.processes = last->processes * 2 < b->o.max_processes ? last->processes * 2 : b->o.max_processes;
    } else if (!last) {
        next.a = 0;
        next.b = b->rel.n - 1;
    } else if (last->no == 0 && last->verdict == BISECT_GOOD) {
        b->outcome = BISECT_NOTHING;
        return NULL;
    } else if (!pick_middle(b, &next.b)) {
        b->outcome = BISECT_FOUND;
        return NULL;
    } else {
        next.no = lastno + 1;
        next.a = b->lo;
    }
    next.noise = b->o.noise > 0 ? b->o.noise : SIGNIFICANCE_NOISE;
    for (size_t i = 0; i < b->nsteps && b->o.noise <= 0 && next.no > 0; i++)
        if (b->steps[i].no == 0 && b->steps[i].verdict == BISECT_BAD && isfinite(b->steps[i].ratio))
            next.noise = fmax(SIGNIFICANCE_NOISE, fabs(b->steps[i].ratio - 1) / 3);
    char sfx[32] = "";
    if (next.attempt > 1)
        snprintf(sfx, sizeof(sfx), "-x%d", next.processes);
    next.dir = next.no == 0 ? xprintf("00-endpoints%s", sfx)
                            : xprintf("%02d-%s%s", next.no, b->rel.v[next.b].version, sfx);
    next.reason = xstrdup("");
    next.ratio = NAN;
    next.verdict = BISECT_PENDING;
    next.cells = NULL;
    next.ncells = 0;
    b->steps = xrealloc(b->steps, (b->nsteps + 1) * sizeof(*b->steps));
    b->steps[b->nsteps] = next;
    return &b->steps[b->nsteps++];
}

/* What a finished step changes in the range. */
static void apply(struct bisect *b, const struct bisect_step *s)
{
    if (s->no == 0)
        return;
    if (s->verdict == BISECT_BAD)
        b->hi = s->b;
    else if (s->verdict == BISECT_GOOD)
        b->lo = s->b;
    else if (s->verdict == BISECT_SKIP)
        b->skipped[s->b] = true;
}

/* The run directory of one arm that ran release i ("" when none). */
static char *arm_of(const struct bisect *b, size_t i)
{
    for (size_t k = 0; k < b->nsteps; k++) {
        const struct bisect_step *s = &b->steps[k];
        if (!*s->dir || s->verdict == BISECT_PENDING)
            continue;
        if (s->a != i && s->b != i)
            continue;
        char *top = xprintf("%s/%s", b->dir, s->dir), *arm[2];
        abarm_dirs(top, &arm[0], &arm[1]); /* the layout of an A/B run, run/abarm.h */
        free(top);
        free(arm[s->a == i ? 1 : 0]);
        return arm[s->a == i ? 0 : 1];
    }
    return xstrdup("");
}

/* The first ok process of a run (NULL when none). */
static const struct rd_cell *first_ok(const struct rundata *rd)
{
    for (size_t i = 0; i < rd->ncells; i++)
        if (rd->cells[i].result.status == STATUS_OK)
            return &rd->cells[i];
    return NULL;
}

/* compare's environment diff of one process of the last good release and
 * one of the first bad, the changes that can matter to performance. */
static int env_diff(struct bisect *b)
{
    char *da = arm_of(b, b->lo), *db = arm_of(b, b->hi);
    struct rundata *ra = NULL, *rb = NULL;
    struct compare_change *all = NULL;
    size_t n = 0;
    int err = 0;
    if (*da && *db && (err = rundata_load(&ra, da)) == 0 && (err = rundata_load(&rb, db)) == 0) {
        const struct rd_cell *ca = first_ok(ra), *cb = first_ok(rb);
        if (ca && cb)
            err = compare_env_diff(&ca->result.env, &cb->result.env, &all, &n);
    }
    char **pats = NULL;
    size_t npats = 0;
    if (!err)
        compare_env_add_pattern(&pats, &npats, b->o.package, strlen(b->o.package));
    compare_env_mark_intended(all, n, pats, npats);
    for (size_t i = 0; i < n; i++) {
        if (!all[i].counted)
            continue;
        b->diff = xrealloc(b->diff, (b->ndiff + 1) * sizeof(*b->diff));
        b->diff[b->ndiff++] = all[i];
        all[i] = (struct compare_change){0};
    }
    compare_env_changes_free(all, n);
    for (size_t i = 0; i < npats; i++)
        free(pats[i]);
    free(pats);
    rundata_free(ra);
    rundata_free(rb);
    free(da);
    free(db);
    return err;
}

static void announce(const struct bisect *b, const struct bisect_step *s)
{
    const char *va = b->rel.v[s->a].version, *vb = b->rel.v[s->b].version;
    char more[48] = "";
    if (s->attempt > 1)
        snprintf(more, sizeof(more), ", again with %d processes a side", s->processes);
    if (s->no == 0) {
        voice_note(b->voice, "bisect", NULL, "endpoints: %s (good) against %s (bad), %zu releases%s", va, vb,
                   b->rel.n, more);
    } else {
        int step, at_most;
        bisect_progress(b, &step, &at_most);
        voice_note(b->voice, "bisect", NULL, "step %d of at most %d: %s against %s; range left %s..%s (%zu untested)%s",
                   step, at_most, va, vb, b->rel.v[b->lo].version, b->rel.v[b->hi].version, candidates(b), more);
    }
}

int bisect_run(struct bisect *b, const struct voice *voice)
{
    int err = 0;
    b->voice = voice;
    /* the environments come from the index the releases were listed from */
    if (b->o.index) {
        setenv("UV_DEFAULT_INDEX", b->o.index, 1);
        setenv("PIP_INDEX_URL", b->o.index, 1);
    }
    while (!err && b->outcome == BISECT_RUNNING) {
        struct bisect_step *s = b->nsteps ? &b->steps[b->nsteps - 1] : NULL;
        if (!s || s->verdict != BISECT_PENDING) {
            if (!(s = next_step(b)))
                break;
            if ((err = bisect_save(b)) < 0)
                break;
        }
        announce(b, s);
        if ((err = bisect_step_run(b, s)) < 0) {
            /* a finished step's run stays; a failed one is tried again by --resume */
            int serr = bisect_save(b);
            (void)serr;
            break;
        }
        apply(b, s);
        if (s->verdict == BISECT_SKIP)
            voice_note(b->voice, "bisect", NULL, "%s skipped: %s", b->rel.v[s->b].version, s->reason);
        else if (isfinite(s->ratio))
            voice_note(b->voice, "bisect", NULL, "%s: %s (B/A %.3f)%s%s", s->no ? b->rel.v[s->b].version : "endpoints",
                       bisect_verdict_name(s->verdict), s->ratio, *s->reason ? ": " : "", s->reason);
        else
            voice_note(b->voice, "bisect", NULL, "%s: %s%s%s", s->no ? b->rel.v[s->b].version : "endpoints",
                       bisect_verdict_name(s->verdict), *s->reason ? ": " : "", s->reason);
        err = bisect_save(b);
    }
    if (!err && b->outcome == BISECT_FOUND)
        err = env_diff(b);
    if (!err)
        err = bisect_save(b);
    if (!err)
        err = bisect_write_outputs(b);
    return err;
}

static void step_free(struct bisect_step *s)
{
    for (size_t i = 0; i < s->ncells; i++) {
        free(s->cells[i].id);
        free(s->cells[i].verdict);
    }
    free(s->cells);
    free(s->dir);
    free(s->reason);
}

void bisect_free(struct bisect *b)
{
    if (!b)
        return;
    free((char *)b->o.spec);
    free((char *)b->o.package);
    free((char *)b->o.good);
    free((char *)b->o.bad);
    free((char *)b->o.only);
    free((char *)b->o.index);
    free(b->dir);
    envs_releases_free(&b->rel);
    for (size_t i = 0; i < b->ntargets; i++)
        free(b->targets[i]);
    free(b->targets);
    for (size_t i = 0; i < b->nsteps; i++)
        step_free(&b->steps[i]);
    free(b->steps);
    free(b->skipped);
    free(b->design);
    compare_env_changes_free(b->diff, b->ndiff);
    free(b);
}
