/*
 * answer.c - the report's answer first (see answer.h).
 */
#include "report/answer.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "stats/significance.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void answer_free(struct answer *a)
{
    free(a->rows);
    free(a->wins);
    free(a->ties);
    free(a->measured);
    free(a->geo);
    memset(a, 0, sizeof(*a));
}

/* The ok repeats of grid position (r, c) as significance groups of ms values. */
static void groups_of(const struct rctx *x, size_t r, size_t c, struct significance_group **out, size_t *n)
{
    const struct grid *g = x->g;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *cell = &x->rd->cells[i];
        if (cell->result.status != STATUS_OK || !cell->result.ntimed || !grid_holds(g, r, c, cell))
            continue;
        struct significance_group *ng = xrealloc(*out, (*n + 1) * sizeof(*ng));
        double *ms = xmalloc(cell->result.ntimed * sizeof(double));
        *out = ng;
        for (size_t k = 0; k < cell->result.ntimed; k++)
            ms[k] = (double)cell->result.timed_ns[k] / 1e6;
        ng[(*n)++] = (struct significance_group){ms, cell->result.ntimed};
    }
}

static void groups_free(struct significance_group *gr, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free((void *)gr[i].x);
    free(gr);
}

static int answer_row_build(struct answer *a, const struct rctx *x, size_t r)
{
    const struct grid *g = x->g;
    struct answer_row *ar = &a->rows[r];
    *ar = (struct answer_row){ANSWER_NONE, -1, -1, NAN, NAN, NAN, 0};
    for (size_t c = 0; c < g->ncols; c++) {
        const struct grid_cell *gc = grid_at(g, r, c);
        if (!gc->ok)
            continue;
        a->measured[c]++;
        if (ar->best < 0 || gc->st.mean < grid_at(g, r, (size_t)ar->best)->st.mean) {
            ar->second = ar->best;
            ar->best = (int)c;
        } else if (ar->second < 0 || gc->st.mean < grid_at(g, r, (size_t)ar->second)->st.mean) {
            ar->second = (int)c;
        }
    }
    if (ar->best < 0)
        return 0;
    if (ar->second < 0) {
        ar->kind = ANSWER_ONLY;
        a->wins[ar->best]++;
        return 0;
    }
    double best_ms = grid_at(g, r, (size_t)ar->best)->st.mean;
    for (size_t c = 0; c < g->ncols; c++)
        if (grid_at(g, r, c)->ok && grid_at(g, r, c)->st.mean < best_ms * (1 + ANSWER_NOISE))
            ar->ntied++;
    struct significance_group *ga = NULL, *gb = NULL;
    size_t na = 0, nb = 0;
    struct significance_test t;
    groups_of(x, r, (size_t)ar->best, &ga, &na);
    groups_of(x, r, (size_t)ar->second, &gb, &nb);
    int err = significance_test(ga, na, gb, nb, 0.95, ANSWER_RESAMPLES, 0, &t);
    groups_free(ga, na);
    groups_free(gb, nb);
    if (err < 0)
        return err;
    ar->ratio = grid_at(g, r, (size_t)ar->second)->st.mean / best_ms;
    ar->lo = t.valid ? t.ci_lo : NAN;
    ar->hi = t.valid ? t.ci_hi : NAN;
    if (ar->ratio < 1 + ANSWER_NOISE) {
        ar->kind = ANSWER_TIE;
        for (size_t c = 0; c < g->ncols; c++)
            if (grid_at(g, r, c)->ok && grid_at(g, r, c)->st.mean < best_ms * (1 + ANSWER_NOISE))
                a->ties[c]++;
    } else {
        ar->kind = isfinite(ar->lo) && ar->lo > 1 + ANSWER_NOISE ? ANSWER_CLEAR : ANSWER_LIKELY;
        a->wins[ar->best]++;
    }
    return 0;
}

/* xorshift64*: a fixed-seed generator, so the interval is the same on every render. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

static int cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

static int geo_build(struct answer_geo *ge, const struct rctx *x, size_t c)
{
    const struct grid *g = x->g;
    double *logs = xcalloc(g->nrows + 1, sizeof(double)), *boot = NULL;
    size_t n = 0;
    for (size_t r = 0; r < g->nrows; r++) {
        const struct grid_cell *b = grid_at(g, r, (size_t)x->baseline), *v = grid_at(g, r, c);
        if (b->ok && v->ok && b->st.mean > 0 && v->st.mean > 0)
            logs[n++] = log(b->st.mean / v->st.mean);
    }
    *ge = (struct answer_geo){(int)c, n, NAN, NAN, NAN};
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += logs[i];
    if (n)
        ge->geo = exp(sum / (double)n);
    if (n >= 3) {
        boot = xmalloc(ANSWER_RESAMPLES * sizeof(double));
        uint64_t s = 0x9E3779B97F4A7C15ULL ^ (uint64_t)c;
        for (size_t k = 0; k < ANSWER_RESAMPLES; k++) {
            double m = 0;
            for (size_t i = 0; i < n; i++)
                m += logs[rng_next(&s) % n];
            boot[k] = m / (double)n;
        }
        qsort(boot, ANSWER_RESAMPLES, sizeof(double), cmp_double);
        ge->lo = exp(boot[(size_t)(0.025 * (ANSWER_RESAMPLES - 1))]);
        ge->hi = exp(boot[(size_t)(0.975 * (ANSWER_RESAMPLES - 1))]);
    }
    free(boot);
    free(logs);
    return 0;
}

int answer_build(struct answer *a, const struct rctx *x)
{
    const struct grid *g = x->g;
    memset(a, 0, sizeof(*a));
    a->rows = xcalloc(g->nrows + 1, sizeof(*a->rows));
    a->wins = xcalloc(g->ncols + 1, sizeof(size_t));
    a->ties = xcalloc(g->ncols + 1, sizeof(size_t));
    a->measured = xcalloc(g->ncols + 1, sizeof(size_t));
    a->geo = xcalloc(g->ncols + 1, sizeof(*a->geo));
    int err = 0;
    for (size_t r = 0; r < g->nrows && !err; r++)
        err = answer_row_build(a, x, r);
    for (size_t c = 0; c < g->ncols && !err && x->baseline >= 0; c++)
        if ((int)c != x->baseline)
            err = geo_build(&a->geo[a->ngeo++], x, c);
    for (size_t r = 0; r < g->nrows; r++)
        for (size_t c = 0; c < g->ncols; c++)
            if (grid_at(g, r, c)->nrepeats > a->max_repeats)
                a->max_repeats = grid_at(g, r, c)->nrepeats;
    if (err < 0)
        answer_free(a);
    return err;
}

char *answer_sentence(const struct answer *a, const struct rctx *x, size_t r)
{
    const struct grid *g = x->g;
    const struct answer_row *ar = &a->rows[r];
    const struct grid_row *row = &g->rows[r];
    const char *best = ar->best >= 0 ? g->cols[ar->best].display : "";
    const char *second = ar->second >= 0 ? g->cols[ar->second].display : "";
    double pct = (ar->ratio - 1) * 100, lo = (ar->lo - 1) * 100, hi = (ar->hi - 1) * 100;
    char ci[96] = "";
    if (isfinite(ar->lo))
        snprintf(ci, sizeof(ci), " (95%% interval %+.1f%% to %+.1f%%)", lo, hi);
    switch (ar->kind) {
    case ANSWER_NONE: return xprintf("%s, batch %d: no backend produced a number.", row->label, row->batch);
    case ANSWER_ONLY:
        return xprintf("%s, batch %d: only %s produced a number.", row->label, row->batch, best);
    case ANSWER_TIE:
        return xprintf("%s, batch %d: a tie - %s and %s are %.1f%% apart%s, inside the %.0f%% noise band%s.",
                           row->label, row->batch, best, second, pct, ci, ANSWER_NOISE * 100,
                           ar->ntied > 2 ? "; more backends are within it" : "");
    case ANSWER_LIKELY:
        return xprintf("%s, batch %d: %s is fastest, %.1f%% ahead of %s%s; the interval reaches into the "
                           "%.0f%% noise band, so the lead is likely but not certain.",
                           row->label, row->batch, best, pct, second, ci, ANSWER_NOISE * 100);
    default:
        return xprintf("%s, batch %d: %s is fastest, %.1f%% ahead of %s%s.", row->label, row->batch, best,
                           pct, second, ci);
    }
}
