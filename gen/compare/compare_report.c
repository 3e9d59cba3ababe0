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
#include "report/workbook.h"

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
#define C_SLOWER 0xD55E00u
#define C_FASTER 0x009E73u
#define C_SAME 0x7F7F7Fu
#define C_AMBIGUOUS 0xE69F00u
#define C_GEOMEAN 0x0072B2u
#define BG_SLOWER 0xF8696Bu
#define BG_FASTER 0x63BE7Bu
#define BG_AMBIGUOUS 0xFFEB84u

/* Everything the writers share, built once. */
struct crep {
    const struct compare_result *r;
    time_t created;
    char pdf_date[32], created_text[40];
    char *title, *subtitle, *result;
    char **method; /* paragraphs */
    size_t nmethod;
    struct figure *figs;
    size_t nfigs;
    size_t *forest_first, *forest_n; /* per comparison: its forest figures in figs */
    size_t trend_first, trend_n;
    struct table runs, trend;
    struct table *verdicts, *geomeans, *envs; /* per comparison */
};

/* ---- words shared by every format ----------------------------------------- */

static const char *run_name(const struct crep *x, size_t k) { return x->r->runs[k]->name; }

/* "[1] diffusers-upgrade vs [0] diffusers-base" */
static char *pair_heading(const struct crep *x, const struct compare_pair *p)
{
    return util_printf("[%zu] %s vs [0] %s", p->run, run_name(x, p->run), run_name(x, 0));
}

/* Why a cell has no ratio, into buf (returned). */
static const char *untested_reason(const struct compare_cell *c, char *buf, size_t n)
{
    if (c->match == COMPARE_MISMATCH)
        snprintf(buf, n, "mismatch");
    else if (c->match == COMPARE_ONLY_BASE)
        snprintf(buf, n, "only in baseline");
    else if (c->match == COMPARE_ONLY_RUN)
        snprintf(buf, n, "only in this run");
    else if (strcmp(c->a.status, "ok") != 0)
        snprintf(buf, n, "%s in the baseline", c->a.status);
    else if (strcmp(c->b.status, "ok") != 0)
        snprintf(buf, n, "%s in this run", c->b.status);
    else
        snprintf(buf, n, "no samples");
    return buf;
}

/* A side's mean ms/step: its text and value (NAN with an NA text). */
static double side_text(const struct compare_side *s, int baseline, char *buf, size_t n)
{
    if (s->nreps == 0)
        snprintf(buf, n, "NA (not in %s)", baseline ? "the baseline" : "this run");
    else if (strcmp(s->status, "ok") != 0)
        snprintf(buf, n, "NA (%s)", s->status);
    else if (!isfinite(s->mean_ms))
        snprintf(buf, n, "NA (no samples)");
    else {
        compare_fmt_ms(buf, n, s->mean_ms);
        return s->mean_ms;
    }
    return NAN;
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

static unsigned verdict_bg(enum significance_verdict v)
{
    switch (v) {
    case SIGNIFICANCE_SLOWER: return BG_SLOWER;
    case SIGNIFICANCE_FASTER: return BG_FASTER;
    case SIGNIFICANCE_AMBIGUOUS: return BG_AMBIGUOUS;
    default: return 0;
    }
}

/* The first line of a failed side's detail ("RuntimeError: ..."), or "". */
static void side_detail(const struct compare_side *s, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t k = 0; k < s->nreps; k++) {
        const struct rd_cell *c = s->reps[k];
        if (c->status && strcmp(c->status, "ok") != 0 && c->detail && c->detail[0]) {
            snprintf(buf, n, "%.*s", (int)strcspn(c->detail, "\n"), c->detail);
            return;
        }
    }
}

/* The verdict table's last column: why, what differs, what else changed. */
static char *cell_note(const struct compare_cell *c)
{
    struct strbuf sb = {0};
    char detail[200];
    int err = strbuf_append(&sb, "", 0);
    if (c->match == COMPARE_MISMATCH)
        err = err ? err : strbuf_puts(&sb, c->mismatch);
    else if (c->t.verdict == SIGNIFICANCE_AMBIGUOUS)
        err = err ? err : strbuf_puts(&sb, c->t.why);
    if (c->match == COMPARE_MATCHED && c->t.verdict == SIGNIFICANCE_NONE) {
        for (int side = 0; side < 2 && !err; side++) {
            side_detail(side ? &c->b : &c->a, detail, sizeof(detail));
            if (detail[0])
                err = strbuf_printf(&sb, "%s%s: %s", sb.len ? "; " : "", side ? "this run" : "baseline",
                                    detail);
        }
    }
    if (!err && c->confounded)
        err = strbuf_printf(&sb, "%sconfounded: %s", sb.len ? "; " : "", c->unintended);
    if (err) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

static void speedup_text(double geomean_ratio, char *buf, size_t n)
{
    char num[32];
    chart_format_number(1.0 / geomean_ratio, 3, num, sizeof(num));
    snprintf(buf, n, "%sx", num);
}

static const char *change_tag(const struct compare_change *c, const struct compare_pair *p)
{
    return !c->counted     ? "not counted"
           : !p->nintended ? "counted"
           : c->intended   ? "intended"
                           : "NOT intended";
}

/* ---- tables ------------------------------------------------------------------ */

static int build_runs(struct crep *x, struct table *t)
{
    static const char *const head[] = {"#", "Run", "Role", "Created (UTC)", "benchgen", "Command line"};
    int err = table_init(t, 6);
    for (size_t c = 0; c < 6 && !err; c++)
        err = table_head(t, c, head[c], c == 0);
    for (size_t k = 0; k < x->r->nruns && !err; k++) {
        const struct rundata *rd = x->r->runs[k];
        long r = table_row(t);
        if (r < 0)
            return (int)r;
        if ((err = table_set(t, r, 0, 0, (double)k, "%zu", k)) < 0 ||
            (err = table_set(t, r, 1, 0, NAN, "%s", rd->name)) < 0 ||
            (err = table_set(t, r, 2, 0, NAN, "%s", k ? "compared with [0]" : "baseline")) < 0 ||
            (err = table_set(t, r, 3, 0, NAN, "%s", rd->created_utc)) < 0 ||
            (err = table_set(t, r, 4, TC_MONO, NAN, "%s (%s)", rd->benchgen_version, rd->git_commit)) < 0 ||
            (err = table_set(t, r, 5, TC_MONO, NAN, "%s", rd->command_line)) < 0)
            return err;
    }
    return err ? err : table_finish(t);
}

static int build_verdicts(const struct compare_pair *p, struct table *t)
{
    static const char *const head[] = {"Cell",   "A ms/step", "B ms/step", "B/A",
                                       "95% CI", "q (BH)",    "Verdict",   "Note"};
    static const int numeric[] = {0, 1, 1, 1, 1, 1, 0, 0};
    int err = table_init(t, 8);
    for (size_t c = 0; c < 8 && !err; c++)
        err = table_head(t, c, head[c], numeric[c]);
    for (size_t i = 0; i < p->ncells && !err; i++) {
        const struct compare_cell *c = &p->cells[i];
        char a[64], b[64], why[96], v[128];
        long r = table_row(t);
        if (r < 0)
            return (int)r;
        double va = side_text(&c->a, 1, a, sizeof(a)), vb = side_text(&c->b, 0, b, sizeof(b));
        compare_verdict_text(v, sizeof(v), c);
        char *note = cell_note(c);
        if (!note)
            return error_set(BG_ENOMEM, "out of memory");
        err = table_set(t, r, 0, TC_MONO, NAN, "%s", c->id);
        err = err ? err : table_set(t, r, 1, isfinite(va) ? 0 : TC_NA, va, "%s", a);
        err = err ? err : table_set(t, r, 2, isfinite(vb) ? 0 : TC_NA, vb, "%s", b);
        if (!err && c->t.valid) {
            err = table_set(t, r, 3, 0, c->t.ratio, "%.4f", c->t.ratio);
            err = err ? err : table_set(t, r, 4, 0, NAN, "[%.4f, %.4f]", c->t.ci_lo, c->t.ci_hi);
            if (!err && isfinite(c->t.p_adj))
                err = c->t.p_adj < 1e-4 ? table_set(t, r, 5, 0, c->t.p_adj, "%.1e", c->t.p_adj)
                                        : table_set(t, r, 5, 0, c->t.p_adj, "%.4f", c->t.p_adj);
            else if (!err)
                err = table_set(t, r, 5, TC_NA, NAN, "NA");
        } else if (!err) {
            untested_reason(c, why, sizeof(why));
            err = table_set(t, r, 3, TC_NA, NAN, "NA (%s)", why);
            err = err ? err : table_set(t, r, 4, TC_NA, NAN, "NA");
            err = err ? err : table_set(t, r, 5, TC_NA, NAN, "NA");
        }
        unsigned bg = c->match == COMPARE_MATCHED ? verdict_bg(c->t.verdict) : 0;
        unsigned vflags = c->t.verdict == SIGNIFICANCE_NONE ? TC_NA : bg ? TC_HEAT : 0;
        err = err ? err : table_set(t, r, 6, vflags, NAN, "%s", v);
        if (!err && bg)
            t->cells[(size_t)r * t->ncols + 6].bg = bg;
        err = err ? err : table_set(t, r, 7, c->confounded ? TC_WARN : 0, NAN, "%s", note);
        free(note);
    }
    return err ? err : table_finish(t);
}

static int build_geomeans(const struct compare_pair *p, struct table *t)
{
    static const char *const head[] = {"Backend", "Tested cells", "Geomean B/A", "Speed-up (A/B)"};
    int err = table_init(t, 4);
    for (size_t c = 0; c < 4 && !err; c++)
        err = table_head(t, c, head[c], c > 0);
    t->caption = strdup("Geometric mean of the ratios B/A over the tested cells; the speed-up is its inverse "
                        "(above 1: this run is faster).");
    if (!t->caption)
        return error_set(BG_ENOMEM, "out of memory");
    for (size_t k = 0; k <= p->nbackends && !err; k++) {
        int all = k == p->nbackends;
        size_t n = all ? p->ngeomean : p->backends[k].ncells;
        double g = all ? p->geomean_ratio : p->backends[k].geomean_ratio;
        long r = table_row(t);
        if (r < 0)
            return (int)r;
        unsigned bold = all ? TC_BOLD : 0;
        err = all ? table_set(t, r, 0, bold, NAN, "All tested cells")
                  : table_set(t, r, 0, TC_MONO, NAN, "%s", p->backends[k].backend);
        err = err ? err : table_set(t, r, 1, bold, (double)n, "%zu", n);
        if (!err && n && isfinite(g) && g > 0) {
            char sp[64];
            speedup_text(g, sp, sizeof(sp));
            err = table_set(t, r, 2, bold, g, "%.4f", g);
            err = err ? err : table_set(t, r, 3, bold, 1.0 / g, "%s", sp);
        } else if (!err) {
            err = table_set(t, r, 2, TC_NA, NAN, "NA (no tested cells)");
            err = err ? err : table_set(t, r, 3, TC_NA, NAN, "NA (no tested cells)");
        }
    }
    return err ? err : table_finish(t);
}

static int env_row(struct table *t, const char *scope, const struct compare_change *ch,
                   const struct compare_pair *p)
{
    long r = table_row(t);
    if (r < 0)
        return (int)r;
    const char *tag = change_tag(ch, p);
    int err = table_set(t, r, 0, 0, NAN, "%s", scope);
    err = err ? err : table_set(t, r, 1, TC_MONO, NAN, "%s", ch->key);
    err = err ? err : table_set(t, r, 2, ch->a ? TC_MONO : TC_NA, NAN, "%s", ch->a ? ch->a : "(none)");
    err = err ? err : table_set(t, r, 3, ch->b ? TC_MONO : TC_NA, NAN, "%s", ch->b ? ch->b : "(none)");
    return err ? err : table_set(t, r, 4, strcmp(tag, "NOT intended") ? 0 : TC_WARN, NAN, "%s", tag);
}

/* Whether a side recorded its environment (a cell that failed early has none). */
static bool env_recorded(const struct compare_side *s)
{
    for (size_t k = 0; k < s->nreps; k++)
        if (s->reps[k]->environment.n)
            return true;
    return false;
}

static bool same_changes(const struct compare_cell *x, const struct compare_cell *y)
{
    if (x->nchanges != y->nchanges)
        return false;
    if (x->nchanges == 0 &&
        (env_recorded(&x->a) && env_recorded(&x->b)) != (env_recorded(&y->a) && env_recorded(&y->b)))
        return false;
    for (size_t k = 0; k < x->nchanges; k++) {
        const struct compare_change *a = &x->changes[k], *b = &y->changes[k];
        if (strcmp(a->key, b->key) || (a->a == NULL) != (b->a == NULL) || (a->b == NULL) != (b->b == NULL) ||
            (a->a && strcmp(a->a, b->a)) || (a->b && strcmp(a->b, b->b)) || a->counted != b->counted ||
            a->intended != b->intended)
            return false;
    }
    return strcmp(x->a.reps[0]->env, y->a.reps[0]->env) == 0 &&
           strcmp(x->b.reps[0]->env, y->b.reps[0]->env) == 0;
}

/* Run-wide differences, then the per-cell ones grouped like the text
 * output: cells with the same list share one scope (usually one group per
 * Python environment). */
static int build_envs(const struct compare_pair *p, struct table *t)
{
    static const char *const head[] = {"Scope", "Key", "Baseline", "This run", "Counted / intended"};
    bool *done = calloc(p->ncells + 1, sizeof(*done));
    struct strbuf scope = {0};
    int err = done ? table_init(t, 5) : error_set(BG_ENOMEM, "out of memory");
    for (size_t c = 0; c < 5 && !err; c++)
        err = table_head(t, c, head[c], 0);
    for (size_t i = 0; i < p->nenv && !err; i++)
        err = env_row(t, "whole run", &p->env[i], p);
    for (size_t i = 0; i < p->ncells && !err; i++) {
        const struct compare_cell *c = &p->cells[i];
        if (done[i] || c->a.nreps == 0 || c->b.nreps == 0)
            continue;
        size_t count = 0;
        for (size_t j = i; j < p->ncells; j++)
            if (!done[j] && p->cells[j].a.nreps && p->cells[j].b.nreps && same_changes(c, &p->cells[j]))
                count++;
        strbuf_free(&scope);
        err = strbuf_printf(&scope, "%zu cell%s (env %s -> %s):", count, count == 1 ? "" : "s",
                            c->a.reps[0]->env, c->b.reps[0]->env);
        for (size_t j = i, shown = 0; j < p->ncells && !err; j++) {
            if (done[j] || !p->cells[j].a.nreps || !p->cells[j].b.nreps || !same_changes(c, &p->cells[j]))
                continue;
            done[j] = true;
            err = strbuf_printf(&scope, "%s %s", shown++ ? "," : "", p->cells[j].id);
        }
        for (size_t k = 0; k < c->nchanges && !err; k++) /* the scope once, on its group's first row */
            err = env_row(t, k ? "" : scope.buf, &c->changes[k], p);
        if (!err && c->nchanges == 0) {
            long r = table_row(t);
            if (r < 0) {
                err = (int)r;
                break;
            }
            err = table_set(t, r, 0, 0, NAN, "%s", scope.buf);
            err = err ? err
                      : table_set(t, r, 1, TC_NA, NAN, "%s",
                                  env_recorded(&c->a) && env_recorded(&c->b)
                                      ? "(no differences)"
                                      : "(environment not recorded on a side)");
        }
    }
    strbuf_free(&scope);
    free(done);
    return err ? err : table_finish(t);
}

static int build_trend(const struct crep *x, struct table *t)
{
    const struct compare_result *r = x->r;
    int err = table_init(t, 1 + r->nruns);
    err = err ? err : table_head(t, 0, "Cell", 0);
    t->caption = strdup("Mean ms/step of each cell in every run; NA: the run has no number for it, and why.");
    if (!t->caption && !err)
        err = error_set(BG_ENOMEM, "out of memory");
    for (size_t k = 0; k < r->nruns && !err; k++) {
        char *h = util_printf("[%zu] %s", k, run_name(x, k));
        err = h ? table_head(t, 1 + k, h, 1) : error_set(BG_ENOMEM, "out of memory");
        free(h);
    }
    for (size_t i = 0; i < r->ntrend && !err; i++) {
        long row = table_row(t);
        if (row < 0)
            return (int)row;
        err = table_set(t, row, 0, TC_MONO, NAN, "%s", r->trend[i].id);
        for (size_t k = 0; k < r->nruns && !err; k++) {
            const struct compare_side *s = &r->trend[i].points[k];
            char buf[64];
            double v = s->nreps ? side_text(s, 0, buf, sizeof(buf)) : NAN;
            if (!s->nreps)
                snprintf(buf, sizeof(buf), "NA (absent)");
            err = table_set(t, row, 1 + k, isfinite(v) ? 0 : TC_NA, v, "%s", buf);
        }
    }
    return err ? err : table_finish(t);
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

struct forestfig {
    struct figure_arena a;
    struct forest f;
};

static int forestfig_draw(struct chart *c, struct chart_rect r, const void *data)
{
    return forest_draw(c, r, &((const struct forestfig *)data)->f);
}

static const char *const legend_labels[] = {"slower", "faster", "same", "ambiguous", "geometric mean"};
static const unsigned legend_colors[] = {C_SLOWER, C_FASTER, C_SAME, C_AMBIGUOUS, C_GEOMEAN};

static void forest_cell(struct figure_arena *a, struct forest_row *row, const struct compare_cell *c)
{
    char why[96];
    row->label = c->id;
    row->est = row->lo = row->hi = NAN;
    if (!c->t.valid) {
        untested_reason(c, why, sizeof(why));
        row->na = c->match == COMPARE_MISMATCH ? figure_arena_printf(a, "NA (mismatch: %s)", c->mismatch)
                                               : figure_arena_printf(a, "NA (%s)", why);
        return;
    }
    row->est = c->t.ratio;
    row->lo = c->t.ci_lo;
    row->hi = c->t.ci_hi;
    row->color = verdict_color(c->t.verdict);
    row->value = figure_arena_printf(a, "%.4f [%.4f, %.4f]", c->t.ratio, c->t.ci_lo, c->t.ci_hi);
    row->tag = figure_arena_printf(a, "%s%s", significance_verdict_name(c->t.verdict),
                                   c->confounded ? ", confounded" : "");
}

static void forest_geomean(struct figure_arena *a, struct forest_row *row, const char *name, size_t n,
                           double g)
{
    char sp[64];
    row->summary = 1;
    row->label = figure_arena_printf(a, "geomean %s (%zu cell%s)", name, n, n == 1 ? "" : "s");
    row->est = n && g > 0 ? g : NAN;
    row->lo = row->hi = NAN;
    row->color = C_GEOMEAN;
    row->na = "NA (no tested cells)";
    speedup_text(g, sp, sizeof(sp));
    row->value = figure_arena_printf(a, "%.4f", g);
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
        if (!f)
            return error_set(BG_ENOMEM, "out of memory");
        struct figure_arena *a = &f->a;
        size_t nrows = count + (last ? p->nbackends + 1 : 0);
        struct forest_row *rows = figure_arena_alloc(a, (nrows + 1) * sizeof(*rows));
        char *head = pair_heading(x, p);
        char suffix[64] = "";
        if (nchunks > 1)
            chunk_suffix(suffix, sizeof(suffix), first, count, p->ncells);
        for (size_t i = 0; rows && i < count; i++)
            forest_cell(a, &rows[i], &p->cells[first + i]);
        for (size_t b = 0; rows && last && b < p->nbackends; b++)
            forest_geomean(a, &rows[count + b], p->backends[b].backend, p->backends[b].ncells,
                           p->backends[b].geomean_ratio);
        if (rows && last)
            forest_geomean(a, &rows[count + p->nbackends], "all", p->ngeomean, p->geomean_ratio);
        double noise = r->opt.noise;
        f->f = (struct forest){
            .title = head ? figure_arena_printf(a, "%s: ratio of mean ms/step B/A%s", head, suffix) : NULL,
            .subtitle =
                figure_arena_printf(a,
                                    "Dots: B/A with its %g%% bootstrap interval; below 1: this run is "
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
        char *name =
            nchunks > 1 ? util_printf("forest-%zu-%zu", p->run, k + 1) : util_printf("forest-%zu", p->run);
        char *title = head ? util_printf("%s%s", head, suffix) : NULL;
        free(head);
        if (!name || !title || a->failed || !f->f.title || !f->f.subtitle) {
            free(name);
            free(title);
            figure_arena_free(f);
            return error_set(BG_ENOMEM, "out of memory");
        }
        int err = figures_add(&x->figs, &x->nfigs, FIG_FOREST, FIG_W, forest_height(&f->f), FIG_PNG_SCALE,
                              forestfig_draw, f, figure_arena_free, name, title,
                              "Each cell's ratio of mean ms/step (this run over the baseline) with its "
                              "confidence interval and verdict, the noise band shaded, and the geometric "
                              "means; cells without a verdict say why.");
        free(name);
        free(title);
        if (err < 0)
            return err;
    }
    x->forest_n[pi] = x->nfigs - x->forest_first[pi];
    return 0;
}

struct trendfig {
    struct figure_arena a;
    struct trend t;
};

static int trendfig_draw(struct chart *c, struct chart_rect r, const void *data)
{
    return trend_draw(c, r, &((const struct trendfig *)data)->t);
}

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
        if (!f)
            return error_set(BG_ENOMEM, "out of memory");
        struct figure_arena *a = &f->a;
        struct trend_series *ser = figure_arena_alloc(a, count * sizeof(*ser));
        const char **labels = figure_arena_alloc(a, nk * sizeof(*labels));
        struct strbuf key = {0};
        int err = strbuf_append(&key, "", 0);
        for (size_t j = 0; labels && j < nk && !err; j++) {
            labels[j] = figure_arena_printf(a, "[%zu]", j);
            err = strbuf_printf(&key, "%s[%zu] %s", j ? "    " : "", j, run_name(x, j));
        }
        for (size_t i = 0; ser && i < count; i++) {
            const struct compare_trend *tr = &r->trend[first + i];
            double *v = figure_arena_alloc(a, nk * sizeof(double)),
                   *lo = figure_arena_alloc(a, nk * sizeof(double));
            double *hi = figure_arena_alloc(a, nk * sizeof(double));
            const char **na = figure_arena_alloc(a, nk * sizeof(*na));
            if (!v || !lo || !hi || !na)
                break;
            for (size_t j = 0; j < nk; j++) {
                const struct compare_side *s = &tr->points[j];
                int ok = s->nreps && !strcmp(s->status, "ok") && isfinite(s->mean_ms);
                v[j] = ok ? s->mean_ms : NAN;
                lo[j] = ok ? s->ci_lo_ms : NAN;
                hi[j] = ok ? s->ci_hi_ms : NAN;
                na[j] = !s->nreps                 ? "NA (absent)"
                        : strcmp(s->status, "ok") ? figure_arena_printf(a, "NA (%s)", s->status)
                                                  : "NA (no samples)";
            }
            ser[i] = (struct trend_series){.label = tr->id, .v = v, .lo = lo, .hi = hi, .na = na};
        }
        char suffix[64] = "";
        if (nchunks > 1)
            chunk_suffix(suffix, sizeof(suffix), first, count, r->ntrend);
        f->t =
            (struct trend){.title = figure_arena_printf(a, "Mean ms/step in each run%s", suffix),
                           .subtitle = "Whiskers: 95% bootstrap interval of the mean; dashed: the baseline "
                                       "[0]; NA: the run has no number for the cell.",
                           .key = key.buf ? figure_arena_printf(a, "%s", key.buf) : NULL,
                           .axis_label = "ms/step",
                           .npoints = nk,
                           .point_label = labels,
                           .nseries = count,
                           .series = ser,
                           .cols = 3,
                           .color = C_GEOMEAN};
        strbuf_free(&key);
        char *name = util_printf("trend-%zu", k + 1),
             *title = util_printf("Mean ms/step in each run%s", suffix);
        if (err || !name || !title || a->failed || !f->t.title || !f->t.key) {
            free(name);
            free(title);
            figure_arena_free(f);
            return err ? err : error_set(BG_ENOMEM, "out of memory");
        }
        err = figures_add(&x->figs, &x->nfigs, FIG_TREND, FIG_W, trend_height(&f->t), FIG_PNG_SCALE,
                          trendfig_draw, f, figure_arena_free, name, title,
                          "Each cell's mean ms/step in every run, in run order, with its confidence "
                          "interval; the dashed line is the baseline's value.");
        free(name);
        free(title);
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
    for (size_t k = 0; k < x->r->npairs; k++) {
        if (x->verdicts)
            table_free(&x->verdicts[k]);
        if (x->geomeans)
            table_free(&x->geomeans[k]);
        if (x->envs)
            table_free(&x->envs[k]);
    }
    free(x->verdicts);
    free(x->geomeans);
    free(x->envs);
    free(x->forest_first);
    free(x->forest_n);
    table_free(&x->runs);
    table_free(&x->trend);
    free(x->title);
    free(x->subtitle);
    free(x->result);
    memset(x, 0, sizeof(*x));
}

static int add_paragraph(struct crep *x, char *text)
{
    if (!text)
        return error_set(BG_ENOMEM, "out of memory");
    char **grown = realloc(x->method, (x->nmethod + 1) * sizeof(*grown));
    if (!grown) {
        free(text);
        return error_set(BG_ENOMEM, "out of memory");
    }
    x->method = grown;
    x->method[x->nmethod++] = text;
    return 0;
}

static int crep_init(struct crep *x, const struct compare_result *r)
{
    int err = 0;
    memset(x, 0, sizeof(*x));
    x->r = r;
    rctx_created(r->runs[0]->created_utc, &x->created, x->pdf_date, x->created_text);
    size_t np = r->npairs ? r->npairs : 1;
    x->verdicts = calloc(np, sizeof(*x->verdicts));
    x->geomeans = calloc(np, sizeof(*x->geomeans));
    x->envs = calloc(np, sizeof(*x->envs));
    x->forest_first = calloc(np, sizeof(*x->forest_first));
    x->forest_n = calloc(np, sizeof(*x->forest_n));
    x->title = r->nruns == 2
                   ? util_printf("Benchmark comparison: %s vs %s", run_name(x, 1), run_name(x, 0))
                   : util_printf("Benchmark comparison: %zu runs against %s", r->nruns - 1, run_name(x, 0));
    x->subtitle = util_printf("Baseline [0] %s, created %s. Every other run is compared with it.",
                              run_name(x, 0), x->created_text);
    x->result = strdup(compare_exit_status(r) ? "Result: some cell got slower (exit status 3)."
                                              : "Result: no cell got slower (exit status 0).");
    if (!x->verdicts || !x->geomeans || !x->envs || !x->forest_first || !x->forest_n || !x->title ||
        !x->subtitle || !x->result)
        return error_set(BG_ENOMEM, "out of memory");
    double conf = (1.0 - r->opt.alpha) * 100.0, noise = r->opt.noise * 100.0;
    if ((err = add_paragraph(
             x,
             util_printf("A cell is faster or slower only when a Mann-Whitney U test on the step times is "
                         "significant at %g after Benjamini-Hochberg correction over the comparison's tested "
                         "cells and the %g%% bootstrap interval of the ratio of means B/A (this run over the "
                         "baseline) lies entirely outside the noise band of +/-%g%%; same when the interval "
                         "lies inside the band; ambiguous otherwise.",
                         r->opt.alpha, conf, noise))) < 0 ||
        (err = add_paragraph(
             x,
             strdup(
                 "Cells measured under different conditions (size, precision, inputs or method: a "
                 "mismatch), cells that did not end ok on a side, and cells present on one side only get no "
                 "verdict and no ratio: they show NA and the reason. A cell is confounded when something "
                 "besides the intended change changed in its environment."))) < 0 ||
        (err = add_paragraph(x, util_printf("%zu bootstrap resamples; at least %d timed steps per side for a "
                                            "verdict. docs/COMPARE.md explains the rule; compare.json and "
                                            "compare.xlsx hold every number.",
                                            r->opt.resamples, SIGNIFICANCE_MIN_SAMPLES))) < 0)
        return err;
    if ((err = build_runs(x, &x->runs)) < 0)
        return err;
    for (size_t k = 0; k < r->npairs; k++)
        if ((err = build_verdicts(&r->pairs[k], &x->verdicts[k])) < 0 ||
            (err = build_geomeans(&r->pairs[k], &x->geomeans[k])) < 0 ||
            (err = build_envs(&r->pairs[k], &x->envs[k])) < 0 || (err = build_forests(x, k)) < 0)
            return err;
    if (r->nruns >= 3 && (err = build_trend(x, &x->trend)) < 0)
        return err;
    return build_trends(x);
}

static char *pair_intent(const struct compare_pair *p)
{
    struct strbuf sb = {0};
    int err = strbuf_puts(&sb, p->nintended ? "Intended change: "
                                            : "Intended change: not stated (no --intended, no "
                                              "--with pins): a cell is confounded when more "
                                              "than one counted component changed.");
    for (size_t i = 0; i < p->nintended && !err; i++)
        err = strbuf_printf(&sb, "%s%s", i ? ", " : "", p->intended[i]);
    err = err ? err : (p->nintended ? strbuf_puts(&sb, ".") : 0);
    if (err) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

static char *pair_summary(const struct compare_pair *p)
{
    return util_printf(
        "%zu slower, %zu faster, %zu same, %zu ambiguous, %zu untested, %zu mismatched, %zu only in "
        "baseline, %zu only in this run; %zu confounded.",
        p->nslower, p->nfaster, p->nsame, p->nambiguous, p->nuntested, p->nmismatch, p->nonly_base,
        p->nonly_run, p->nconfounded);
}

/* ---- HTML ------------------------------------------------------------------------ */

static int html_pair(struct strbuf *sb, const struct crep *x, size_t k, struct doc_html_glyphs *g)
{
    const struct compare_pair *p = &x->r->pairs[k];
    char *head = pair_heading(x, p), *intent = pair_intent(p), *summary = pair_summary(p);
    int err = head && intent && summary ? 0 : error_set(BG_ENOMEM, "out of memory");
    err = err ? err : strbuf_printf(sb, "<section id=\"cmp-%zu\">\n<h2>", p->run);
    err = err ? err : escape_html(sb, head);
    err = err ? err : strbuf_puts(sb, "</h2>\n<p>");
    err = err ? err : escape_html(sb, intent);
    err = err ? err : strbuf_puts(sb, "</p>\n<p><b>");
    err = err ? err : escape_html(sb, summary);
    err = err ? err : strbuf_puts(sb, "</b></p>\n");
    err = err ? err : doc_html_table(sb, &x->verdicts[k]);
    for (size_t i = 0; i < x->forest_n[k] && !err; i++)
        err = doc_html_figure(sb, &x->figs[x->forest_first[k] + i], x->forest_first[k] + i, g);
    err = err ? err : strbuf_puts(sb, "<h3>Geometric means</h3>\n");
    err = err ? err : doc_html_table(sb, &x->geomeans[k]);
    err = err ? err : strbuf_puts(sb, "<h3>Environment differences</h3>\n");
    err = err ? err : doc_html_table(sb, &x->envs[k]);
    err = err ? err : strbuf_puts(sb, "</section>\n");
    free(head);
    free(intent);
    free(summary);
    return err;
}

static int html_write(const struct crep *x, const char *path)
{
    struct kvlist vars = {0};
    struct strbuf sb = {0}, out = {0};
    struct doc_html_glyphs glyphs = {0};
    char *tmpl = NULL, *css = NULL;
    char gen[64];
    int err;
    snprintf(gen, sizeof(gen), "benchgen %s", BENCHGEN_VERSION);
    if ((err = template_load(&tmpl, "compare.html")) < 0 || (err = template_load(&css, "report.css")) < 0)
        goto done;
    if ((err = kvlist_add(&vars, "title", x->title)) < 0 ||
        (err = kvlist_add(&vars, "subtitle", x->subtitle)) < 0 ||
        (err = kvlist_add(&vars, "generator", gen)) < 0 || (err = kvlist_add(&vars, "css", css)) < 0 ||
        (err = kvlist_add(&vars, "result", x->result)) < 0 ||
        (err = kvlist_add(&vars, "result_class", compare_exit_status(x->r) ? "note" : "ok")) < 0)
        goto done;
    /* nav */
    err = strbuf_puts(&sb, "<a href=\"#runs\">Runs</a>");
    for (size_t k = 0; k < x->r->npairs && !err; k++) {
        err = strbuf_printf(&sb, "<a href=\"#cmp-%zu\">[%zu] ", x->r->pairs[k].run, x->r->pairs[k].run);
        err = err ? err : escape_html(&sb, run_name(x, x->r->pairs[k].run));
        err = err ? err : strbuf_puts(&sb, "</a>");
    }
    if (!err && x->r->nruns >= 3)
        err = strbuf_puts(&sb, "<a href=\"#trend\">Trend</a>");
    if (err < 0 || (err = kvlist_add(&vars, "nav", sb.buf)) < 0)
        goto done;
    strbuf_free(&sb);
    if ((err = strbuf_append(&sb, "", 0)) < 0 ||
        (err = doc_html_paragraphs(&sb, x->method, x->nmethod)) < 0 ||
        (err = kvlist_add(&vars, "method", sb.buf)) < 0)
        goto done;
    strbuf_free(&sb);
    if ((err = strbuf_append(&sb, "", 0)) < 0 || (err = doc_html_table(&sb, &x->runs)) < 0 ||
        (err = kvlist_add(&vars, "runs", sb.buf)) < 0)
        goto done;
    strbuf_free(&sb);
    err = strbuf_append(&sb, "", 0);
    for (size_t k = 0; k < x->r->npairs && !err; k++)
        err = html_pair(&sb, x, k, &glyphs);
    if (err < 0 || (err = kvlist_add(&vars, "comparisons", sb.buf)) < 0)
        goto done;
    strbuf_free(&sb);
    err = strbuf_append(&sb, "", 0);
    if (!err && x->r->nruns >= 3) {
        err = strbuf_puts(&sb, "<section id=\"trend\">\n<h2>Trend: mean ms/step in each run</h2>\n");
        err = err ? err : doc_html_table(&sb, &x->trend);
        for (size_t i = 0; i < x->trend_n && !err; i++)
            err = doc_html_figure(&sb, &x->figs[x->trend_first + i], x->trend_first + i, &glyphs);
        err = err ? err : strbuf_puts(&sb, "</section>\n");
    }
    if (err < 0 || (err = kvlist_add(&vars, "trend", sb.buf)) < 0)
        goto done;
    if ((err = template_render(&out, "compare.html", tmpl, &vars, escape_html)) < 0)
        goto done;
    err = chart_write_file(path, out.buf, out.len);
done:
    kvlist_free(&vars);
    strbuf_free(&sb);
    strbuf_free(&out);
    doc_html_glyphs_free(&glyphs);
    free(tmpl);
    free(css);
    return err;
}

/* ---- Markdown --------------------------------------------------------------------- */

/* An escaped heading line: "## text\n\n". */
static int md_heading(struct strbuf *sb, const char *hashes, const char *text)
{
    int err = strbuf_printf(sb, "%s ", hashes);
    err = err ? err : escape_md(sb, text);
    return err ? err : strbuf_puts(sb, "\n\n");
}

static int md_pair(struct strbuf *sb, const struct crep *x, size_t k)
{
    const struct compare_pair *p = &x->r->pairs[k];
    char *head = pair_heading(x, p), *intent = pair_intent(p), *summary = pair_summary(p);
    int err = head && intent && summary ? 0 : error_set(BG_ENOMEM, "out of memory");
    err = err ? err : md_heading(sb, "##", head);
    err = err ? err : escape_md(sb, intent);
    err = err ? err : strbuf_puts(sb, "\n\n**");
    err = err ? err : escape_md(sb, summary);
    err = err ? err : strbuf_puts(sb, "**\n\n");
    err = err ? err : doc_md_table(sb, &x->verdicts[k]);
    err = err ? err : strbuf_puts(sb, "\n");
    for (size_t i = 0; i < x->forest_n[k] && !err; i++)
        err = doc_md_figure(sb, &x->figs[x->forest_first[k] + i], "charts");
    err = err ? err : md_heading(sb, "###", "Geometric means");
    err = err ? err : doc_md_table(sb, &x->geomeans[k]);
    err = err ? err : strbuf_puts(sb, "\n");
    err = err ? err : md_heading(sb, "###", "Environment differences");
    err = err ? err : doc_md_table(sb, &x->envs[k]);
    err = err ? err : strbuf_puts(sb, "\n");
    free(head);
    free(intent);
    free(summary);
    return err;
}

static int md_write(const struct crep *x, const char *path)
{
    struct kvlist vars = {0};
    struct strbuf sb = {0}, out = {0};
    char *tmpl = NULL;
    char gen[64];
    int err;
    snprintf(gen, sizeof(gen), "benchgen %s", BENCHGEN_VERSION);
    if ((err = template_load(&tmpl, "compare.md")) < 0)
        goto done;
    if ((err = kvlist_add(&vars, "title", x->title)) < 0 ||
        (err = kvlist_add(&vars, "subtitle", x->subtitle)) < 0 ||
        (err = kvlist_add(&vars, "generator", gen)) < 0 || (err = kvlist_add(&vars, "result", x->result)) < 0)
        goto done;
    if ((err = strbuf_append(&sb, "", 0)) < 0 || (err = doc_md_paragraphs(&sb, x->method, x->nmethod)) < 0 ||
        (err = kvlist_add(&vars, "method", sb.buf)) < 0)
        goto done;
    strbuf_free(&sb);
    if ((err = strbuf_append(&sb, "", 0)) < 0 || (err = doc_md_table(&sb, &x->runs)) < 0 ||
        (err = kvlist_add(&vars, "runs", sb.buf)) < 0)
        goto done;
    strbuf_free(&sb);
    err = strbuf_append(&sb, "", 0);
    for (size_t k = 0; k < x->r->npairs && !err; k++)
        err = md_pair(&sb, x, k);
    if (err < 0 || (err = kvlist_add(&vars, "comparisons", sb.buf)) < 0)
        goto done;
    strbuf_free(&sb);
    err = strbuf_append(&sb, "", 0);
    if (!err && x->r->nruns >= 3) {
        err = md_heading(&sb, "##", "Trend: mean ms/step in each run");
        err = err ? err : doc_md_table(&sb, &x->trend);
        err = err ? err : strbuf_puts(&sb, "\n");
        for (size_t i = 0; i < x->trend_n && !err; i++)
            err = doc_md_figure(&sb, &x->figs[x->trend_first + i], "charts");
    }
    if (err < 0 || (err = kvlist_add(&vars, "trend", sb.buf)) < 0)
        goto done;
    if ((err = template_render(&out, "compare.md", tmpl, &vars, escape_md)) < 0)
        goto done;
    err = chart_write_file(path, out.buf, out.len);
done:
    kvlist_free(&vars);
    strbuf_free(&sb);
    strbuf_free(&out);
    free(tmpl);
    return err;
}

/* ---- PDF ----------------------------------------------------------------------- */

static int pdf_body(struct doc_pdf *p, const struct crep *x)
{
    int err = 0;
    doc_pdf_heading(p, x->title, 1);
    doc_pdf_paragraph(p, x->subtitle, CHART_FONT_REGULAR, 10, CHART_MUTED, 0);
    doc_pdf_paragraphs(p, x->method, x->nmethod);
    doc_pdf_heading(p, "Runs", 3);
    doc_pdf_table(p, &x->runs, 7.5);
    doc_pdf_paragraph(p, x->result, CHART_FONT_BOLD, 10, compare_exit_status(x->r) ? CHART_WARN : CHART_INK,
                      0);
    for (size_t k = 0; k < x->r->npairs && !err; k++) {
        const struct compare_pair *pr = &x->r->pairs[k];
        char *head = pair_heading(x, pr), *intent = pair_intent(pr), *summary = pair_summary(pr);
        if (!head || !intent || !summary)
            err = error_set(BG_ENOMEM, "out of memory");
        if (!err) {
            doc_pdf_heading(p, head, 2);
            doc_pdf_paragraph(p, intent, CHART_FONT_REGULAR, 9, CHART_INK, 0);
            doc_pdf_paragraph(p, summary, CHART_FONT_BOLD, 9, CHART_INK, 0);
            doc_pdf_table(p, &x->verdicts[k], 7);
        }
        for (size_t i = 0; i < x->forest_n[k] && !err; i++)
            err = doc_pdf_figure(p, &x->figs[x->forest_first[k] + i]);
        if (!err) {
            doc_pdf_heading(p, "Geometric means", 3);
            doc_pdf_table(p, &x->geomeans[k], 7.5);
            doc_pdf_heading(p, "Environment differences", 3);
            doc_pdf_table(p, &x->envs[k], 7);
        }
        free(head);
        free(intent);
        free(summary);
    }
    if (!err && x->r->nruns >= 3) {
        doc_pdf_heading(p, "Trend: mean ms/step in each run", 2);
        doc_pdf_table(p, &x->trend, 7);
        for (size_t i = 0; i < x->trend_n && !err; i++)
            err = doc_pdf_figure(p, &x->figs[x->trend_first + i]);
    }
    return err;
}

static int pdf_write(const struct crep *x, const char *path)
{
    struct doc_pdf *p;
    char footer[400];
    snprintf(footer, sizeof(footer), "%s \xC2\xB7 %s \xC2\xB7 benchgen compare", x->title, x->created_text);
    int err =
        doc_pdf_open(&p, x->title, "benchmark comparison: ms/step ratios and verdicts", x->pdf_date, footer);
    if (err < 0)
        return err;
    err = pdf_body(p, x);
    int cerr = doc_pdf_close(p, err ? NULL : path);
    return err ? err : cerr;
}

/* ---- workbook ------------------------------------------------------------------- */

struct cwb {
    struct workbook w;
    lxw_format *ratio, *ms, *sci, *red, *green, *yellow;
};

static void cwb_formats(struct cwb *c)
{
    lxw_workbook *wb = c->w.wb;
    c->ratio = workbook_add_format(wb);
    format_set_num_format(c->ratio, "0.0000");
    c->ms = workbook_add_format(wb);
    format_set_num_format(c->ms, "#,##0.000");
    c->sci = workbook_add_format(wb);
    format_set_num_format(c->sci, "0.00E+00");
    c->red = workbook_add_format(wb);
    format_set_bg_color(c->red, 0xFFC7CE);
    format_set_font_color(c->red, 0x9C0006);
    c->green = workbook_add_format(wb);
    format_set_bg_color(c->green, 0xC6EFCE);
    format_set_font_color(c->green, 0x006100);
    c->yellow = workbook_add_format(wb);
    format_set_bg_color(c->yellow, 0xFFEB9C);
    format_set_font_color(c->yellow, 0x9C5700);
}

/* A number in format f, else an NA text saying why. */
static void put_num_or_na(struct cwb *c, lxw_worksheet *ws, lxw_row_t r, lxw_col_t col, double v,
                          lxw_format *f, const char *na)
{
    if (isfinite(v))
        workbook_put_num(&c->w, ws, r, col, v, f);
    else
        workbook_put_str(&c->w, ws, r, col, na, c->w.na);
}

static void text_rule(struct cwb *c, lxw_worksheet *ws, lxw_row_t r0, lxw_row_t r1, lxw_col_t col,
                      const char *text, lxw_format *f)
{
    lxw_conditional_format cf = {.type = LXW_CONDITIONAL_TYPE_TEXT,
                                 .criteria = LXW_CONDITIONAL_CRITERIA_TEXT_BEGINS_WITH,
                                 .value_string = (char *)text,
                                 .format = f};
    if (!c->w.err && r1 >= r0)
        worksheet_conditional_format_range(ws, r0, col, r1, col, &cf);
}

/* Ratios: green below 1, white at 1, red above. */
static void ratio_scale(struct cwb *c, lxw_worksheet *ws, lxw_row_t r0, lxw_row_t r1, lxw_col_t col)
{
    lxw_conditional_format cf = {.type = LXW_CONDITIONAL_3_COLOR_SCALE,
                                 .min_color = 0x63BE7B,
                                 .mid_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER,
                                 .mid_value = 1,
                                 .mid_color = 0xFFFFFF,
                                 .max_color = 0xF8696B};
    if (!c->w.err && r1 >= r0)
        worksheet_conditional_format_range(ws, r0, col, r1, col, &cf);
}

static void sheet_head(struct cwb *c, lxw_worksheet *ws, const char *title, const char *subtitle,
                       const char *const *head, size_t n, lxw_row_t hr)
{
    workbook_put_str(&c->w, ws, 0, 0, title, c->w.title);
    workbook_put_str(&c->w, ws, 1, 0, subtitle, c->w.subtitle);
    for (size_t i = 0; i < n; i++)
        workbook_put_str(&c->w, ws, hr, (lxw_col_t)i, head[i], c->w.head);
    worksheet_set_row(ws, hr, 30, NULL);
}

static char *comparison_label(const struct crep *x, const struct compare_pair *p)
{
    return util_printf("[%zu] %s", p->run, run_name(x, p->run));
}

static void side_cells(struct cwb *c, lxw_worksheet *ws, lxw_row_t r, lxw_col_t col,
                       const struct compare_side *s, int baseline)
{
    char text[64];
    double v = side_text(s, baseline, text, sizeof(text));
    workbook_put_str(&c->w, ws, r, col, s->nreps ? s->status : "absent", NULL);
    workbook_put_num(&c->w, ws, r, col + 1, (double)s->n, c->w.int0);
    put_num_or_na(c, ws, r, col + 2, v, c->ms, text);
}

static int sheet_verdicts(struct cwb *c, const struct crep *x, lxw_worksheet *ws)
{
    static const char *const head[] = {"Comparison", "Cell",
                                       "Model",      "Task",
                                       "Batch",      "Backend",
                                       "Match",      "A status",
                                       "A steps",    "A mean ms",
                                       "B status",   "B steps",
                                       "B mean ms",  "Ratio B/A",
                                       "CI low",     "CI high",
                                       "p",          "q (BH)",
                                       "Verdict",    "Why",
                                       "Confounded", "Unintended changes",
                                       "Mismatch"};
    size_t nh = sizeof(head) / sizeof(*head);
    lxw_row_t hr = 3, r = hr + 1;
    sheet_head(c, ws, x->title, x->method[0], head, nh, hr);
    for (size_t k = 0; k < x->r->npairs; k++) {
        const struct compare_pair *p = &x->r->pairs[k];
        char *label = comparison_label(x, p);
        if (!label)
            return c->w.err = error_set(BG_ENOMEM, "out of memory");
        for (size_t i = 0; i < p->ncells && !c->w.err; i++, r++) {
            const struct compare_cell *cell = &p->cells[i];
            const struct significance_test *t = &cell->t;
            char why[96], na[112], v[128];
            untested_reason(cell, why, sizeof(why));
            snprintf(na, sizeof(na), "NA (%s)", why);
            compare_verdict_text(v, sizeof(v), cell);
            workbook_put_str(&c->w, ws, r, 0, label, NULL);
            workbook_put_str(&c->w, ws, r, 1, cell->id, c->w.mono);
            workbook_put_str(&c->w, ws, r, 2, cell->model, NULL);
            workbook_put_str(&c->w, ws, r, 3, cell->task, NULL);
            workbook_put_num(&c->w, ws, r, 4, cell->batch, c->w.int0);
            workbook_put_str(&c->w, ws, r, 5, cell->backend, NULL);
            workbook_put_str(&c->w, ws, r, 6, compare_match_name(cell->match), NULL);
            side_cells(c, ws, r, 7, &cell->a, 1);
            side_cells(c, ws, r, 10, &cell->b, 0);
            put_num_or_na(c, ws, r, 13, t->valid ? t->ratio : NAN, c->ratio, na);
            put_num_or_na(c, ws, r, 14, t->valid ? t->ci_lo : NAN, c->ratio, t->valid ? "NA" : na);
            put_num_or_na(c, ws, r, 15, t->valid ? t->ci_hi : NAN, c->ratio, t->valid ? "NA" : na);
            put_num_or_na(c, ws, r, 16, t->valid ? t->mwu.p : NAN, c->sci, t->valid ? "NA" : na);
            put_num_or_na(c, ws, r, 17, t->valid ? t->p_adj : NAN, c->sci, t->valid ? "NA" : na);
            workbook_put_str(&c->w, ws, r, 18, v, t->verdict == SIGNIFICANCE_NONE ? c->w.na : NULL);
            workbook_put_str(&c->w, ws, r, 19, cell->match == COMPARE_MATCHED ? t->why : why, NULL);
            workbook_put_str(&c->w, ws, r, 20, cell->confounded ? "yes" : "no", NULL);
            workbook_put_str(&c->w, ws, r, 21, cell->unintended, NULL);
            workbook_put_str(&c->w, ws, r, 22, cell->mismatch, NULL);
        }
        free(label);
    }
    lxw_row_t last = r - 1;
    text_rule(c, ws, hr + 1, last, 18, "slower", c->red);
    text_rule(c, ws, hr + 1, last, 18, "faster", c->green);
    text_rule(c, ws, hr + 1, last, 18, "ambiguous", c->yellow);
    text_rule(c, ws, hr + 1, last, 20, "yes", c->yellow);
    ratio_scale(c, ws, hr + 1, last, 13);
    worksheet_set_column(ws, 0, 0, 22, NULL);
    worksheet_set_column(ws, 1, 1, 34, NULL);
    worksheet_set_column(ws, 2, 17, 11, NULL);
    worksheet_set_column(ws, 18, 18, 18, NULL);
    worksheet_set_column(ws, 19, 22, 36, NULL);
    worksheet_freeze_panes(ws, hr + 1, 2);
    if (last > hr)
        worksheet_autofilter(ws, hr, 0, last, (lxw_col_t)(nh - 1));
    return c->w.err;
}

static int sheet_geomeans(struct cwb *c, const struct crep *x, lxw_worksheet *ws)
{
    static const char *const head[] = {"Comparison", "Backend", "Tested cells", "Geomean ratio B/A",
                                       "Speed-up A/B"};
    lxw_row_t hr = 3, r = hr + 1;
    sheet_head(
        c, ws, "Geometric-mean ratio per backend",
        "Geometric mean of B/A over the tested cells; the speed-up is its inverse (above 1: this run is "
        "faster).",
        head, 5, hr);
    for (size_t k = 0; k < x->r->npairs && !c->w.err; k++) {
        const struct compare_pair *p = &x->r->pairs[k];
        char *label = comparison_label(x, p);
        if (!label)
            return c->w.err = error_set(BG_ENOMEM, "out of memory");
        for (size_t b = 0; b <= p->nbackends; b++, r++) {
            int all = b == p->nbackends;
            size_t n = all ? p->ngeomean : p->backends[b].ncells;
            double g = all ? p->geomean_ratio : p->backends[b].geomean_ratio;
            int ok = n && g > 0 && isfinite(g);
            workbook_put_str(&c->w, ws, r, 0, label, all ? c->w.bold : NULL);
            workbook_put_str(&c->w, ws, r, 1, all ? "all tested cells" : p->backends[b].backend,
                             all ? c->w.bold : NULL);
            workbook_put_num(&c->w, ws, r, 2, (double)n, c->w.int0);
            put_num_or_na(c, ws, r, 3, ok ? g : NAN, c->ratio, "NA (no tested cells)");
            put_num_or_na(c, ws, r, 4, ok ? 1.0 / g : NAN, c->ratio, "NA (no tested cells)");
        }
        free(label);
    }
    ratio_scale(c, ws, hr + 1, r - 1, 3);
    worksheet_set_column(ws, 0, 1, 26, NULL);
    worksheet_set_column(ws, 2, 4, 16, NULL);
    worksheet_freeze_panes(ws, hr + 1, 0);
    return c->w.err;
}

static void env_line(struct cwb *c, lxw_worksheet *ws, lxw_row_t r, const char *label, const char *scope,
                     const struct compare_change *ch, const struct compare_pair *p)
{
    workbook_put_str(&c->w, ws, r, 0, label, NULL);
    workbook_put_str(&c->w, ws, r, 1, scope, c->w.mono);
    workbook_put_str(&c->w, ws, r, 2, ch->key, c->w.mono);
    workbook_put_str(&c->w, ws, r, 3, ch->a ? ch->a : "(none)", ch->a ? NULL : c->w.na);
    workbook_put_str(&c->w, ws, r, 4, ch->b ? ch->b : "(none)", ch->b ? NULL : c->w.na);
    workbook_put_str(&c->w, ws, r, 5, ch->counted ? "yes" : "no", NULL);
    workbook_put_str(&c->w, ws, r, 6, ch->intended ? "yes" : "no", NULL);
    workbook_put_str(&c->w, ws, r, 7, change_tag(ch, p), NULL);
}

static int sheet_env(struct cwb *c, const struct crep *x, lxw_worksheet *ws)
{
    static const char *const head[] = {"Comparison", "Scope",   "Key",      "Baseline",
                                       "This run",   "Counted", "Intended", "Status"};
    lxw_row_t hr = 3, r = hr + 1;
    sheet_head(
        c, ws, "Environment differences",
        "Whole run (machine, drivers, benchgen) and per cell (Python and packages). Counted: can change "
        "performance; NOT intended: a counted change the comparison's intent does not explain.",
        head, 8, hr);
    for (size_t k = 0; k < x->r->npairs && !c->w.err; k++) {
        const struct compare_pair *p = &x->r->pairs[k];
        char *label = comparison_label(x, p);
        if (!label)
            return c->w.err = error_set(BG_ENOMEM, "out of memory");
        for (size_t i = 0; i < p->nenv; i++, r++)
            env_line(c, ws, r, label, "whole run", &p->env[i], p);
        for (size_t i = 0; i < p->ncells; i++)
            for (size_t j = 0; j < p->cells[i].nchanges; j++, r++)
                env_line(c, ws, r, label, p->cells[i].id, &p->cells[i].changes[j], p);
        free(label);
    }
    text_rule(c, ws, hr + 1, r - 1, 7, "NOT intended", c->red);
    worksheet_set_column(ws, 0, 0, 22, NULL);
    worksheet_set_column(ws, 1, 2, 32, NULL);
    worksheet_set_column(ws, 3, 4, 30, NULL);
    worksheet_set_column(ws, 5, 7, 13, NULL);
    worksheet_freeze_panes(ws, hr + 1, 0);
    if (r - 1 > hr)
        worksheet_autofilter(ws, hr, 0, r - 1, 7);
    return c->w.err;
}

static int sheet_trend(struct cwb *c, const struct crep *x, lxw_worksheet *ws)
{
    const struct compare_result *r = x->r;
    lxw_row_t hr = 3;
    workbook_put_str(&c->w, ws, 0, 0, "Trend: mean ms/step in each run", c->w.title);
    workbook_put_str(&c->w, ws, 1, 0, x->trend.caption, c->w.subtitle);
    for (size_t col = 0; col < x->trend.ncols; col++)
        workbook_put_str(&c->w, ws, hr, (lxw_col_t)col, x->trend.head[col], c->w.head);
    worksheet_set_row(ws, hr, 30, NULL);
    for (size_t i = 0; i < r->ntrend && !c->w.err; i++) {
        lxw_row_t row = hr + 1 + (lxw_row_t)i;
        workbook_put_str(&c->w, ws, row, 0, r->trend[i].id, c->w.mono);
        for (size_t k = 0; k < r->nruns; k++) {
            const struct tcell *cell = table_at(&x->trend, i, 1 + k);
            put_num_or_na(c, ws, row, (lxw_col_t)(1 + k), cell->num, c->ms, cell->text);
        }
    }
    worksheet_set_column(ws, 0, 0, 34, NULL);
    worksheet_set_column(ws, 1, (lxw_col_t)r->nruns, 22, NULL);
    worksheet_freeze_panes(ws, hr + 1, 1);
    return c->w.err;
}

static int sheet_runs(struct cwb *c, const struct crep *x, lxw_worksheet *ws)
{
    static const char *const head[] = {"Index",         "Role",     "Name",       "Description",
                                       "Created (UTC)", "benchgen", "Git commit", "Command line"};
    const struct compare_result *r = x->r;
    lxw_row_t hr = 3, row = hr + 1;
    sheet_head(c, ws, "Runs", x->subtitle, head, 8, hr);
    for (size_t k = 0; k < r->nruns; k++, row++) {
        const struct rundata *rd = r->runs[k];
        workbook_put_num(&c->w, ws, row, 0, (double)k, c->w.int0);
        workbook_put_str(&c->w, ws, row, 1, k ? "compared with [0]" : "baseline", NULL);
        workbook_put_str(&c->w, ws, row, 2, rd->name, NULL);
        workbook_put_str(&c->w, ws, row, 3, rd->description, NULL);
        workbook_put_str(&c->w, ws, row, 4, rd->created_utc, NULL);
        workbook_put_str(&c->w, ws, row, 5, rd->benchgen_version, NULL);
        workbook_put_str(&c->w, ws, row, 6, rd->git_commit, c->w.mono);
        workbook_put_str(&c->w, ws, row, 7, rd->command_line, c->w.mono);
    }
    row++;
    static const char *const settings[] = {
        "Alpha (false discovery rate)", "Noise band (+/- fraction)",    "Confidence level",
        "Bootstrap resamples",          "Minimum timed steps per side", "Exit status"};
    double values[] = {r->opt.alpha,
                       r->opt.noise,
                       1.0 - r->opt.alpha,
                       (double)r->opt.resamples,
                       SIGNIFICANCE_MIN_SAMPLES,
                       compare_exit_status(r)};
    for (size_t i = 0; i < 6; i++, row++) {
        workbook_put_str(&c->w, ws, row, 0, settings[i], c->w.bold);
        workbook_put_num(&c->w, ws, row, 2, values[i], NULL);
    }
    row = workbook_put_paragraphs(&c->w, ws, row + 1, x->method, x->nmethod);
    (void)row;
    worksheet_set_column(ws, 0, 0, 30, NULL);
    worksheet_set_column(ws, 1, 2, 22, NULL);
    worksheet_set_column(ws, 3, 7, 30, NULL);
    return c->w.err;
}

static int xlsx_write(const struct crep *x, const char *path)
{
    struct cwb c;
    int err = workbook_begin(&c.w, path, x->title, "benchmark comparison: ms/step ratios and verdicts",
                             x->subtitle, x->created);
    if (err < 0)
        return err;
    cwb_formats(&c);
    lxw_worksheet *verdicts = workbook_sheet(&c.w, "Verdicts"), *geomean = workbook_sheet(&c.w, "Geomean"),
                  *env = workbook_sheet(&c.w, "Environment diff");
    lxw_worksheet *trend = x->r->nruns >= 3 ? workbook_sheet(&c.w, "Trend") : NULL;
    lxw_worksheet *runs = workbook_sheet(&c.w, "Runs");
    err = c.w.err;
    if (err == 0)
        err = sheet_verdicts(&c, x, verdicts);
    if (err == 0)
        err = sheet_geomeans(&c, x, geomean);
    if (err == 0)
        err = sheet_env(&c, x, env);
    if (err == 0 && trend)
        err = sheet_trend(&c, x, trend);
    if (err == 0)
        err = sheet_runs(&c, x, runs);
    return workbook_finish(&c.w, path, err);
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
    static const char *const ours[] = {"forest-", "trend-", NULL};
    struct crep x;
    char charts[PATH_MAX], path[PATH_MAX];
    int err;
    if (r->nruns < 2)
        return error_set(BG_EUSAGE, "a comparison needs at least two runs");
    if ((err = chart_fonts_init(util_home_dir())) < 0)
        return err;
    if ((err = out_path(charts, sizeof(charts), out_dir, "charts")) < 0 ||
        (err = util_mkdir_p(charts, 0755)) < 0 || (err = figures_clean_dir(charts, ours)) < 0)
        return err;
    err = crep_init(&x, r);
    /* the SVG text is kept for the HTML, which inlines it */
    if (err == 0)
        err = figures_render_list(x.figs, x.nfigs, x.pdf_date, 1, charts, CHART_PNG | CHART_SVG | CHART_PDF,
                                  1, 0, 1);
    static const struct {
        const char *file;
        int (*write)(const struct crep *, const char *);
    } docs[] = {{"compare.html", html_write},
                {"compare.md", md_write},
                {"compare.pdf", pdf_write},
                {"compare.xlsx", xlsx_write}};
    for (size_t i = 0; i < sizeof(docs) / sizeof(*docs) && err == 0; i++)
        if ((err = out_path(path, sizeof(path), out_dir, docs[i].file)) == 0 &&
            (err = docs[i].write(&x, path)) < 0)
            error_prefix(err, "%s", path);
    crep_free(&x);
    return err;
}
