/*
 * compare_tables.c - the comparison report's tables (see compare_tables.h).
 */
#include "compare/compare_tables.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* verdict tints of the tables */
#define BG_SLOWER CHART_WORSE_BG
#define BG_FASTER CHART_BETTER_BG
#define BG_AMBIGUOUS CHART_UNSURE_BG

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
        if (c->result.status && c->result.status != STATUS_OK && c->result.detail && c->result.detail[0]) {
            snprintf(buf, n, "%.*s", (int)strcspn(c->result.detail, "\n"), c->result.detail);
            return;
        }
    }
}

/* The verdict table's last column: why, what differs, what else changed. */
static char *cell_note(const struct compare_cell *c)
{
    struct strbuf sb = {0};
    char detail[200];
    strbuf_append(&sb, "", 0);
    if (c->match == COMPARE_MISMATCH)
        strbuf_puts(&sb, c->mismatch);
    else if (c->t.verdict == SIGNIFICANCE_AMBIGUOUS)
        strbuf_puts(&sb, c->t.why);
    if (c->match == COMPARE_MATCHED && c->t.verdict == SIGNIFICANCE_NONE) {
        for (int side = 0; side < 2; side++) {
            side_detail(side ? &c->b : &c->a, detail, sizeof(detail));
            if (detail[0])
                strbuf_printf(&sb, "%s%s: %s", sb.len ? "; " : "", side ? "this run" : "baseline", detail);
        }
    }
    if (c->confounded)
        strbuf_printf(&sb, "%sconfounded: %s", sb.len ? "; " : "", c->unintended);
    if (c->drift)
        strbuf_printf(&sb, "%sconfounded by machine drift: canary %.4f, B/A / canary %.4f", sb.len ? "; " : "",
                      c->canary_ratio, c->t.ratio / c->canary_ratio);
    if (c->host_changed[0])
        strbuf_printf(&sb, "%shost changed: %s (nothing else of this cell's changed)", sb.len ? "; " : "",
                      c->host_changed);
    if (c->seq_stop) {
        char seq[160];
        compare_seq_summary(seq, sizeof(seq), c);
        strbuf_printf(&sb, "%ssequential run: %s", sb.len ? "; " : "", seq);
    }
    char comp[256];
    compare_compile_text(comp, sizeof(comp), c);
    if (comp[0])
        strbuf_printf(&sb, "%s%s", sb.len ? "; " : "", comp);
    return strbuf_detach(&sb); /* NULL: a format that did not expand */
}


/* ---- tables ------------------------------------------------------------------ */

/* A table of n columns named head, numeric where numeric[c] (NULL: none). */
static void head_table(struct table *t, size_t n, const char *const head[], const int numeric[])
{
    table_init(t, n);
    for (size_t c = 0; c < n; c++)
        table_head(t, c, head[c], numeric ? numeric[c] : 0);
}

int compare_tables_runs(const struct crep *x, struct table *t)
{
    static const char *const head[] = {"#", "Run", "Role", "Created (UTC)", "benchgen", "Command line"};
    static const int numeric[] = {1, 0, 0, 0, 0, 0};
    head_table(t, 6, head, numeric);
    for (size_t k = 0; k < x->r->nruns; k++) {
        const struct rundata *rd = x->r->runs[k];
        size_t r = table_row(t);
        table_set(t, r, 0, 0, (double)k, "%zu", k);
        table_set(t, r, 1, 0, NAN, "%s", rd->name);
        table_set(t, r, 2, 0, NAN, "%s", k ? "compared with [0]" : "baseline");
        table_set(t, r, 3, 0, NAN, "%s", rd->created_utc);
        table_set(t, r, 4, TC_MONO, NAN, "%s (%s)", rd->benchgen_version, rd->git_commit);
        table_set(t, r, 5, TC_MONO, NAN, "%s", rd->command_line);
    }
    return table_finish(t);
}

int compare_tables_verdicts(const struct compare_pair *p, struct table *t)
{
    static const char *const head[] = {"Cell",  "A ms/step (geomean of processes)", "B ms/step (geomean of processes)", "Processes A/B", "Noise (CV)",
                                       "B/A",   "95% CI",    "q (BH)",    "Verdict",       "Note"};
    static const int numeric[] = {0, 1, 1, 1, 1, 1, 1, 1, 0, 0};
    head_table(t, 10, head, numeric);
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        char a[64], b[64], why[96], v[128];
        size_t r = table_row(t);
        double va = crep_side_text(&c->a, 1, a, sizeof(a)), vb = crep_side_text(&c->b, 0, b, sizeof(b));
        compare_verdict_text(v, sizeof(v), c);
        if (c->t.valid) { /* the statistic the ratio is made of */
            va = c->t.gmean_a;
            vb = c->t.gmean_b;
            compare_fmt_ms(a, sizeof(a), va);
            compare_fmt_ms(b, sizeof(b), vb);
        }
        table_set(t, r, 0, TC_MONO, NAN, "%s", c->id);
        table_set(t, r, 1, isfinite(va) ? 0 : TC_NA, va, "%s", a);
        table_set(t, r, 2, isfinite(vb) ? 0 : TC_NA, vb, "%s", b);
        if (c->t.valid) {
            bool few = c->t.groups_a < SIGNIFICANCE_MIN_PROCESSES || c->t.groups_b < SIGNIFICANCE_MIN_PROCESSES;
            table_set(t, r, 3, few ? TC_WARN : 0, NAN, "%zu/%zu", c->t.groups_a, c->t.groups_b);
            if (isfinite(c->t.cv_process))
                table_set(t, r, 4, c->t.too_noisy ? TC_WARN : 0, c->t.cv_process * 100.0, "%.1f%%%s",
                          c->t.cv_process * 100.0, c->t.too_noisy ? " (too noisy for 5%)" : "");
            else
                table_set(t, r, 4, TC_NA, NAN, "NA (fewer than 2 processes a side)");
            table_set(t, r, 5, 0, c->t.ratio, "%.4f", c->t.ratio);
            table_set(t, r, 6, 0, NAN, "[%.4f, %.4f]", c->t.ci_lo, c->t.ci_hi);
            if (isfinite(c->t.p_adj) && c->t.p_adj < 1e-4)
                table_set(t, r, 7, 0, c->t.p_adj, "%.1e", c->t.p_adj);
            else if (isfinite(c->t.p_adj))
                table_set(t, r, 7, 0, c->t.p_adj, "%.4f", c->t.p_adj);
            else
                table_set(t, r, 7, TC_NA, NAN, "NA");
        } else {
            crep_untested_reason(c, why, sizeof(why));
            table_set(t, r, 3, TC_NA, NAN, "NA");
            table_set(t, r, 4, TC_NA, NAN, "NA");
            table_set(t, r, 5, TC_NA, NAN, "NA (%s)", why);
            table_set(t, r, 6, TC_NA, NAN, "NA");
            table_set(t, r, 7, TC_NA, NAN, "NA");
        }
        unsigned bg = c->match == COMPARE_MATCHED ? verdict_bg(c->t.verdict) : 0;
        unsigned vflags = c->t.verdict == SIGNIFICANCE_NONE ? TC_NA : bg ? TC_HEAT : 0;
        table_set(t, r, 8, vflags, NAN, "%s", v);
        if (bg)
            t->cells[r * t->ncols + 8].bg = bg;
        char *note = cell_note(c);
        if (!note && !t->err)
            t->err = error_set(BG_EGENERIC, "compare: the note of %s could not be formatted", c->id);
        table_set(t, r, 9, c->confounded || c->drift || c->host_changed[0] ? TC_WARN : 0, NAN, "%s",
                  note ? note : "");
        free(note);
    }
    return table_finish(t);
}

int compare_tables_geomeans(const struct compare_pair *p, struct table *t)
{
    static const char *const head[] = {"Backend", "Tested cells", "Decided cells", "Geomean B/A",
                                       "Speed-up (A/B)"};
    static const int numeric[] = {0, 1, 1, 1, 1};
    head_table(t, 5, head, numeric);
    t->caption = xstrdup("Geometric mean of the ratios B/A over the decided cells (same, faster, slower); the "
                         "speed-up is its inverse (above 1: this run is faster). With no cell decided: cannot "
                         "tell, and the range the cells' intervals allow. Overall: the cells the change can "
                         "affect (their environment changed); unaffected cells (nothing of theirs changed) are a "
                         "control, not in the overall.");
    for (size_t k = 0; k < p->nbackends + 1 + (p->unaffected.ncells > 0); k++) {
        int all = k == p->nbackends, control = k > p->nbackends;
        const struct compare_geomean *g = all ? &p->affected : control ? &p->unaffected : &p->backends[k].g;
        size_t r = table_row(t);
        unsigned bold = all ? TC_BOLD : 0;
        if (all)
            table_set(t, r, 0, bold, NAN, "Overall: cells the change can affect");
        else if (control)
            table_set(t, r, 0, 0, NAN, "Unaffected cells (a control)");
        else
            table_set(t, r, 0, TC_MONO, NAN, "%s", p->backends[k].backend);
        table_set(t, r, 1, bold, (double)g->ncells, "%zu", g->ncells);
        table_set(t, r, 2, bold, (double)g->ndecided, "%zu", g->ndecided);
        char sp[128];
        crep_geomean_text(g, sp, sizeof(sp));
        if (g->ndecided && isfinite(g->ratio) && g->ratio > 0) {
            crep_speedup_text(g->ratio, sp, sizeof(sp));
            table_set(t, r, 3, bold, g->ratio, "%.4f", g->ratio);
            table_set(t, r, 4, bold, 1.0 / g->ratio, "%s", sp);
        } else if (g->ncells) {
            table_set(t, r, 3, TC_NA, NAN, "cannot tell: [%.4f, %.4f]", g->lo, g->hi);
            table_set(t, r, 4, TC_NA, NAN, "%s", sp);
        } else {
            table_set(t, r, 3, TC_NA, NAN, "NA (no tested cells)");
            table_set(t, r, 4, TC_NA, NAN, "NA (no tested cells)");
        }
    }
    return table_finish(t);
}

static void env_row(struct table *t, const char *scope, const struct compare_change *ch,
                    const struct compare_pair *p)
{
    size_t r = table_row(t);
    const char *tag = crep_change_tag(ch, p);
    table_set(t, r, 0, 0, NAN, "%s", scope);
    table_set(t, r, 1, TC_MONO, NAN, "%s", ch->key);
    table_set(t, r, 2, ch->a ? TC_MONO : TC_NA, NAN, "%s", ch->a ? ch->a : "(none)");
    table_set(t, r, 3, ch->b ? TC_MONO : TC_NA, NAN, "%s", ch->b ? ch->b : "(none)");
    table_set(t, r, 4, strcmp(tag, "NOT intended") ? 0 : TC_WARN, NAN, "%s", tag);
}

/* Whether a side recorded its environment (a cell that failed early has none). */
static bool env_recorded(const struct compare_side *s)
{
    for (size_t k = 0; k < s->nreps; k++)
        if (s->reps[k]->result.env.n)
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
    return strcmp(x->a.reps[0]->cell.env, y->a.reps[0]->cell.env) == 0 &&
           strcmp(x->b.reps[0]->cell.env, y->b.reps[0]->cell.env) == 0;
}

/* Run-wide differences, then the per-cell ones grouped like the text
 * output: cells with the same list share one scope (usually one group per
 * Python environment). */
int compare_tables_envs(const struct compare_pair *p, struct table *t)
{
    static const char *const head[] = {"Scope", "Key", "Baseline", "This run", "Counted / intended"};
    bool *done = xcalloc(p->ncells + 1, sizeof(*done));
    struct strbuf scope = {0};
    head_table(t, 5, head, NULL);
    for (size_t i = 0; i < p->nenv; i++)
        env_row(t, "whole run", &p->env[i], p);
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        if (done[i] || c->a.nreps == 0 || c->b.nreps == 0)
            continue;
        size_t count = 0;
        for (size_t j = i; j < p->ncells; j++)
            if (!done[j] && p->cells[j].a.nreps && p->cells[j].b.nreps && same_changes(c, &p->cells[j]))
                count++;
        strbuf_free(&scope);
        strbuf_printf(&scope, "%zu cell%s (env %s -> %s):", count, count == 1 ? "" : "s", c->a.reps[0]->cell.env,
                      c->b.reps[0]->cell.env);
        for (size_t j = i, shown = 0; j < p->ncells; j++) {
            if (done[j] || !p->cells[j].a.nreps || !p->cells[j].b.nreps || !same_changes(c, &p->cells[j]))
                continue;
            done[j] = true;
            strbuf_printf(&scope, "%s %s", shown++ ? "," : "", p->cells[j].id);
        }
        if (strbuf_error(&scope) && !t->err)
            t->err = strbuf_error(&scope);
        const char *text = scope.buf ? scope.buf : "";
        for (size_t k = 0; k < c->nchanges; k++) /* the scope once, on its group's first row */
            env_row(t, k ? "" : text, &c->changes[k], p);
        if (c->nchanges == 0) {
            size_t r = table_row(t);
            table_set(t, r, 0, 0, NAN, "%s", text);
            table_set(t, r, 1, TC_NA, NAN, "%s",
                      env_recorded(&c->a) && env_recorded(&c->b) ? "(no differences)"
                                                                 : "(environment not recorded on a side)");
        }
    }
    strbuf_free(&scope);
    free(done);
    return table_finish(t);
}

int compare_tables_trend(const struct crep *x, struct table *t)
{
    const struct compare_result *r = x->r;
    table_init(t, 1 + r->nruns);
    table_head(t, 0, "Cell", 0);
    t->caption = xstrdup("Mean ms/step of each cell in every run; NA: the run has no number for it, and why "
                         "(mismatch: measured under other conditions than [0]).");
    for (size_t k = 0; k < r->nruns; k++) {
        char *h = xprintf("[%zu] %s", k, crep_run_name(x, k));
        table_head(t, 1 + k, h, 1);
        free(h);
    }
    for (size_t i = 0; i < r->ntrend; i++) {
        size_t row = table_row(t);
        table_set(t, row, 0, TC_MONO, NAN, "%s", r->trend[i].id);
        for (size_t k = 0; k < r->nruns; k++) {
            const struct compare_side *s = &r->trend[i].points[k];
            char buf[64];
            bool mismatch = k > 0 && compare_pair_mismatch(&r->pairs[k - 1], r->trend[i].id);
            double v = s->nreps && !mismatch ? crep_side_text(s, 0, buf, sizeof(buf)) : NAN;
            if (mismatch)
                snprintf(buf, sizeof(buf), "NA (mismatch)");
            else if (!s->nreps)
                snprintf(buf, sizeof(buf), "NA (absent)");
            table_set(t, row, 1 + k, isfinite(v) ? 0 : TC_NA, v, "%s", buf);
        }
    }
    return table_finish(t);
}
