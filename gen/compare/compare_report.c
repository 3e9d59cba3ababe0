/*
 * compare_report.c - a comparison of runs in the report's formats (see
 * compare_report.h).
 *
 * Built like the run report: the tables (tables.h) and figures (figures.h)
 * are made once from the struct compare_result, then every writer draws the
 * same ones with the report's own building blocks (doc_html, doc_md, doc_pdf,
 * workbook, escape, template), so all formats show the same rows, numbers
 * and NA texts. The numbers are formatted as compare.txt prints them.
 */
#include "compare/compare_report.h"
#include "compare/crep.h"
#include "charts/chart.h"
#include "report/doc_html.h"
#include "report/doc_md.h"
#include "report/doc_pdf.h"
#include "base/error.h"
#include "base/escape.h"
#include "report/figures.h"
#include "charts/forest.h"
#include "report/rctx.h"
#include "report/tables.h"
#include "base/template.h"
#include "charts/trend.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "compare/compare_tables.h"
#include "compare/compare_workbook.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIG_W 760.0
#define FIG_PNG_SCALE 1.5 /* as the report's summary figures */
#define FOREST_ROWS 40    /* cells per forest plot */
#define TREND_PANELS 12   /* cells per trend figure: four rows of three */

/* verdict colours: the charts' marks, and the tables' tints */
#define C_SLOWER CHART_WORSE
#define C_FASTER CHART_BETTER
#define C_SAME CHART_NA
#define C_AMBIGUOUS CHART_UNSURE
#define C_GEOMEAN CHART_INK

/* ---- words shared by every format ----------------------------------------- */

/* "[1] diffusers-upgrade vs [0] diffusers-base" */
static char *pair_heading(const struct crep *x, const struct compare_pair *p)
{
    return xprintf("[%zu] %s vs [0] %s", p->run, crep_run_name(x, p->run), crep_run_name(x, 0));
}

static unsigned verdict_color(enum significance_verdict v)
{
    switch (v) {
    case SIGNIFICANCE_SLOWER: return C_SLOWER;
    case SIGNIFICANCE_FASTER: return C_FASTER;
    case SIGNIFICANCE_AMBIGUOUS: return C_AMBIGUOUS;
    default: return C_SAME;
    }
}

/* ---- figures ------------------------------------------------------------------ */

/* " (cells 13-24 of 30)", " (cell 13 of 13)" for a figure showing part of the cells. */
static void chunk_suffix(char *buf, size_t n, size_t first, size_t count, size_t total)
{
    if (count == 1)
        snprintf(buf, n, " (cell %zu of %zu)", first + 1, total);
    else
        snprintf(buf, n, " (cells %zu-%zu of %zu)", first + 1, first + count, total);
}

FIGURE_DATA(forestfig, struct forest, f, forest_draw)

static const char *const legend_labels[] = {"slower", "faster", "same", "ambiguous", "geometric mean"};
static const unsigned legend_colors[] = {C_SLOWER, C_FASTER, C_SAME, C_AMBIGUOUS, C_GEOMEAN};

static void forest_cell(struct figure_arena *a, struct forest_row *row, const struct compare_cell *c)
{
    char why[96];
    row->label = c->id;
    row->est = row->lo = row->hi = NAN;
    if (!c->t.valid) {
        crep_untested_reason(c, why, sizeof(why));
        row->na = c->match == COMPARE_MISMATCH ? figure_arena_printf(a, "NA (mismatch: %s)", c->mismatch)
                                               : figure_arena_printf(a, "NA (%s)", why);
        return;
    }
    row->est = c->t.ratio;
    row->lo = c->t.ci_lo;
    row->hi = c->t.ci_hi;
    row->color = verdict_color(c->t.verdict);
    row->value = figure_arena_printf(a, "%.4f [%.4f, %.4f]", c->t.ratio, c->t.ci_lo, c->t.ci_hi);
    char v[96];
    compare_verdict_text(v, sizeof(v), c);
    row->tag = figure_arena_printf(a, "%s%s%s", v,
                                   c->confounded ? ", confounded" : "", c->host_changed[0] ? ", host changed" : "");
}

/* Over the decided cells only; with none decided, no dot: "cannot tell"
 * and the range the cells' intervals allow. */
static void forest_geomean(struct figure_arena *a, struct forest_row *row, const char *name,
                           const struct compare_geomean *g)
{
    char sp[64];
    row->summary = 1;
    row->label = figure_arena_printf(a, "geomean %s (%zu of %zu cell%s decided)", name, g->ndecided, g->ncells,
                                     g->ncells == 1 ? "" : "s");
    row->est = g->ndecided && g->ratio > 0 ? g->ratio : NAN;
    row->lo = row->hi = NAN;
    row->color = C_GEOMEAN;
    row->na = !g->ncells ? "NA (no tested cells)"
                         : figure_arena_printf(a, "cannot tell: B/A in [%.4f, %.4f], no cell decided", g->lo, g->hi);
    crep_speedup_text(g->ratio, sp, sizeof(sp));
    row->value = figure_arena_printf(a, "%.4f", g->ratio);
    row->tag = figure_arena_printf(a, "speed-up %s", sp);
}

static int build_forests(struct crep *x, size_t pi)
{
    const struct compare_result *r = x->r;
    const struct compare_pair *p = &r->pairs[pi];
    size_t nchunks = p->ncells ? (p->ncells + FOREST_ROWS - 1) / FOREST_ROWS : 1;
    x->forest_first[pi] = x->nfigs;
    for (size_t k = 0; k < nchunks; k++) {
        size_t first = k * FOREST_ROWS,
               count = p->ncells - first < FOREST_ROWS ? p->ncells - first : FOREST_ROWS;
        int last = k + 1 == nchunks;
        struct forestfig *f = figure_arena_new(sizeof(*f));
        struct figure_arena *a = &f->a;
        size_t nrows = count + (last ? p->nbackends + 1 + (p->unaffected.ncells > 0) : 0);
        struct forest_row *rows = figure_arena_alloc(a, (nrows + 1) * sizeof(*rows));
        char *head = pair_heading(x, p);
        char suffix[64] = "";
        if (nchunks > 1)
            chunk_suffix(suffix, sizeof(suffix), first, count, p->ncells);
        for (size_t i = 0; i < count; i++)
            forest_cell(a, &rows[i], &p->cells[first + i]);
        for (size_t b = 0; last && b < p->nbackends; b++)
            forest_geomean(a, &rows[count + b], p->backends[b].backend, &p->backends[b].g);
        if (last) /* overall: the cells the change can affect; the rest apart */
            forest_geomean(a, &rows[count + p->nbackends], "overall", &p->affected);
        if (last && p->unaffected.ncells)
            forest_geomean(a, &rows[count + p->nbackends + 1], "unaffected", &p->unaffected);
        double noise = r->opt.noise;
        f->f = (struct forest){
            .title = figure_arena_printf(a, "%s: ratio of mean ms/step B/A%s", head, suffix),
            .subtitle =
                figure_arena_printf(a,
                                    "Dots: B/A with its %g%% interval; below 1: this run is "
                                    "faster. Shaded: the noise band of +/-%g%%.",
                                    (1.0 - r->opt.alpha) * 100.0, noise * 100.0),
            .axis_label = "ratio B/A (log scale)",
            .n = nrows,
            .rows = rows,
            .ref = 1.0,
            .band_lo = 1.0 - noise,
            .band_hi = 1.0 + noise,
            .nlegend = sizeof(legend_labels) / sizeof(*legend_labels),
            .legend_label = legend_labels,
            .legend_color = legend_colors};
        char *name = nchunks > 1 ? xprintf("forest-%zu-%zu", p->run, k + 1) : xprintf("forest-%zu", p->run);
        char *title = xprintf("%s%s", head, suffix);
        free(head);
        int err = figures_add_arena(&x->figs, &x->nfigs, FIG_FOREST, FIG_W, forest_height(&f->f), FIG_PNG_SCALE,
                                    forestfig_draw, f, name, title,
                                    "Each cell's ratio of mean ms/step (this run over the baseline) with its "
                                    "confidence interval and verdict, the noise band shaded, and the geometric "
                                    "means; cells without a verdict say why.");
        if (err < 0)
            return err;
    }
    x->forest_n[pi] = x->nfigs - x->forest_first[pi];
    return 0;
}

FIGURE_DATA(trendfig, struct trend, t, trend_draw)

static int build_trends(struct crep *x)
{
    const struct compare_result *r = x->r;
    x->trend_first = x->nfigs;
    if (r->nruns < 3 || r->ntrend == 0)
        return 0;
    size_t nchunks = (r->ntrend + TREND_PANELS - 1) / TREND_PANELS, nk = r->nruns;
    for (size_t k = 0; k < nchunks; k++) {
        size_t first = k * TREND_PANELS,
               count = r->ntrend - first < TREND_PANELS ? r->ntrend - first : TREND_PANELS;
        struct trendfig *f = figure_arena_new(sizeof(*f));
        struct figure_arena *a = &f->a;
        struct trend_series *ser = figure_arena_alloc(a, count * sizeof(*ser));
        const char **labels = figure_arena_alloc(a, nk * sizeof(*labels));
        struct strbuf key = {0};
        for (size_t j = 0; j < nk; j++) {
            labels[j] = figure_arena_printf(a, "[%zu]", j);
            strbuf_printf(&key, "%s[%zu] %s", j ? "    " : "", j, crep_run_name(x, j));
        }
        for (size_t i = 0; i < count; i++) {
            const struct compare_trend *tr = &r->trend[first + i];
            double *v = figure_arena_alloc(a, nk * sizeof(double)),
                   *lo = figure_arena_alloc(a, nk * sizeof(double));
            double *hi = figure_arena_alloc(a, nk * sizeof(double));
            const char **na = figure_arena_alloc(a, nk * sizeof(*na));
            for (size_t j = 0; j < nk; j++) {
                const struct compare_side *s = &tr->points[j];
                /* measured under other conditions than the baseline: no
                 * number to join to it (compare gives it no ratio either) */
                int mismatch = j > 0 && compare_pair_mismatch(&r->pairs[j - 1], tr->id);
                int ok = s->nreps && s->status == STATUS_OK && isfinite(s->mean_ms) && !mismatch;
                v[j] = ok ? s->mean_ms : NAN;
                lo[j] = ok ? s->ci_lo_ms : NAN;
                hi[j] = ok ? s->ci_hi_ms : NAN;
                na[j] = mismatch                  ? "NA (mismatch)"
                        : !s->nreps               ? "NA (absent)"
                        : s->status != STATUS_OK ? figure_arena_printf(a, "NA (%s)", compare_side_status(s))
                                                 : "NA (no samples)";
            }
            ser[i] = (struct trend_series){.label = tr->id, .v = v, .lo = lo, .hi = hi, .na = na};
        }
        char suffix[64] = "";
        if (nchunks > 1)
            chunk_suffix(suffix, sizeof(suffix), first, count, r->ntrend);
        f->t =
            (struct trend){.title = figure_arena_printf(a, "Mean ms/step in each run%s", suffix),
                           .subtitle = "Change from the baseline [0], one scale for every panel; labels: "
                                       "mean ms/step; whiskers: 95% interval; NA: no number (mismatch: other "
                                       "conditions than [0]).",
                           .key = figure_arena_printf(a, "%s", key.buf ? key.buf : ""),
                           .axis_label = "change vs [0]",
                           .value_unit = "ms/step",
                           .npoints = nk,
                           .point_label = labels,
                           .nseries = count,
                           .series = ser,
                           .cols = 3,
                           .color = C_GEOMEAN,
                           .relative = 1};
        if (strbuf_error(&key))
            a->failed = 1; /* the key is one of the figure's labels */
        strbuf_free(&key);
        int err = figures_add_arena(&x->figs, &x->nfigs, FIG_TREND, FIG_W, trend_height(&f->t), FIG_PNG_SCALE,
                                    trendfig_draw, f, xprintf("trend-%zu", k + 1),
                                    xprintf("Mean ms/step in each run%s", suffix),
                                    "Each cell's mean ms/step in every run, in run order, with its confidence "
                                    "interval; the dashed line is the baseline's value.");
        if (err < 0)
            return err;
    }
    x->trend_n = x->nfigs - x->trend_first;
    return 0;
}

/* ---- the context ----------------------------------------------------------------- */

static void crep_free(struct crep *x)
{
    figures_free(x->figs, x->nfigs);
    for (size_t i = 0; i < x->nmethod; i++)
        free(x->method[i]);
    free(x->method);
    free(x->forest_first);
    free(x->forest_n);
    table_free(&x->trend);
    doc_free(&x->doc);
    free(x->title);
    free(x->subtitle);
    free(x->result);
    memset(x, 0, sizeof(*x));
}

/* Appends text (malloc'd, taken over) to the method's paragraphs. */
static void add_paragraph(struct crep *x, char *text)
{
    x->method = xrealloc(x->method, (x->nmethod + 1) * sizeof(*x->method));
    x->method[x->nmethod++] = text;
}

/* ---- the document ----------------------------------------------------------------- */

static char *pair_intent(const struct compare_pair *p);
static char *pair_summary(const struct compare_pair *p);

/* Adds the table build() makes (a failure is remembered in the document). */
static void doc_built(struct doc *d, int err, struct table *t, double size)
{
    if (err < 0) {
        table_free(t);
        if (!d->err)
            d->err = err;
        return;
    }
    doc_table(d, t, size);
}

/* "sd/predict/b1/torch-eager +10.4% (95% interval +9.8% to +11.0%)" for each
 * cell of verdict v, "; "-joined, into sb; returns how many. */
static size_t verdict_cells(struct strbuf *sb, const struct compare_pair *p, enum significance_verdict v)
{
    size_t n = 0;
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        if (c->match != COMPARE_MATCHED || c->t.verdict != v)
            continue;
        strbuf_printf(sb, "%s%s %+.1f%% (%.0f%% interval %+.1f%% to %+.1f%%)%s%s%s", n++ ? "; " : "", c->id,
                      (c->t.ratio - 1) * 100, c->t.level * 100, (c->t.ci_lo - 1) * 100, (c->t.ci_hi - 1) * 100,
                      c->confounded ? ", confounded" : "", c->host_changed[0] ? ", host changed: " : "",
                      c->host_changed);
    }
    return n;
}

/* What changed between the sides that can change performance: the run-wide
 * differences, then each distinct per-cell one, into sb; returns how many. */
static size_t changed_components(struct strbuf *sb, const struct compare_pair *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nenv; i++)
        if (p->env[i].counted)
            strbuf_printf(sb, "%s%s %s -> %s%s", n++ ? ", " : "", p->env[i].key, p->env[i].a ? p->env[i].a : "(none)",
                          p->env[i].b ? p->env[i].b : "(none)", p->nintended && !p->env[i].intended ? " (not intended)" : "");
    for (size_t i = 0; i < p->ncells; i++)
        for (size_t k = 0; k < p->cells[i].nchanges; k++) {
            const struct compare_change *ch = &p->cells[i].changes[k];
            if (!ch->counted)
                continue;
            char item[512];
            snprintf(item, sizeof(item), "%s %s -> %s", ch->key, ch->a ? ch->a : "(none)", ch->b ? ch->b : "(none)");
            if (sb->buf && strstr(sb->buf, item))
                continue;
            strbuf_printf(sb, "%s%s%s", n++ ? ", " : "", item, p->nintended && !ch->intended ? " (not intended)" : "");
        }
    return n;
}

/* Makes sb's first error (a format that did not expand) the document's. */
static void doc_keep_error(struct doc *d, const struct strbuf *sb)
{
    if (!d->err && strbuf_error(sb))
        d->err = strbuf_error(sb);
}

/* The comparison's answer, first: per comparison, each regression and
 * improvement by how much, and what in the environment changed. */
static void doc_answer(struct doc *d, const struct crep *x)
{
    const struct compare_result *r = x->r;
    doc_section(d, "answer", "What changed");
    for (size_t k = 0; k < r->npairs && !d->err; k++) {
        const struct compare_pair *p = &r->pairs[k];
        struct strbuf slower = {0}, faster = {0}, env = {0};
        strbuf_append(&slower, "", 0);
        strbuf_append(&faster, "", 0);
        strbuf_append(&env, "", 0);
        size_t ns = verdict_cells(&slower, p, SIGNIFICANCE_SLOWER), nf = verdict_cells(&faster, p, SIGNIFICANCE_FASTER);
        size_t ne = changed_components(&env, p);
        doc_keep_error(d, &slower);
        doc_keep_error(d, &faster);
        doc_keep_error(d, &env);
        char overall[200] = "", control[200] = "";
        if (p->affected.ncells) {
            crep_geomean_text(&p->affected, overall, sizeof(overall));
            size_t len = strlen(overall);
            snprintf(overall + len, sizeof(overall) - len, ", of the %zu tested cell%s the change can affect",
                     p->affected.ncells, p->affected.ncells == 1 ? "" : "s");
        }
        if (p->unaffected.ncells) {
            crep_geomean_text(&p->unaffected, control, sizeof(control));
            size_t len = strlen(control);
            snprintf(control + len, sizeof(control) - len, ", of the %zu whose environment did not change",
                     p->unaffected.ncells);
        }
        size_t nt = compare_ntested(p), nd = compare_ndecided(p);
        char none[160] = "no cell got slower";
        if (nt && !nd)
            snprintf(none, sizeof(none), "nothing decided: %s tested cell%s cannot tell", nt == 1 ? "the" : nt == 2 ? "both" : "every",
                     nt == 2 ? "s" : "");
        else if (!nt)
            snprintf(none, sizeof(none), "nothing decided: no cell could be tested");
        doc_paraf(d, ns || !nd ? DOC_NOTE : DOC_NORMAL, 0, "[%zu] %s against [0] %s: %s%s%s%s%s%s. %s%s%s%s%s%s%s%s",
                  p->run, crep_run_name(x, p->run), crep_run_name(x, 0), ns ? "slower: " : none,
                  ns ? slower.buf : "", nf ? (ns ? ". Faster: " : "; faster: ") : "", nf ? faster.buf : "",
                  p->nambiguous && nd ? (ns || nf ? ". Some" : "; some") : "",
                  p->nambiguous && nd ? " cells cannot tell (ambiguous: see the table)" : "",
                  ne ? "What changed that can change performance: " : "Nothing that can change performance changed in the recorded environment",
                  ne ? env.buf : "", ".", overall[0] ? " Overall speed-up: " : "", overall,
                  control[0] ? (overall[0] ? "; " : " Speed-up: ") : "", control, overall[0] || control[0] ? "." : "");
        strbuf_free(&slower);
        strbuf_free(&faster);
        strbuf_free(&env);
    }
    doc_end(d);
}

/* Title, the answer, method and runs, one section per comparison, then the
 * trend: every format draws this one document. */
static int build_doc(struct crep *x)
{
    const struct compare_result *r = x->r;
    struct doc *d = &x->doc;
    struct table t = {0};
    doc_init(d, x->title, x->subtitle, x->figs, x->nfigs);
    doc_answer(d, x);
    doc_section(d, "runs", NULL);
    doc_paras(d, x->method, x->nmethod);
    doc_heading(d, "Runs");
    doc_built(d, compare_tables_runs(x, &t), &t, 7.5);
    doc_para(d, compare_exit_status(r) || crep_nothing_decided(r) ? DOC_NOTE : DOC_GOOD, x->result);
    if (doc_last(d))
        doc_last(d)->size = 10;
    doc_end(d);
    for (size_t k = 0; k < r->npairs && !d->err; k++) {
        const struct compare_pair *p = &r->pairs[k];
        char *head = pair_heading(x, p), *intent = pair_intent(p), *summary = pair_summary(p);
        char id[32];
        snprintf(id, sizeof(id), "cmp-%zu", p->run);
        if (!intent && !d->err)
            d->err = error_set(BG_EGENERIC, "compare: the intended change of [%zu] could not be formatted", p->run);
        doc_section(d, id, head);
        doc_para(d, DOC_NORMAL, intent);
        doc_para(d, DOC_STRONG, summary);
        doc_built(d, compare_tables_verdicts(p, &t), &t, 7);
        for (size_t i = 0; i < x->forest_n[k]; i++)
            doc_figure(d, x->forest_first[k] + i, 0);
        doc_heading(d, "Geometric means");
        doc_built(d, compare_tables_geomeans(p, &t), &t, 7.5);
        doc_heading(d, "Environment differences");
        doc_built(d, compare_tables_envs(p, &t), &t, 7);
        doc_end(d);
        free(head);
        free(intent);
        free(summary);
    }
    if (r->nruns >= 3) {
        doc_section(d, "trend", "Trend: mean ms/step in each run");
        doc_built(d, compare_tables_trend(x, &t), &t, 7);
        for (size_t i = 0; i < x->trend_n; i++)
            doc_figure(d, x->trend_first + i, 0);
        doc_end(d);
    }
    return doc_error(d);
}

static int crep_init(struct crep *x, const struct compare_result *r)
{
    int err = 0;
    memset(x, 0, sizeof(*x));
    x->r = r;
    rctx_created(r->runs[0]->created_utc, &x->created, x->pdf_date, x->created_text);
    size_t np = r->npairs ? r->npairs : 1;
    x->forest_first = xcalloc(np, sizeof(*x->forest_first));
    x->forest_n = xcalloc(np, sizeof(*x->forest_n));
    x->title = r->nruns == 2
                   ? xprintf("Benchmark comparison: %s vs %s", crep_run_name(x, 1), crep_run_name(x, 0))
                   : xprintf("Benchmark comparison: %zu runs against %s", r->nruns - 1, crep_run_name(x, 0));
    x->subtitle = xprintf("Baseline [0] %s, created %s. Every other run is compared with it.", crep_run_name(x, 0),
                          x->created_text);
    x->result = crep_result_text(r, 3); /* never NULL (crep.c) */
    double conf = (1.0 - r->opt.alpha) * 100.0, noise = r->opt.noise * 100.0;
    for (size_t k = 0; k < r->npairs; k++) {
        const struct compare_pair *p = &r->pairs[k];
        if (p->drift)
            add_paragraph(x, xprintf("MACHINE DRIFT: the drift canary (a fixed C GEMM and memory copy timed before "
                                     "every cell) ran %.3fx [%.3f, %.3f] as long in run [%zu] as in the baseline: "
                                     "the machine itself moved beyond the +/-%g%% band, so the %zu verdicts of "
                                     "that comparison are confounded by machine drift. Rerun both sides "
                                     "interleaved (benchgen run SPEC --ab).",
                                     p->canary_ratio, p->canary_lo, p->canary_hi, p->run, noise, p->ndrift));
    }
    add_paragraph(x, xprintf("The process is the unit: each process (repeat) gives its mean ms/step. A cell is "
                             "faster or slower only when each side has at least %d processes, a t-test on the log "
                             "per-process means (paired for the two arms of one interleaved run --ab) is "
                             "significant at %g after Benjamini-Hochberg correction over the comparison's tested "
                             "cells and its %g%% interval of the ratio B/A (this run over the baseline) lies "
                             "entirely outside the cell's noise band: +/-%g%%, or the cell's measured "
                             "between-process CV when larger; same when the interval lies inside the band; "
                             "ambiguous otherwise, with the reason. Noise (CV) is that measured between-process "
                             "CV; too noisy: a 5%% change could not be found with the processes given.",
                             SIGNIFICANCE_MIN_PROCESSES, r->opt.alpha, conf, noise));
    add_paragraph(x, xstrdup("A and B ms/step in the verdict table are the geometric means of the processes' mean "
                             "ms/step: the statistic the ratio B/A is the ratio of (below two processes a side, "
                             "the pooled means of the steps). Geometric means and the overall speed-up are stated "
                             "over the decided cells only (same, faster, slower); when no cell is decided they say "
                             "cannot tell, with the range the cells' intervals allow."));
    add_paragraph(x, xstrdup("Cells measured under different conditions (size, precision, inputs or method: a "
                             "mismatch), cells that did not end ok on a side, and cells present on one side only "
                             "get no verdict and no ratio: they show NA and the reason. A cell is confounded when "
                             "something besides the intended change changed in its environment."));
    add_paragraph(x, xprintf("At least %d timed steps and %d processes per side for a verdict; below two processes "
                             "a side the interval is a %zu-resample bootstrap of the pooled steps, for "
                             "information. docs/COMPARE.md explains the rule; compare.json and compare.xlsx hold "
                             "every number.",
                             SIGNIFICANCE_MIN_SAMPLES, SIGNIFICANCE_MIN_PROCESSES, r->opt.resamples));
    for (size_t k = 0; k < r->npairs; k++)
        if ((err = build_forests(x, k)) < 0)
            return err;
    if (r->nruns >= 3 && (err = compare_tables_trend(x, &x->trend)) < 0)
        return err;
    if ((err = build_trends(x)) < 0)
        return err;
    return build_doc(x);
}

/* NULL only for a format that did not expand. */
static char *pair_intent(const struct compare_pair *p)
{
    struct strbuf sb = {0};
    strbuf_puts(&sb, p->nintended ? "Intended change: "
                                  : "Intended change: not stated (no --intended, no "
                                    "--with pins): a cell is confounded when more "
                                    "than one counted component changed.");
    for (size_t i = 0; i < p->nintended; i++)
        strbuf_printf(&sb, "%s%s", i ? ", " : "", p->intended[i]);
    if (p->nintended)
        strbuf_puts(&sb, ".");
    return strbuf_detach(&sb);
}

static char *pair_summary(const struct compare_pair *p)
{
    char canary[256] = "";
    if (p->canary_a >= 2 && p->canary_b >= 2)
        snprintf(canary, sizeof(canary), " Drift canary B/A %.4f [%.4f, %.4f]: %s.", p->canary_ratio, p->canary_lo,
                 p->canary_hi, compare_canary_words(p));
    else
        snprintf(canary, sizeof(canary), " Drift canary: not recorded.");
    return xprintf(
        "%zu slower, %zu faster, %zu same, %zu ambiguous, %zu untested, %zu mismatched, %zu only in "
        "baseline, %zu only in this run; %zu confounded; %zu confounded by machine drift.%s%s%s%s",
        p->nslower, p->nfaster, p->nsame, p->nambiguous, p->nuntested, p->nmismatch, p->nonly_base,
        p->nonly_run, p->nconfounded, p->ndrift, canary, p->profile_note[0] ? " Noise profile: " : "",
        p->profile_note, p->profile_note[0] ? "." : "");
}

/* ---- rendering -------------------------------------------------------------------- */

static int out_path(char *buf, size_t n, const char *dir, const char *file)
{
    if ((size_t)snprintf(buf, n, "%s/%s", dir, file) >= n)
        return error_set(BG_EUSAGE, "output path too long: %s/%s", dir, file);
    return 0;
}

int compare_report_render(const struct compare_result *r, const char *out_dir)
{
    struct crep x;
    char charts[PATH_MAX], path[PATH_MAX];
    int err;
    if (r->nruns < 2)
        return error_set(BG_EUSAGE, "a comparison needs at least two runs");
    if ((err = chart_fonts_init(util_home_dir())) < 0)
        return err;
    if ((err = out_path(charts, sizeof(charts), out_dir, "charts")) < 0 ||
        (err = util_mkdir_p(charts, 0755)) < 0)
        return err;
    err = crep_init(&x, r);
    /* the SVG text is kept for the HTML, which inlines it */
    if (err == 0)
        err = figures_render_list(x.figs, x.nfigs, x.pdf_date, NULL, charts, CHART_PNG | CHART_SVG | CHART_PDF,
                                  1, 0, 1);
    char footer[400];
    snprintf(footer, sizeof(footer), "%s \xC2\xB7 %s \xC2\xB7 benchgen compare", x.title ? x.title : "",
             x.created_text);
    for (int i = 0; i < 4 && err == 0; i++) {
        static const char *const files[] = {"compare.html", "compare.md", "compare.pdf", "compare.xlsx"};
        if ((err = out_path(path, sizeof(path), out_dir, files[i])) < 0)
            break;
        switch (i) {
        case 0: err = doc_html_write(&x.doc, "compare.html", path); break;
        case 1: err = doc_md_write(&x.doc, "compare.md", path, "charts"); break;
        case 2:
            err = doc_pdf_write(&x.doc, path, "benchmark comparison: ms/step ratios and verdicts", x.pdf_date,
                                footer);
            break;
        default: err = compare_workbook_write(&x, path); break;
        }
        if (err < 0)
            error_prefix(err, "%s", path);
    }
    crep_free(&x);
    return err;
}
