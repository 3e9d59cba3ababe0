/*
 * compare_json.c - the "benchgen-compare/1" JSON document of `benchgen
 * compare --json` (see compare.h and docs/COMPARE.md, "Output"): keys
 * sorted, reals with 15 significant digits, null for anything not computed.
 */
#include "compare/compare.h"
#include "compare/crep.h"
#include "base/error.h"
#include "base/json.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* ---- JSON ---------------------------------------------------------------- */

/* A JSON string; bytes jansson refuses (not UTF-8) become '?'. */
/* The one JSON writer (base/json.h): its UTF-8 rule, null for NaN, the
 * builders' error contract; the local names keep this file's call sites. */
static json_t *jstr_(const char *s) { return json_str(s); }
static json_t *jreal_(double x) { return json_num(x); }
static void set_(json_t *o, const char *key, json_t *v, int *err) { json_put(o, key, v, err); }
static void push_(json_t *a, json_t *v, int *err) { json_push(a, v, err); }

static json_t *jchanges_(const struct compare_change *c, size_t n, int *err)
{
    json_t *a = json_array(); /* jansson allocates with the x-family: never NULL */
    for (size_t i = 0; i < n && !*err; i++) {
        json_t *o = json_object();
        set_(o, "key", jstr_(c[i].key), err);
        set_(o, "a", jstr_(c[i].a), err);
        set_(o, "b", jstr_(c[i].b), err);
        set_(o, "counted", json_boolean(c[i].counted), err);
        set_(o, "intended", json_boolean(c[i].intended), err);
        push_(a, o, err);
    }
    return a;
}

static json_t *jside_(const struct compare_side *s, int *err)
{
    if (s->nreps == 0)
        return json_null();
    json_t *o = json_object();
    set_(o, "status", jstr_(compare_side_status(s)), err);
    set_(o, "repeats", json_integer((json_int_t)s->nreps), err);
    set_(o, "n", json_integer((json_int_t)s->n), err);
    set_(o, "mean_ms", jreal_(s->mean_ms), err);
    set_(o, "ci_lo_ms", jreal_(s->ci_lo_ms), err);
    set_(o, "ci_hi_ms", jreal_(s->ci_hi_ms), err);
    set_(o, "env", jstr_(s->reps[0]->cell.env), err);
    set_(o, "input_sha256", jstr_(compare_side_input(s)), err);
    double cold;
    size_t nwarm;
    if (compare_side_compile(s, &cold, &nwarm)) { /* runs that record compile.cache */
        set_(o, "compile_ms", jreal_(cold), err);
        set_(o, "warm_cache_processes", json_integer((json_int_t)nwarm), err);
    }
    return o;
}

/* A geometric mean over the decided cells: ratio and speed-up null when none
 * is decided ("cannot_tell", with the range the cells' intervals allow). */
static void jgeomean_(json_t *o, const struct compare_geomean *g, int *err)
{
    set_(o, "cells", json_integer((json_int_t)g->ncells), err);
    set_(o, "decided", json_integer((json_int_t)g->ndecided), err);
    set_(o, "geomean_ratio", jreal_(g->ratio), err);
    set_(o, "speedup", jreal_(1.0 / g->ratio), err);
    set_(o, "cannot_tell", json_boolean(g->ncells && !g->ndecided), err);
    set_(o, "range_lo", jreal_(g->lo), err);
    set_(o, "range_hi", jreal_(g->hi), err);
}

static json_t *jcell_(const struct compare_cell *c, int *err)
{
    json_t *o = json_object();
    const struct significance_test *t = &c->t;
    set_(o, "id", jstr_(c->id), err);
    set_(o, "model", jstr_(c->model), err);
    set_(o, "task", jstr_(c->task), err);
    set_(o, "batch", json_integer(c->batch), err);
    set_(o, "backend", jstr_(c->backend), err);
    set_(o, "match", jstr_(compare_match_name(c->match)), err);
    set_(o, "mismatch", jstr_(c->mismatch), err);
    set_(o, "a", jside_(&c->a, err), err);
    set_(o, "b", jside_(&c->b, err), err);
    set_(o, "verdict", jstr_(significance_verdict_name(t->verdict)), err);
    set_(o, "why", jstr_(t->why), err);
    set_(o, "tested", json_boolean(t->valid), err);
    set_(o, "ratio", jreal_(t->ratio), err);
    /* what the ratio is the ratio of */
    set_(o, "ratio_a_ms", jreal_(t->gmean_a), err);
    set_(o, "ratio_b_ms", jreal_(t->gmean_b), err);
    set_(o, "ratio_of", !t->valid ? json_null()
                        : jstr_(t->per_process ? "geometric mean of per-process means" : "pooled means"), err);
    set_(o, "ci_lo", jreal_(t->ci_lo), err);
    set_(o, "ci_hi", jreal_(t->ci_hi), err);
    set_(o, "u", jreal_(t->mwu.u1), err);
    set_(o, "z", jreal_(t->mwu.z), err);
    set_(o, "p_steps", jreal_(t->mwu.p), err);
    set_(o, "test", t->per_process ? jstr_(t->paired ? "paired-t-log" : "welch-t-log") : json_null(), err);
    set_(o, "t", jreal_(t->t_stat), err);
    set_(o, "df", jreal_(t->df), err);
    set_(o, "p", jreal_(t->p), err);
    set_(o, "processes_a", json_integer((json_int_t)t->groups_a), err);
    set_(o, "processes_b", json_integer((json_int_t)t->groups_b), err);
    set_(o, "noise_cv", jreal_(t->cv_process), err);
    set_(o, "noise_cv_a", jreal_(t->cv_a), err);
    set_(o, "noise_cv_b", jreal_(t->cv_b), err);
    set_(o, "noise_from", jstr_(t->cv_from_profile ? "profile" : "measured"), err);
    set_(o, "noise_cv_profile", t->cv_from_profile ? jreal_(t->cv_profile) : json_null(), err);
    set_(o, "band", jreal_(t->band), err);
    set_(o, "needed_processes", t->needed ? json_integer((json_int_t)t->needed) : json_null(), err);
    set_(o, "too_noisy", json_boolean(t->valid && t->too_noisy), err);
    set_(o, "canary_ratio", jreal_(c->canary_ratio), err);
    set_(o, "ratio_canary_normalised", jreal_(t->ratio / c->canary_ratio), err);
    set_(o, "drift", json_boolean(c->drift), err);
    set_(o, "p_adj", jreal_(t->p_adj), err);
    set_(o, "exact", json_boolean(t->valid && t->mwu.exact), err);
    set_(o, "changes", jchanges_(c->changes, c->nchanges, err), err);
    set_(o, "confounded", json_boolean(c->confounded), err);
    set_(o, "unintended", jstr_(c->unintended), err);
    set_(o, "affected", json_boolean(c->affected), err);
    set_(o, "host_changed", c->host_changed[0] ? jstr_(c->host_changed) : json_null(), err);
    if (c->sequential) { /* one sequential run --ab (compare_seq.c) */
        json_t *s = json_object();
        set_(s, "look", c->seq_look ? json_integer((json_int_t)c->seq_look) : json_null(), err);
        set_(s, "looks", json_integer((json_int_t)c->seq_looks), err);
        set_(s, "stopped", c->seq_stop ? jstr_(c->seq_stop) : json_null(), err);
        set_(o, "sequential", s, err);
    } else {
        set_(o, "sequential", json_null(), err);
    }
    return o;
}

static json_t *jpair_(const struct compare_result *r, const struct compare_pair *p, int *err)
{
    json_t *o = json_object(), *cells = json_array(), *backends = json_array(), *intended = json_array();
    json_t *summary = json_object();
    set_(o, "baseline", json_integer(0), err);
    set_(o, "run", json_integer((json_int_t)p->run), err);
    for (size_t i = 0; i < p->nintended; i++)
        push_(intended, jstr_(p->intended[i]), err);
    set_(o, "intended", intended, err);
    set_(o, "environment", jchanges_(p->env, p->nenv, err), err);
    set_(o, "paired_ab", json_boolean(p->ab), err);
    json_t *canary = json_object();
    set_(canary, "processes_a", json_integer((json_int_t)p->canary_a), err);
    set_(canary, "processes_b", json_integer((json_int_t)p->canary_b), err);
    set_(canary, "ratio", jreal_(p->canary_ratio), err);
    set_(canary, "ci_lo", jreal_(p->canary_lo), err);
    set_(canary, "ci_hi", jreal_(p->canary_hi), err);
    set_(canary, "drift", json_boolean(p->drift), err);
    set_(canary, "reading", p->canary_a < 2 || p->canary_b < 2 ? json_null()
                            : jstr_(p->drift ? "moved" : p->canary_unsure ? "cannot_tell" : "did_not_move"), err);
    set_(o, "canary", canary, err);
    if (p->profile_note[0]) {
        json_t *pr = json_object();
        set_(pr, "used", json_boolean(p->profile_used), err);
        set_(pr, "cells", json_integer((json_int_t)p->profile_cells), err);
        set_(pr, "note", jstr_(p->profile_note), err);
        set_(o, "noise_profile", pr, err);
    } else {
        set_(o, "noise_profile", json_null(), err);
    }
    for (size_t i = 0; i < p->ncells && !*err; i++)
        push_(cells, jcell_(&p->cells[i], err), err);
    set_(o, "cells", cells, err);
    for (size_t k = 0; k < p->nbackends && !*err; k++) {
        json_t *b = json_object();
        set_(b, "backend", jstr_(p->backends[k].backend), err);
        jgeomean_(b, &p->backends[k].g, err);
        push_(backends, b, err);
    }
    set_(o, "backends", backends, err);
    set_(o, "geomean_ratio", jreal_(p->all.ratio), err);
    set_(o, "speedup", jreal_(1.0 / p->all.ratio), err);
    for (int k = 0; k < 2; k++) { /* the overall speed-up's cells, and the rest (compare.c, "scope") */
        json_t *g = json_object();
        jgeomean_(g, k ? &p->unaffected : &p->affected, err);
        set_(o, k ? "unaffected" : "affected", g, err);
    }
    set_(summary, "slower", json_integer((json_int_t)p->nslower), err);
    set_(summary, "faster", json_integer((json_int_t)p->nfaster), err);
    set_(summary, "same", json_integer((json_int_t)p->nsame), err);
    set_(summary, "ambiguous", json_integer((json_int_t)p->nambiguous), err);
    set_(summary, "untested", json_integer((json_int_t)p->nuntested), err);
    set_(summary, "mismatch", json_integer((json_int_t)p->nmismatch), err);
    set_(summary, "only_baseline", json_integer((json_int_t)p->nonly_base), err);
    set_(summary, "only_run", json_integer((json_int_t)p->nonly_run), err);
    set_(summary, "confounded", json_integer((json_int_t)p->nconfounded), err);
    set_(summary, "drift", json_integer((json_int_t)p->ndrift), err);
    size_t noisy = 0;
    for (size_t i = 0; i < p->ncells; i++)
        noisy += p->cells[i].t.valid && p->cells[i].t.too_noisy;
    set_(summary, "too_noisy", json_integer((json_int_t)noisy), err);
    set_(summary, "decided", json_integer((json_int_t)compare_ndecided(p)), err);
    set_(summary, "nothing_decided", json_boolean(compare_ndecided(p) == 0), err);
    set_(o, "summary", summary, err);
    (void)r;
    return o;
}

int compare_write_json(const struct compare_result *r, FILE *out)
{
    int err = 0;
    json_t *root = json_object(), *runs = json_array(), *pairs = json_array(), *trend = json_array();
    set_(root, "format", jstr_(COMPARE_JSON_FORMAT), &err);
    set_(root, "alpha", json_real(r->opt.alpha), &err);
    set_(root, "noise", json_real(r->opt.noise), &err);
    set_(root, "confidence", json_real(1.0 - r->opt.alpha), &err);
    set_(root, "resamples", json_integer((json_int_t)r->opt.resamples), &err);
    set_(root, "min_samples", json_integer(SIGNIFICANCE_MIN_SAMPLES), &err);
    set_(root, "min_processes", json_integer(SIGNIFICANCE_MIN_PROCESSES), &err);
    set_(root, "detect", json_real(SIGNIFICANCE_DETECT), &err);
    for (size_t k = 0; k < r->nruns && !err; k++) {
        const struct rundata *rd = r->runs[k];
        json_t *o = json_object();
        if (o) {
            set_(o, "index", json_integer((json_int_t)k), &err);
            set_(o, "dir", jstr_(rd->dir), &err);
            set_(o, "name", jstr_(rd->name), &err);
            set_(o, "created_utc", jstr_(rd->created_utc), &err);
            set_(o, "benchgen_version", jstr_(rd->benchgen_version), &err);
            set_(o, "git_commit", jstr_(rd->git_commit), &err);
            set_(o, "command_line", jstr_(rd->command_line), &err);
        }
        push_(runs, o, &err);
    }
    set_(root, "runs", runs, &err);
    for (size_t k = 0; k < r->npairs && !err; k++)
        push_(pairs, jpair_(r, &r->pairs[k], &err), &err);
    set_(root, "comparisons", pairs, &err);
    for (size_t i = 0; i < r->ntrend && !err; i++) {
        json_t *o = json_object(), *pts = json_array();
        for (size_t k = 0; o && pts && k < r->nruns && !err; k++)
            push_(pts, jside_(&r->trend[i].points[k], &err), &err);
        if (o) {
            set_(o, "id", jstr_(r->trend[i].id), &err);
            set_(o, "points", pts, &err);
        } else {
            json_decref(pts);
        }
        push_(trend, o, &err);
    }
    set_(root, "trend", trend, &err);
    set_(root, "exit_status", json_integer(compare_exit_status(r)), &err);
    char *result = crep_result_text(r, 5); /* the text's last line */
    set_(root, "result", jstr_(result), &err);
    free(result);
    if (!err)
        err = json_write(root, out);
    json_decref(root);
    return err;
}
