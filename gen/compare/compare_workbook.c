/*
 * compare_workbook.c - compare.xlsx (see compare_workbook.h).
 */
#include "compare/compare_workbook.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "report/workbook.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    format_set_bg_color(c->red, CHART_WORSE_BG);
    format_set_font_color(c->red, CHART_INK);
    c->green = workbook_add_format(wb);
    format_set_bg_color(c->green, CHART_BETTER_BG);
    format_set_font_color(c->green, CHART_INK);
    c->yellow = workbook_add_format(wb);
    format_set_bg_color(c->yellow, CHART_UNSURE_BG);
    format_set_font_color(c->yellow, CHART_INK);
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

/* Ratios: blue below 1 (faster), white at 1, orange above (slower). */
static void ratio_scale(struct cwb *c, lxw_worksheet *ws, lxw_row_t r0, lxw_row_t r1, lxw_col_t col)
{
    lxw_conditional_format cf = {.type = LXW_CONDITIONAL_3_COLOR_SCALE,
                                 .min_color = CHART_BETTER_BG,
                                 .mid_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER,
                                 .mid_value = 1,
                                 .mid_color = 0xFFFFFF,
                                 .max_color = CHART_WORSE_BG};
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
    return xprintf("[%zu] %s", p->run, crep_run_name(x, p->run));
}

static void side_cells(struct cwb *c, lxw_worksheet *ws, lxw_row_t r, lxw_col_t col,
                       const struct compare_side *s, int baseline)
{
    char text[64];
    double v = crep_side_text(s, baseline, text, sizeof(text));
    workbook_put_str(&c->w, ws, r, col, s->nreps ? compare_side_status(s) : "absent", NULL);
    workbook_put_num(&c->w, ws, r, col + 1, (double)s->n, c->w.int0);
    put_num_or_na(c, ws, r, col + 2, v, c->ms, text);
}

static int sheet_verdicts(struct cwb *c, const struct crep *x, lxw_worksheet *ws)
{
    static const char *const head[] = {"Comparison", "Cell",
                                       "Model",      "Task",
                                       "Batch",      "Backend",
                                       "Match",      "A status",
                                       "A steps",    "A pooled mean ms",
                                       "B status",   "B steps",
                                       "B pooled mean ms",  "Ratio B/A",
                                       "CI low",     "CI high",
                                       "p",          "q (BH)",
                                       "Verdict",    "Why",
                                       "Confounded", "Unintended changes",
                                       "Mismatch",   "Processes A",
                                       "Processes B", "Noise CV",
                                       "Noise band", "Processes for 5%",
                                       "Too noisy",  "Canary B/A",
                                       "Machine drift", "Ratio / canary",
                                       "Affected",   "Host changed",
                                       "A geomean ms (of the ratio)", "B geomean ms (of the ratio)",
                                       "Sequential run: how the cell stopped"};
    size_t nh = sizeof(head) / sizeof(*head);
    lxw_row_t hr = 3, r = hr + 1;
    sheet_head(c, ws, x->title, x->method[0], head, nh, hr);
    for (size_t k = 0; k < x->r->npairs; k++) {
        const struct compare_pair *p = &x->r->pairs[k];
        char *label = comparison_label(x, p);
        for (size_t i = 0; i < p->ncells && !c->w.err; i++, r++) {
            const struct compare_cell *cell = &p->cells[i];
            const struct significance_test *t = &cell->t;
            char why[96], na[112], v[128];
            crep_untested_reason(cell, why, sizeof(why));
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
            put_num_or_na(c, ws, r, 16, t->valid ? t->p : NAN, c->sci, t->valid ? "NA" : na);
            put_num_or_na(c, ws, r, 17, t->valid ? t->p_adj : NAN, c->sci, t->valid ? "NA" : na);
            workbook_put_str(&c->w, ws, r, 18, v, t->verdict == SIGNIFICANCE_NONE ? c->w.na : NULL);
            workbook_put_str(&c->w, ws, r, 19, cell->match == COMPARE_MATCHED ? t->why : why, NULL);
            workbook_put_str(&c->w, ws, r, 20, cell->confounded ? "yes" : "no", NULL);
            workbook_put_str(&c->w, ws, r, 21, cell->unintended, NULL);
            workbook_put_str(&c->w, ws, r, 22, cell->mismatch, NULL);
            put_num_or_na(c, ws, r, 23, t->valid ? (double)t->groups_a : NAN, c->w.int0, t->valid ? "NA" : na);
            put_num_or_na(c, ws, r, 24, t->valid ? (double)t->groups_b : NAN, c->w.int0, t->valid ? "NA" : na);
            put_num_or_na(c, ws, r, 25, t->valid ? t->cv_process : NAN, c->ratio,
                          t->valid ? "NA (fewer than 2 processes a side)" : na);
            put_num_or_na(c, ws, r, 26, t->valid ? t->band : NAN, c->ratio, t->valid ? "NA" : na);
            put_num_or_na(c, ws, r, 27, t->valid && t->needed ? (double)t->needed : NAN, c->w.int0,
                          t->valid ? (t->per_process ? "NA (never: 5% is inside the noise)" : "NA") : na);
            workbook_put_str(&c->w, ws, r, 28, t->valid ? (t->too_noisy ? "yes" : "no") : "NA", NULL);
            put_num_or_na(c, ws, r, 29, cell->canary_ratio, c->ratio, "NA (no canary)");
            workbook_put_str(&c->w, ws, r, 30, cell->drift ? "yes" : "no", NULL);
            put_num_or_na(c, ws, r, 31, t->valid ? t->ratio / cell->canary_ratio : NAN, c->ratio, "NA");
            workbook_put_str(&c->w, ws, r, 32, cell->affected ? "yes" : "no", NULL);
            workbook_put_str(&c->w, ws, r, 33, cell->host_changed, NULL);
            /* the statistic the ratio B/A is the ratio of */
            put_num_or_na(c, ws, r, 34, t->valid ? t->gmean_a : NAN, c->ms, t->valid ? "NA" : na);
            put_num_or_na(c, ws, r, 35, t->valid ? t->gmean_b : NAN, c->ms, t->valid ? "NA" : na);
            workbook_put_str(&c->w, ws, r, 36, cell->seq_stop ? cell->seq_stop : "", NULL);
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
    worksheet_set_column(ws, 23, 32, 12, NULL);
    worksheet_set_column(ws, 33, 33, 22, NULL);
    worksheet_set_column(ws, 34, 35, 14, NULL);
    worksheet_set_column(ws, 36, 36, 40, NULL);
    worksheet_freeze_panes(ws, hr + 1, 2);
    if (last > hr)
        worksheet_autofilter(ws, hr, 0, last, (lxw_col_t)(nh - 1));
    workbook_print_setup(&c->w, ws, hr, last, (lxw_col_t)(nh - 1));
    return c->w.err;
}

static int sheet_geomeans(struct cwb *c, const struct crep *x, lxw_worksheet *ws)
{
    static const char *const head[] = {"Comparison", "Backend", "Tested cells", "Decided cells",
                                       "Geomean ratio B/A", "Speed-up A/B", "Cannot tell: B/A low",
                                       "Cannot tell: B/A high"};
    lxw_row_t hr = 3, r = hr + 1;
    sheet_head(
        c, ws, "Geometric-mean ratio per backend",
        "Geometric mean of B/A over the decided cells (same, faster, slower); the speed-up is its inverse "
        "(above 1: this run is faster). With no cell decided it is not stated: cannot tell, and the range the "
        "cells' intervals allow. Overall: the cells the change can affect; unaffected cells are a control.",
        head, 8, hr);
    for (size_t k = 0; k < x->r->npairs && !c->w.err; k++) {
        const struct compare_pair *p = &x->r->pairs[k];
        char *label = comparison_label(x, p);
        for (size_t b = 0; b < p->nbackends + 1 + (p->unaffected.ncells > 0); b++, r++) {
            int all = b == p->nbackends, control = b > p->nbackends;
            const struct compare_geomean *g = all ? &p->affected : control ? &p->unaffected : &p->backends[b].g;
            int ok = g->ndecided && g->ratio > 0 && isfinite(g->ratio), unsure = !g->ndecided && g->ncells;
            const char *na = g->ncells ? "cannot tell (no cell decided)" : "NA (no tested cells)";
            workbook_put_str(&c->w, ws, r, 0, label, all ? c->w.bold : NULL);
            workbook_put_str(&c->w, ws, r, 1,
                             all ? "overall: cells the change can affect"
                                 : control ? "unaffected cells (a control)" : p->backends[b].backend,
                             all ? c->w.bold : NULL);
            workbook_put_num(&c->w, ws, r, 2, (double)g->ncells, c->w.int0);
            workbook_put_num(&c->w, ws, r, 3, (double)g->ndecided, c->w.int0);
            put_num_or_na(c, ws, r, 4, ok ? g->ratio : NAN, c->ratio, na);
            put_num_or_na(c, ws, r, 5, ok ? 1.0 / g->ratio : NAN, c->ratio, na);
            put_num_or_na(c, ws, r, 6, unsure ? g->lo : NAN, c->ratio, "NA");
            put_num_or_na(c, ws, r, 7, unsure ? g->hi : NAN, c->ratio, "NA");
        }
        free(label);
    }
    ratio_scale(c, ws, hr + 1, r - 1, 4);
    worksheet_set_column(ws, 0, 1, 26, NULL);
    worksheet_set_column(ws, 2, 7, 16, NULL);
    worksheet_freeze_panes(ws, hr + 1, 0);
    workbook_print_setup(&c->w, ws, hr, r - 1, 7);
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
    workbook_put_str(&c->w, ws, r, 7, crep_change_tag(ch, p), NULL);
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
    workbook_print_setup(&c->w, ws, hr, r - 1, 7);
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
    workbook_print_setup(&c->w, ws, hr, hr + (lxw_row_t)r->ntrend, (lxw_col_t)r->nruns);
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
    workbook_put_str(&c->w, ws, row, 0, "Result", c->w.bold);
    workbook_put_str(&c->w, ws, row++, 2, x->result, NULL);
    for (size_t k = 0; k < r->npairs; k++, row++) {
        const struct compare_pair *p = &r->pairs[k];
        char label[64], *text = p->canary_a >= 2 && p->canary_b >= 2
                                   ? xprintf("B/A %.4f [%.4f, %.4f]: %s", p->canary_ratio, p->canary_lo,
                                             p->canary_hi, compare_canary_words(p))
                                   : xstrdup("not recorded");
        snprintf(label, sizeof(label), "Drift canary [%zu]", p->run);
        workbook_put_str(&c->w, ws, row, 0, label, c->w.bold);
        workbook_put_str(&c->w, ws, row, 2, text, NULL);
        free(text);
    }
    row = workbook_put_paragraphs(&c->w, ws, row + 1, x->method, x->nmethod);
    worksheet_set_column(ws, 0, 0, 30, NULL);
    worksheet_set_column(ws, 1, 2, 22, NULL);
    worksheet_set_column(ws, 3, 7, 30, NULL);
    workbook_print_setup(&c->w, ws, hr, row, 7);
    return c->w.err;
}

int compare_workbook_write(const struct crep *x, const char *path)
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
