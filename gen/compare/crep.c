/*
 * crep.c - the words every format of the comparison report uses (see crep.h).
 */
#include "compare/crep.h"
#include "charts/chart.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *crep_run_name(const struct crep *x, size_t k) { return x->r->runs[k]->name; }

/* Why a cell has no ratio, into buf (returned). */
const char *crep_untested_reason(const struct compare_cell *c, char *buf, size_t n)
{
    if (c->match == COMPARE_MISMATCH)
        snprintf(buf, n, "mismatch");
    else if (c->match == COMPARE_ONLY_BASE)
        snprintf(buf, n, "only in baseline");
    else if (c->match == COMPARE_ONLY_RUN)
        snprintf(buf, n, "only in this run");
    else if (c->a.status != STATUS_OK)
        snprintf(buf, n, "%s in the baseline", compare_side_status(&c->a));
    else if (c->b.status != STATUS_OK)
        snprintf(buf, n, "%s in this run", compare_side_status(&c->b));
    else
        snprintf(buf, n, "no samples");
    return buf;
}

/* A side's mean ms/step: its text and value (NAN with an NA text). */
double crep_side_text(const struct compare_side *s, int baseline, char *buf, size_t n)
{
    if (s->nreps == 0)
        snprintf(buf, n, "NA (not in %s)", baseline ? "the baseline" : "this run");
    else if (s->status != STATUS_OK)
        snprintf(buf, n, "NA (%s)", compare_side_status(s));
    else if (!isfinite(s->mean_ms))
        snprintf(buf, n, "NA (no samples)");
    else {
        compare_fmt_ms(buf, n, s->mean_ms);
        return s->mean_ms;
    }
    return NAN;
}

bool crep_nothing_decided(const struct compare_result *r)
{
    for (size_t k = 0; k < r->npairs; k++)
        if (compare_ndecided(&r->pairs[k]))
            return false;
    return true;
}

void crep_geomean_text(const struct compare_geomean *g, char *buf, size_t n)
{
    char a[48], b[48];
    if (g->ndecided) {
        crep_speedup_text(g->ratio, a, sizeof(a));
        snprintf(buf, n, "%s over %zu decided cell%s%s", a, g->ndecided, g->ndecided == 1 ? "" : "s",
                 g->ndecided < g->ncells ? " (the rest cannot tell)" : "");
    } else if (g->ncells) {
        crep_speedup_text(g->hi, a, sizeof(a));
        crep_speedup_text(g->lo, b, sizeof(b));
        snprintf(buf, n, "cannot tell (no cell decided; between %s and %s)", a, b);
    } else {
        snprintf(buf, n, "NA (no tested cells)");
    }
}

void crep_speedup_text(double geomean_ratio, char *buf, size_t n)
{
    char num[32];
    chart_format_number(1.0 / geomean_ratio, 3, num, sizeof(num));
    snprintf(buf, n, "%sx", num);
}

const char *crep_change_tag(const struct compare_change *c, const struct compare_pair *p)
{
    return !c->counted     ? "not counted"
           : !p->nintended ? "counted"
           : c->intended   ? "intended"
                           : "NOT intended";
}

char *crep_result_text(const struct compare_result *r, size_t max)
{
    struct strbuf sb = {0};
    size_t n = 0;
    for (size_t k = 0; k < r->npairs; k++)
        for (size_t i = 0; i < r->pairs[k].ncells; i++) {
            const struct compare_cell *c = &r->pairs[k].cells[i];
            if (c->t.verdict != SIGNIFICANCE_SLOWER)
                continue;
            if (n++ < max) {
                char pct[32];
                chart_format_number((c->t.ratio - 1) * 100, 1, pct, sizeof(pct));
                strbuf_printf(&sb, "%s%s by %s%% in [%zu] %s", n == 1 ? "Result: slower: " : "; ", c->id, pct, k + 1,
                              r->runs[k + 1]->name);
            }
        }
    if (n > max)
        strbuf_printf(&sb, "; and %zu more", n - max);
    size_t tested = 0, decided = 0;
    for (size_t k = 0; k < r->npairs; k++) {
        tested += compare_ntested(&r->pairs[k]);
        decided += compare_ndecided(&r->pairs[k]);
    }
    if (n)
        strbuf_printf(&sb, ".");
    else if (tested == 0)
        strbuf_printf(&sb, "Result: nothing decided: no cell could be tested; no cell was found slower.");
    else if (decided == 0)
    {
        char who[64];
        if (tested == 1)
            snprintf(who, sizeof(who), "the tested cell cannot");
        else if (tested == 2)
            snprintf(who, sizeof(who), "both tested cells cannot");
        else
            snprintf(who, sizeof(who), "all %zu tested cells cannot", tested);
        strbuf_printf(&sb, "Result: nothing decided: %s tell (ambiguous); no cell was found slower, and none was "
                           "shown not to be.", who);
    }
    else
        strbuf_printf(&sb, "Result: no cell got slower");
    if (!n && tested && decided && decided < tested)
        strbuf_printf(&sb, "; %zu of %zu tested cells cannot tell (ambiguous).", tested - decided, tested);
    else if (!n && tested && decided)
        strbuf_printf(&sb, ".");
    return strbuf_detach(&sb); /* these formats always expand: never NULL */
}
