/*
 * methods.c - the two methods side by side in the Method section (see
 * methods.h).
 */
#include "report/methods.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "plan/status.h"
#include "stats/significance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METHODS_LEVEL 0.95
#define METHODS_RESAMPLES 2000 /* bootstrap resamples of the ratio (fixed seed) */

/* Why a cell has no number: its status, "not run" or "no samples". */
static const char *status_text(const struct rd_cell *c)
{
    if (c->result.status == STATUS_NONE)
        return "not run";
    return c->result.status == STATUS_OK ? "no samples" : status_name(c->result.status);
}

/* One model/task/batch/backend with its first cell under each method, in plan order. */
struct position {
    const struct rd_cell *first;    /* the first of either */
    const struct rd_cell *pub, *cor;
};

static int same_position(const struct rd_cell *a, const struct rd_cell *b)
{
    return a->cell.batch == b->cell.batch && !strcmp(a->cell.model, b->cell.model) &&
           !strcmp(a->cell.task, b->cell.task) && !strcmp(a->cell.backend, b->cell.backend);
}

static int is_ok(const struct rd_cell *c)
{
    return c->result.status == STATUS_OK && c->result.ntimed > 0;
}

/* The positions of rd that ran under both methods, in plan order; *n of them. */
static void positions(const struct rundata *rd, struct position **out, size_t *n)
{
    struct position *p = xcalloc(rd->ncells + 1, sizeof(*p));
    size_t np = 0, kept = 0;
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        int pub = c->cell.method && strcmp(c->cell.method, "published") == 0;
        if (!pub && !(c->cell.method && strcmp(c->cell.method, "corrected") == 0))
            continue;
        size_t k = 0;
        while (k < np && !same_position(p[k].first, c))
            k++;
        if (k == np)
            p[np++].first = c;
        const struct rd_cell **slot = pub ? &p[k].pub : &p[k].cor;
        if (!*slot || (!is_ok(*slot) && is_ok(c)))
            *slot = c; /* the first, or the first ok one: its facts describe what ran */
    }
    for (size_t k = 0; k < np; k++)
        if (p[k].pub && p[k].cor)
            p[kept++] = p[k];
    *out = p;
    *n = kept;
}

/* The ok repeats of position pos under method m as groups of ms values. */
static void groups_of(const struct rundata *rd, const struct rd_cell *pos, const char *m,
                      struct significance_group **out, size_t *n)
{
    *out = xcalloc(rd->ncells + 1, sizeof(**out));
    *n = 0;
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        if (!is_ok(c) || !c->cell.method || strcmp(c->cell.method, m) || !same_position(c, pos))
            continue;
        double *ms = xmalloc(c->result.ntimed * sizeof(*ms));
        for (size_t k = 0; k < c->result.ntimed; k++)
            ms[k] = (double)c->result.timed_ns[k] / 1e6;
        (*out)[(*n)++] = (struct significance_group){ms, c->result.ntimed};
    }
}

static void groups_free(struct significance_group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++)
        free((void *)g[i].x);
    free(g);
}

/* The mean of every sample of the groups (the report's published metric), NAN when none. */
static double pooled_mean(const struct significance_group *g, size_t n)
{
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < g[i].n; j++, k++)
            sum += g[i].x[j];
    return k ? sum / (double)k : NAN;
}

static void set_cell_name(struct table *t, size_t r, const struct rd_cell *c)
{
    table_set(t, r, 0, TC_MONO, NAN, "%s/%s/b%d/%s", c->cell.model, c->cell.task, c->cell.batch, c->cell.backend);
}

/* A side has a mean: an ok repeat with timed steps. */
static int has_mean(size_t repeats, double ms) { return repeats > 0 && isfinite(ms); }

/* A mean ms/step, or "NA (<status>)" when the side has none. */
static void set_ms(struct table *t, size_t r, size_t col, size_t repeats, double ms, const struct rd_cell *c)
{
    char buf[32];
    rctx_fmt_ms(ms, buf, sizeof(buf));
    if (!has_mean(repeats, ms))
        table_set(t, r, col, TC_NA, NAN, "NA (%s)", status_text(c));
    else
        table_set(t, r, col, 0, ms, "%s", buf);
}

/* The next method.<name> fact whose recorded value differs between the
 * published side fp and the corrected side fc (the published side's names
 * first, then those only the corrected side has): its name, or NULL when no
 * more differ. Start with *s = 0, *i = 0. */
static const char *next_differing(const struct kvlist *fp, const struct kvlist *fc, int *s, size_t *i)
{
    const struct kvlist *sides[2] = {fp, fc};
    for (; *s < 2; (*s)++, *i = 0)
        while (*i < sides[*s]->n) {
            const char *name = sides[*s]->items[(*i)++].key;
            if (strncmp(name, "method.", 7) != 0 || !name[7])
                continue;
            if (*s == 1 && kvlist_get(fp, name))
                continue; /* listed with the published side's names */
            const char *pv = kvlist_get(fp, name), *cv = kvlist_get(fc, name);
            if (pv && cv && strcmp(pv, cv) == 0)
                continue;
            return name;
        }
    return NULL;
}

/* Both sides recorded their method and no method.<name> fact differs. */
static int same_work(const struct rd_cell *pub, const struct rd_cell *cor)
{
    const struct kvlist *fp = &pub->result.facts, *fc = &cor->result.facts;
    int s = 0;
    size_t i = 0;
    return kvlist_get(fp, "method") && kvlist_get(fc, "method") && !next_differing(fp, fc, &s, &i);
}

/* The numbers of one position: pooled means of each method's ok repeats and
 * their ratio, published / corrected, with its interval. */
static int pair_of(const struct rundata *rd, const struct position *p, struct methods_pair *out)
{
    struct significance_group *gp = NULL, *gc = NULL;
    size_t np = 0, nc = 0;
    struct significance_test st = {0};
    int err = 0;
    groups_of(rd, p->first, "published", &gp, &np);
    groups_of(rd, p->first, "corrected", &gc, &nc);
    /* B/A with A = corrected: above 1, the published method made the cell slower */
    if (np && nc)
        err = significance_test(gc, nc, gp, np, METHODS_LEVEL, METHODS_RESAMPLES, 1, &st);
    *out = (struct methods_pair){.first = p->first, .pub = p->pub, .cor = p->cor, .repeats_pub = np,
                                 .repeats_cor = nc, .pub_ms = pooled_mean(gp, np), .cor_ms = pooled_mean(gc, nc),
                                 .valid = !err && np && nc && st.valid, .ratio = NAN, .ci_lo = NAN, .ci_hi = NAN,
                                 .same_work = same_work(p->pub, p->cor)};
    if (out->valid) {
        out->ratio = st.ratio;
        out->ci_lo = st.ci_lo;
        out->ci_hi = st.ci_hi;
    }
    groups_free(gp, np);
    groups_free(gc, nc);
    return err;
}

int methods_pairs(const struct rundata *rd, struct methods_pair **out, size_t *n)
{
    struct position *pos = NULL;
    size_t np = 0;
    *out = NULL;
    *n = 0;
    positions(rd, &pos, &np);
    struct methods_pair *pairs = xcalloc(np + 1, sizeof(*pairs));
    int err = 0;
    for (size_t k = 0; k < np && !err; k++)
        err = pair_of(rd, &pos[k], &pairs[k]);
    free(pos);
    if (err < 0) {
        free(pairs);
        return err;
    }
    *out = pairs;
    *n = np;
    return 0;
}

static void side_row(const struct rctx *x, struct table *t, const struct methods_pair *p)
{
    (void)x;
    size_t r = table_row(t);
    set_cell_name(t, r, p->first);
    set_ms(t, r, 1, p->repeats_pub, p->pub_ms, p->pub);
    set_ms(t, r, 2, p->repeats_cor, p->cor_ms, p->cor);
    if (p->valid) {
        table_set(t, r, 3, 0, p->ratio, "%.2fx", p->ratio);
        if (isfinite(p->ci_lo) && isfinite(p->ci_hi))
            table_set(t, r, 4, 0, NAN, "%.2f-%.2fx", p->ci_lo, p->ci_hi);
        else
            table_set(t, r, 4, TC_NA, NAN, "NA");
    } else {
        table_set(t, r, 3, TC_NA, NAN, "NA");
        table_set(t, r, 4, TC_NA, NAN, "NA");
    }
}

/* A 5-column table with HEAD, one call of ROW per position of both methods. */
static int position_table(const struct rctx *x, const struct methods_pair *pairs, size_t n, struct table *t,
                          const char *const head[5], int numeric,
                          void (*row)(const struct rctx *, struct table *, const struct methods_pair *))
{
    table_init(t, 5);
    for (size_t c = 0; c < 5; c++)
        table_head(t, c, head[c], numeric && c > 0);
    for (size_t k = 0; k < n; k++)
        row(x, t, &pairs[k]);
    int err = table_finish(t);
    if (err < 0)
        table_free(t);
    return err;
}

/* One of the two tables of x's positions, computed here (methods_pairs). */
static int pairs_table(const struct rctx *x, struct table *t,
                       int (*build)(const struct rctx *, const struct methods_pair *, size_t, struct table *))
{
    struct methods_pair *pairs = NULL;
    size_t n = 0;
    int err = methods_pairs(x->rd, &pairs, &n);
    if (!err)
        err = build(x, pairs, n, t);
    free(pairs);
    return err;
}

static int side_table(const struct rctx *x, const struct methods_pair *pairs, size_t n, struct table *t)
{
    static const char *const head[5] = {"Cell", "Published ms/step", "Corrected ms/step",
                                        "Published / corrected", "95% interval"};
    return position_table(x, pairs, n, t, head, 1, side_row);
}

int methods_side_table(const struct rctx *x, struct table *t) { return pairs_table(x, t, side_table); }

/* One row for a position one of whose cells recorded no facts (it failed
 * before, or never ran): "recorded" or "NA (<status>)" per side. */
static void unrecorded_row(struct table *t, const struct methods_pair *p)
{
    const struct rd_cell *side[2] = {p->pub, p->cor};
    size_t r = table_row(t);
    set_cell_name(t, r, p->first);
    table_set(t, r, 1, TC_NA, NAN, "no facts to compare");
    for (int s = 0; s < 2; s++) {
        const struct rd_cell *c = side[s];
        if (kvlist_get(&c->result.facts, "method"))
            table_set(t, r, 2 + (size_t)s, 0, NAN, "recorded");
        else
            table_set(t, r, 2 + (size_t)s, TC_NA, NAN, "NA (%s)", status_text(c));
    }
}

/* The rows of one position: each method.<name> fact that differs. */
static void diff_rows(const struct rctx *x, struct table *t, const struct methods_pair *p)
{
    (void)x;
    const struct kvlist *fp = &p->pub->result.facts, *fc = &p->cor->result.facts;
    if (!kvlist_get(fp, "method") || !kvlist_get(fc, "method")) {
        unrecorded_row(t, p);
        return;
    }
    int s = 0;
    size_t i = 0;
    for (const char *name; (name = next_differing(fp, fc, &s, &i));) {
        const char *pv = kvlist_get(fp, name), *cv = kvlist_get(fc, name);
        char src[160];
        snprintf(src, sizeof(src), "method_source.%s", name + 7);
        const char *ref = kvlist_get(fp, src);
        size_t r = table_row(t);
        set_cell_name(t, r, p->first);
        table_set(t, r, 1, TC_MONO, NAN, "%s", name + 7);
        table_set(t, r, 2, pv ? 0 : TC_NA, NAN, "%s", pv ? pv : "-");
        table_set(t, r, 3, cv ? 0 : TC_NA, NAN, "%s", cv ? cv : "-");
        table_set(t, r, 4, TC_MONO, NAN, "%s", ref ? ref : "");
    }
}

static int diff_table(const struct rctx *x, const struct methods_pair *pairs, size_t n, struct table *t)
{
    static const char *const head[5] = {"Cell", "Fact (method.*)", "Published", "Corrected",
                                        "v0.0.5 source"};
    return position_table(x, pairs, n, t, head, 0, diff_rows);
}

int methods_diff_table(const struct rctx *x, struct table *t) { return pairs_table(x, t, diff_table); }

/* The published window of a cell (docs/METHOD.md, "timed as a window"):
 * the ms/step the original would have printed, its two clock reads (markers
 * window.begin and window.end) over the window's calls (fact window.calls),
 * as keras_utils.py divided them; NAN when the cell has no whole window. */
static void pairs_part(struct doc *d, const struct rctx *x);

double methods_window_ms(const struct rd_cell *c)
{
    const char *b = kvlist_get(&c->result.phases, "window.begin");
    const char *e = kvlist_get(&c->result.phases, "window.end");
    const char *n = kvlist_get(&c->result.facts, "window.calls");
    if (!b || !e || !n)
        return NAN;
    char *end1, *end2, *end3;
    long long bn = strtoll(b, &end1, 10), en = strtoll(e, &end2, 10), calls = strtoll(n, &end3, 10);
    if (*end1 || *end2 || *end3 || calls <= 0 || en < bn)
        return NAN;
    return (double)(en - bn) / (double)calls / 1e6;
}

/* Which published cells were timed as a window, beside their per-step mean. */
static void windows_part(struct doc *d, const struct rctx *x)
{
    struct table t = {0};
    static const char *const head[5] = {"Cell", "Per-step mean ms/step", "Window ms/step (as published)",
                                        "Window / per-step", "Calls in the window"};
    table_init(&t, 5);
    for (size_t c = 0; c < 5; c++)
        table_head(&t, c, head[c], c > 0);
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        double w = methods_window_ms(c);
        if (!isfinite(w))
            continue;
        size_t r = table_row(&t);
        char buf[32];
        table_set(&t, r, 0, TC_MONO, NAN, "%s", c->cell.key);
        set_ms(&t, r, 1, c->st.n > 0, c->st.n > 0 ? c->st.mean : NAN, c);
        rctx_fmt_ms(w, buf, sizeof(buf));
        table_set(&t, r, 2, 0, w, "%s", buf);
        if (c->st.n > 0 && c->st.mean > 0)
            table_set(&t, r, 3, 0, w / c->st.mean, "%.2fx", w / c->st.mean);
        else
            table_set(&t, r, 3, TC_NA, NAN, "NA");
        table_set(&t, r, 4, 0, NAN, "%s", kvlist_get(&c->result.facts, "window.calls"));
    }
    int err = table_finish(&t);
    if (err < 0) {
        d->err = err;
        return;
    }
    if (t.nrows) {
        doc_heading(d, "Timed as a window");
        doc_paraf(d, DOC_NORMAL, 0,
                  "%zu published cell%s also timed the original's window (Keras 3 predict, "
                  "benchmark/keras_utils.py:27-48): model.predict over one batch more than the timed steps, one "
                  "clock read as batch 1 begins and one as the last batch ends, with no wait for the device "
                  "between (Keras 3.0.5 hands the callbacks its outputs unconverted) and the one synchronisation, "
                  "the outputs fetched, after it; ms/step is the window over its calls, as the original divided "
                  "it. The per-step mean beside it waits for every step.",
                  t.nrows, t.nrows == 1 ? "" : "s");
        doc_table(d, &t, 7);
    } else {
        table_free(&t);
    }
}

void methods_section(struct doc *d, const struct rctx *x)
{
    pairs_part(d, x);
    if (!d->err)
        windows_part(d, x);
}

static void pairs_part(struct doc *d, const struct rctx *x)
{
    struct table side = {0}, diff = {0};
    struct methods_pair *pairs = NULL;
    size_t n = 0, both = 0;
    int err;
    if (d->err)
        return;
    /* the pairs once, for both tables and the sentence */
    if ((err = methods_pairs(x->rd, &pairs, &n)) < 0 || (err = side_table(x, pairs, n, &side)) < 0) {
        free(pairs);
        d->err = err;
        return;
    }
    if (!side.nrows) {
        free(pairs);
        table_free(&side);
        return;
    }
    if ((err = diff_table(x, pairs, n, &diff)) < 0) {
        free(pairs);
        table_free(&side);
        d->err = err;
        return;
    }
    /* a pair ran under both when both sides have a mean (a side without one says why, NA) */
    size_t same = 0;
    double same_lo = INFINITY, same_hi = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        both += has_mean(pairs[k].repeats_pub, pairs[k].pub_ms) && has_mean(pairs[k].repeats_cor, pairs[k].cor_ms);
        if (pairs[k].valid && pairs[k].same_work) { /* a ratio of 1 but for the processes */
            same++;
            same_lo = fmin(same_lo, pairs[k].ratio);
            same_hi = fmax(same_hi, pairs[k].ratio);
        }
    }
    free(pairs);
    /* the grid shows the method of each position's first cell: the first the spec lists */
    const char *shown = "published";
    for (size_t i = 0; i < x->rd->ncells; i++)
        if (x->rd->cells[i].cell.method) {
            shown = x->rd->cells[i].cell.method;
            break;
        }
    char missing[160] = "";
    if (both < side.nrows)
        snprintf(missing, sizeof(missing), " (of %zu planned under both; %zu %s no result under one method or both, NA below)",
                 side.nrows, side.nrows - both, side.nrows - both == 1 ? "has" : "have");
    doc_heading(d, "Published vs corrected, side by side");
    doc_paraf(d, DOC_NORMAL, 0,
              "%zu cell%s ran under both methods%s: published, what haifeng-jin/keras-benchmarks v0.0.5 did, and "
              "corrected, benchgen's method (docs/METHOD.md). Mean ms/step of each; the ratio is published / "
              "corrected with its 95%% interval: above 1 the original's method made the cell slower than the "
              "corrected measurement, below 1 faster; that is the size of its flaws on the cell. The tables and "
              "charts above show the %s cells.",
              both, both == 1 ? "" : "s", missing, shown);
    doc_table(d, &side, 7);
    if (same == 1)
        doc_paraf(d, DOC_NORMAL, 0,
                  "1 of these cells did the same work under both methods (no method.* fact differs; it has no row in "
                  "\"What differs per cell\"): its ratio, %.2fx, is the difference between two processes, which the "
                  "interval (over one process's steps) does not hold. A ratio says what a method did only beyond "
                  "that spread.",
                  same_lo);
    else if (same > 1)
        doc_paraf(d, DOC_NORMAL, 0,
                  "%zu of these cells did the same work under both methods (no method.* fact differs; they have no "
                  "row in \"What differs per cell\"): their ratios, %.2fx to %.2fx, are the difference between two "
                  "processes, which the interval (over one process's steps) does not hold. A ratio says what a "
                  "method did only beyond that spread.",
                  same, same_lo, same_hi);
    doc_heading(d, "What differs per cell");
    doc_para(d, DOC_NORMAL,
             "Each choice the two methods make differently for a cell, as the cells recorded it (their method.* "
             "facts), with the v0.0.5 source the published cell followed (its method_source.* fact).");
    doc_table(d, &diff, 6.5);
}
