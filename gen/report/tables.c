/*
 * tables.c - the report's tables from a struct rctx (see tables.h).
 */
#include "report/tables.h"
#include "base/error.h"
#include "charts/heatmap.h"
#include "report/answer.h"
#include "report/throughput.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int table_init(struct table *t, size_t ncols)
{
    memset(t, 0, sizeof(*t));
    t->ncols = ncols;
    t->head = calloc(ncols + 1, sizeof(*t->head));
    t->numeric = calloc(ncols + 1, 1);
    if (!t->head || !t->numeric)
        return error_set(BG_ENOMEM, "out of memory");
    return 0;
}

int table_head(struct table *t, size_t c, const char *text, int numeric)
{
    t->numeric[c] = (unsigned char)numeric;
    return (t->head[c] = strdup(text)) ? 0 : error_set(BG_ENOMEM, "out of memory");
}

long table_row(struct table *t)
{
    struct tcell *nc = realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(*nc));
    if (!nc)
        return error_set(BG_ENOMEM, "out of memory");
    t->cells = nc;
    for (size_t c = 0; c < t->ncols; c++)
        t->cells[t->nrows * t->ncols + c] = (struct tcell){NULL, NAN, 0, 0, NULL};
    return (long)t->nrows++;
}

int table_set(struct table *t, long r, size_t c, unsigned flags, double num, const char *fmt, ...)
{
    struct tcell *cell = &t->cells[(size_t)r * t->ncols + c];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    free(cell->text);
    cell->text = malloc(n >= 0 ? (size_t)n + 1 : 1);
    if (!cell->text)
        return error_set(BG_ENOMEM, "out of memory");
    va_start(ap, fmt);
    vsnprintf(cell->text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cell->flags = flags;
    cell->num = num;
    return 0;
}

int table_finish(struct table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        if (!t->cells[i].text && !(t->cells[i].text = strdup("")))
            return error_set(BG_ENOMEM, "out of memory");
    return 0;
}

int table_href(struct table *t, long r, size_t c, const char *anchor)
{
    struct tcell *cell = &t->cells[(size_t)r * t->ncols + c];
    free(cell->href);
    return (cell->href = strdup(anchor)) ? 0 : error_set(BG_ENOMEM, "out of memory");
}

void table_log_anchor(const char *key, char *buf, size_t n)
{
    size_t o = (size_t)snprintf(buf, n, "log-");
    for (const char *p = key; *p && o + 1 < n; p++)
        buf[o++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                           *p == '-' || *p == '_'
                       ? *p
                       : '_';
    if (o < n)
        buf[o] = '\0';
}

void table_free(struct table *t)
{
    if (!t)
        return;
    for (size_t c = 0; t->head && c < t->ncols; c++)
        free(t->head[c]);
    for (size_t i = 0; t->cells && i < t->nrows * t->ncols; i++) {
        free(t->cells[i].text);
        free(t->cells[i].href);
    }
    free(t->head);
    free(t->numeric);
    free(t->cells);
    free(t->caption);
    memset(t, 0, sizeof(*t));
}

static int row_heads(struct table *t, const struct grid *g, long r, size_t row)
{
    int err = table_set(t, r, 0, 0, NAN, "%s", g->rows[row].label);
    return err ? err : table_set(t, r, 1, 0, g->rows[row].batch, "%d", g->rows[row].batch);
}

static int build_summary(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int k3 = g->nkeras3 > 0, err;
    if ((err = table_init(t, 2 + g->ncols + (size_t)k3)) < 0 ||
        (err = table_head(t, 0, "Model (task)", 0)) < 0 || (err = table_head(t, 1, "Batch", 1)) < 0)
        return err;
    for (size_t c = 0; c < g->ncols; c++)
        if ((err = table_head(t, 2 + c, g->cols[c].display, 1)) < 0)
            return err;
    if (k3 && (err = table_head(t, 2 + g->ncols, "Keras 3 (best)", 1)) < 0)
        return err;
    for (size_t row = 0; row < g->nrows; row++) {
        long r = table_row(t);
        if (r < 0 || (err = row_heads(t, g, r, row)) < 0)
            return r < 0 ? (int)r : err;
        for (size_t c = 0; c < g->ncols; c++) {
            const struct grid_cell *gc = grid_at(g, row, c);
            char ms[64];
            rctx_fmt_ms(gc->st.mean, ms, sizeof(ms));
            /* the fastest, or every cell of a tie inside the noise band */
            const struct grid_cell *bc = g->rows[row].best_col >= 0 ? grid_at(g, row, (size_t)g->rows[row].best_col) : NULL;
            int best = (int)c == g->rows[row].best_col ||
                       (x->answer && bc && gc->ok && gc->st.mean < bc->st.mean * (1 + ANSWER_NOISE));
            unsigned flags = best ? TC_BOLD | TC_HEAT : TC_HEAT;
            err = gc->ok ? table_set(t, r, 2 + c, flags, gc->st.mean, "%s", ms)
                         : table_set(t, r, 2 + c, TC_NA, NAN, "%s", gc->na);
            if (err < 0)
                return err;
            if (gc->ok) /* colour by the ratio to the row's best, as the heatmap */
                t->cells[(size_t)r * t->ncols + 2 + c].bg =
                    heatmap_color(gc->st.mean / grid_at(g, row, (size_t)g->rows[row].best_col)->st.mean);
        }
        if (k3) {
            double best = grid_keras3_best(g, row);
            char ms[64];
            rctx_fmt_ms(best, ms, sizeof(ms));
            const struct grid_cell *bc =
                g->rows[row].best_col >= 0 ? grid_at(g, row, (size_t)g->rows[row].best_col) : NULL;
            int is_best = g->rows[row].k3_col >= 0 &&
                          (g->rows[row].k3_col == g->rows[row].best_col ||
                           (x->answer && bc && best < bc->st.mean * (1 + ANSWER_NOISE)));
            err = isfinite(best) ? table_set(t, r, 2 + g->ncols, is_best ? TC_BOLD : 0, best, "%s", ms)
                                 : table_set(t, r, 2 + g->ncols, TC_NA, NAN, "NA (no Keras 3 result)");
            if (err < 0)
                return err;
        }
    }
    return 0;
}

static int build_detail(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int err;
    if ((err = table_init(t, 2 + g->ncols)) < 0 || (err = table_head(t, 0, "Model (task)", 0)) < 0 ||
        (err = table_head(t, 1, "Batch", 1)) < 0)
        return err;
    t->caption = strdup("Median ms/step, and the 95% bootstrap confidence interval of the mean in brackets.");
    for (size_t c = 0; c < g->ncols; c++)
        if ((err = table_head(t, 2 + c, g->cols[c].display, 1)) < 0)
            return err;
    for (size_t row = 0; row < g->nrows; row++) {
        long r = table_row(t);
        if (r < 0 || (err = row_heads(t, g, r, row)) < 0)
            return r < 0 ? (int)r : err;
        for (size_t c = 0; c < g->ncols; c++) {
            const struct grid_cell *gc = grid_at(g, row, c);
            char med[64], lo[64], hi[64];
            rctx_fmt_ms(gc->st.median, med, sizeof(med));
            rctx_fmt_ms(gc->st.ci_lo, lo, sizeof(lo));
            rctx_fmt_ms(gc->st.ci_hi, hi, sizeof(hi));
            err = gc->ok ? table_set(t, r, 2 + c, 0, gc->st.median, "%s [%s, %s]", med, lo, hi)
                         : table_set(t, r, 2 + c, TC_NA, NAN, "%s", gc->na);
            if (err < 0)
                return err;
        }
    }
    return t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

static int build_speedup(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int k3 = g->nkeras3 > 0, err;
    if (x->baseline < 0)
        return table_init(t, 0);
    size_t n = 2 + g->ncols - 1 + (size_t)k3;
    if ((err = table_init(t, n)) < 0 || (err = table_head(t, 0, "Model (task)", 0)) < 0 ||
        (err = table_head(t, 1, "Batch", 1)) < 0)
        return err;
    const struct grid_col *base = &g->cols[x->baseline];
    t->caption = util_printf("Throughput speedup over %s: (baseline ms/step / ms/step - 1) x 100%%. "
                             "+100%% is twice as fast, negative is slower.",
                             base->display);
    size_t k = 2;
    for (size_t c = 0; c < g->ncols; c++)
        if ((int)c != x->baseline && (err = table_head(t, k++, g->cols[c].display, 1)) < 0)
            return err;
    if (k3 && (err = table_head(t, k, "Keras 3 (best)", 1)) < 0)
        return err;
    for (size_t row = 0; row < g->nrows; row++) {
        long r = table_row(t);
        if (r < 0 || (err = row_heads(t, g, r, row)) < 0)
            return r < 0 ? (int)r : err;
        const struct grid_cell *bc = grid_at(g, row, (size_t)x->baseline);
        k = 2;
        for (size_t c = 0; c <= g->ncols; c++) {
            if ((int)c == x->baseline || (c == g->ncols && !k3))
                continue;
            double ms = c < g->ncols ? grid_at(g, row, c)->st.mean : grid_keras3_best(g, row);
            double pct = grid_speedup(bc->st.mean, ms);
            char txt[64];
            rctx_fmt_pct(pct, txt, sizeof(txt));
            if (isfinite(pct))
                err = table_set(t, r, k, 0, pct, "%s", txt);
            else if (c < g->ncols && !grid_at(g, row, c)->ok)
                err = table_set(t, r, k, TC_NA, NAN, "%s", grid_at(g, row, c)->na);
            else if (!bc->ok)
                err = table_set(t, r, k, TC_NA, NAN, "NA (baseline %s)", bc->status);
            else
                err = table_set(t, r, k, TC_NA, NAN, "NA (no Keras 3 result)");
            if (err < 0)
                return err;
            k++;
        }
    }
    return t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

static int build_reference(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int err;
    if (!x->ref)
        return table_init(t, 0);
    int k3 = g->nkeras3 > 0;
    if ((err = table_init(t, 2 + g->ncols + (size_t)k3)) < 0 ||
        (err = table_head(t, 0, "Model (task)", 0)) < 0 || (err = table_head(t, 1, "Batch", 1)) < 0)
        return err;
    for (size_t c = 0; c < g->ncols; c++)
        if ((err = table_head(t, 2 + c, g->cols[c].display, 1)) < 0)
            return err;
    if (k3 && (err = table_head(t, 2 + g->ncols, "Keras 3 (best)", 1)) < 0)
        return err;
    const struct ref_row *first = reference_first(x->ref, x->ref_revision);
    struct strbuf cap = {0};
    strbuf_printf(&cap, "Measured / published ms/step (ratio measured / published), revision %d%s%s%s%s.",
                  x->ref_revision, first && first->date[0] ? " of " : "", first ? first->date : "",
                  first && first->source[0] ? ", " : "", first ? first->source : "");
    /* the page's asterisk: where it appears and what its footnote says */
    const char *foot = NULL;
    size_t nfoot = 0, nstar = 0;
    for (size_t row = 0; row < g->nrows; row++)
        for (size_t c = 0; c < g->ncols; c++) {
            const struct ref_row *p = rctx_published(x, row, c);
            const char *text;
            size_t len = reference_footnote(p, &text);
            if (!p || !strchr(p->published, '*'))
                continue;
            strbuf_printf(&cap, "%s%s, %s", nstar++ ? "; " : " An asterisk (*) marks the values the page footnoted: ",
                          g->cols[c].display, g->rows[row].title);
            if (len && !foot) {
                foot = text;
                nfoot = len;
            }
        }
    if (nstar)
        strbuf_printf(&cap, ". Its footnote: \"%.*s\"", (int)nfoot, foot ? foot : "(not recorded)");
    t->caption = strbuf_detach(&cap);
    for (size_t row = 0; row < g->nrows; row++) {
        long r = table_row(t);
        if (r < 0 || (err = row_heads(t, g, r, row)) < 0)
            return r < 0 ? (int)r : err;
        for (size_t c = 0; c <= g->ncols; c++) {
            if (c == g->ncols && !k3)
                break;
            const struct ref_row *p = c < g->ncols ? rctx_published(x, row, c) : x->ref_k3[row];
            double ms = c < g->ncols ? grid_at(g, row, c)->st.mean : grid_keras3_best(g, row);
            char m[64], ratio[64];
            if (c < g->ncols && !grid_at(g, row, c)->ok)
                snprintf(m, sizeof(m), "%s", grid_at(g, row, c)->na);
            else
                rctx_fmt_ms(ms, m, sizeof(m));
            const char *pub = p ? p->published : "not published";
            int k3c = g->rows[row].k3_col; /* the Keras 3 (best) column is that cell's number */
            const char *why = c < g->ncols ? rctx_ref_why(x, row, c)
                              : k3c >= 0  ? rctx_ref_why(x, row, (size_t)k3c)
                                          : NULL;
            double q = p && isfinite(p->ms) && p->ms > 0 && isfinite(ms) ? ms / p->ms : NAN;
            chart_format_number(q, 2, ratio, sizeof(ratio));
            if (why)
                err = table_set(t, r, 2 + c, TC_NA, NAN, "%s / %s (%s)", m, pub, why);
            else if (isfinite(q))
                err = table_set(t, r, 2 + c, 0, q, "%s / %s (%s\xC3\x97)", m, pub, ratio);
            else
                err = table_set(t, r, 2 + c, TC_NA, NAN, "%s / %s", m, pub);
            if (err < 0)
                return err;
        }
    }
    return t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

static int build_throughput(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int k3 = g->nkeras3 > 0, err;
    if ((err = table_init(t, 3 + g->ncols + (size_t)k3)) < 0 ||
        (err = table_head(t, 0, "Model (task)", 0)) < 0 || (err = table_head(t, 1, "Batch", 1)) < 0 ||
        (err = table_head(t, 2, "Unit", 0)) < 0)
        return err;
    for (size_t c = 0; c < g->ncols; c++)
        if ((err = table_head(t, 3 + c, g->cols[c].display, 1)) < 0)
            return err;
    if (k3 && (err = table_head(t, 3 + g->ncols, "Keras 3 (best)", 1)) < 0)
        return err;
    t->caption = util_printf("Throughput at the mean ms/step, higher is better: samples/s for fit and predict, "
                             "tokens/s for generate (batch x %d new tokens, an upper bound where the method "
                             "stops at EOS), images/s for StableDiffusion (predict: %d denoising steps an image).",
                             THROUGHPUT_NEW_TOKENS, THROUGHPUT_SD_STEPS);
    for (size_t row = 0; row < g->nrows && !err; row++) {
        const struct grid_row *gr = &g->rows[row];
        long r = table_row(t);
        if (r < 0 || (err = row_heads(t, g, r, row)) < 0)
            return r < 0 ? (int)r : err;
        struct throughput tp;
        for (size_t c = 0; c <= g->ncols && !err; c++) {
            if (c == g->ncols && !k3)
                break;
            int col = c < g->ncols ? (int)c : gr->k3_col;
            const struct grid_cell *gc = col >= 0 ? grid_at(g, row, (size_t)col) : NULL;
            throughput_of(&tp, gr->model, gr->task, gr->batch, gc ? gc->cell : NULL);
            if (c == 0)
                err = table_set(t, r, 2, 0, NAN, "%s", tp.unit);
            double rate = gc && gc->ok ? throughput_rate(&tp, gc->st.mean) : NAN;
            char txt[64];
            throughput_fmt(rate, txt, sizeof(txt));
            /* bold as in the summary: the fastest, or a tie with it inside the noise band */
            const struct grid_cell *bc = gr->best_col >= 0 ? grid_at(g, row, (size_t)gr->best_col) : NULL;
            int best = col >= 0 && (col == gr->best_col || (x->answer && bc && gc->ok &&
                                                            gc->st.mean < bc->st.mean * (1 + ANSWER_NOISE)));
            if (err)
                break;
            if (isfinite(rate))
                err = table_set(t, r, 3 + c, best ? TC_BOLD : 0, rate, "%s", txt);
            else
                err = table_set(t, r, 3 + c, TC_NA, NAN, "%s", c < g->ncols ? gc->na : "NA (no Keras 3 result)");
        }
    }
    return err ? err : t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

static int build_statistics(const struct rctx *x, struct table *t)
{
    static const char *const head[] = {"Model (task)", "Batch",    "Backend",
                                       "Repeat",       "Status",   "n",
                                       "Mean",         "Median",   "p5",
                                       "p95",          "Std dev",  "95% CI of the mean",
                                       "CV",           "Outliers", "Compile (first call) ms",
                                       "Warm-up ms",   "Warnings"};
    static const unsigned char numeric[] = {0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};
    size_t n = sizeof(head) / sizeof(head[0]);
    int err;
    if ((err = table_init(t, n)) < 0)
        return err;
    t->caption =
        strdup("Every cell of the run, ms. Mean is the published metric; CV = standard deviation / mean.");
    for (size_t c = 0; c < n; c++)
        if ((err = table_head(t, c, head[c], numeric[c])) < 0)
            return err;
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *cell = &x->rd->cells[i];
        const struct stats *st = &cell->st;
        int ok = cell->status == STATUS_OK && st->n > 0;
        long r = table_row(t);
        if (r < 0)
            return (int)r;
        int row = -1;
        for (size_t k = 0; k < x->g->nrows && row < 0; k++)
            if (x->g->rows[k].batch == cell->batch && !strcmp(x->g->rows[k].model, cell->model) &&
                !strcmp(x->g->rows[k].task, cell->task))
                row = (int)k;
        char v[8][64], warn[200];
        double nums[8] = {st->mean, st->median, st->p5, st->p95, st->stdev, NAN, NAN, NAN};
        for (int k = 0; k < 5; k++)
            rctx_fmt_ms(ok ? nums[k] : NAN, v[k], sizeof(v[k]));
        grid_warnings(st, warn, sizeof(warn));
        double compile = cell->nwarmup ? (double)cell->warmup_ns[0] / 1e6 : NAN, wsum = 0;
        for (size_t k = 0; k < cell->nwarmup; k++)
            wsum += (double)cell->warmup_ns[k] / 1e6;
        const char *status = cell->status ? status_name(cell->status) : "not run";
        if ((err = table_set(t, r, 0, 0, NAN, "%s", row >= 0 ? x->g->rows[row].label : cell->model)) < 0 ||
            (err = table_set(t, r, 1, 0, cell->batch, "%d", cell->batch)) < 0 ||
            (err = table_set(t, r, 2, 0, NAN, "%s", rctx_backend_display(cell->backend))) < 0 ||
            (err = table_set(t, r, 3, 0, cell->repeat, "%d", cell->repeat)) < 0 ||
            (err = table_set(t, r, 4, ok ? 0 : TC_NA, NAN, "%s", status)) < 0)
            return err;
        char anchor[300];
        table_log_anchor(cell->key, anchor, sizeof(anchor));
        if ((err = table_href(t, r, 0, anchor)) < 0)
            return err;
        if (!ok) {
            for (size_t c = 5; c < n - 1; c++)
                if ((err = table_set(t, r, c, TC_NA, NAN, "%s", c == 5 ? "0" : "NA")) < 0)
                    return err;
            continue;
        }
        char lo[64], hi[64], cv[64], comp[64], wu[64];
        rctx_fmt_ms(st->ci_lo, lo, sizeof(lo));
        rctx_fmt_ms(st->ci_hi, hi, sizeof(hi));
        chart_format_number(st->cv * 100, 1, cv, sizeof(cv));
        rctx_fmt_ms(compile, comp, sizeof(comp));
        double wsum_ms = cell->nwarmup ? wsum : NAN;
        rctx_fmt_ms(wsum_ms, wu, sizeof(wu));
        if ((err = table_set(t, r, 5, 0, (double)st->n, "%zu", st->n)) < 0 ||
            (err = table_set(t, r, 6, 0, st->mean, "%s", v[0])) < 0 ||
            (err = table_set(t, r, 7, 0, st->median, "%s", v[1])) < 0 ||
            (err = table_set(t, r, 8, 0, st->p5, "%s", v[2])) < 0 ||
            (err = table_set(t, r, 9, 0, st->p95, "%s", v[3])) < 0 ||
            (err = table_set(t, r, 10, 0, st->stdev, "%s", v[4])) < 0 ||
            (err = table_set(t, r, 11, 0, NAN, "%s - %s", lo, hi)) < 0 ||
            (err = table_set(t, r, 12, st->cv > STATS_NOISY_CV ? TC_WARN : 0, st->cv, "%s%%", cv)) < 0 ||
            (err = table_set(t, r, 13, 0, (double)st->outliers, "%zu", st->outliers)) < 0 ||
            (err = table_set(t, r, 14, cell->nwarmup ? 0 : TC_NA, compile, "%s", comp)) < 0 ||
            (err = table_set(t, r, 15, cell->nwarmup ? 0 : TC_NA, wsum_ms, "%s", wu)) < 0 ||
            (err = table_set(t, r, 16, warn[0] ? TC_WARN : 0, NAN, "%s", warn)) < 0)
            return err;
    }
    return t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

static int build_facts(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int err;
    if ((err = table_init(t, 1 + g->ncols)) < 0 || (err = table_head(t, 0, "Fact", 0)) < 0)
        return err;
    for (size_t c = 0; c < g->ncols; c++)
        if ((err = table_head(t, 1 + c, g->cols[c].display, 0)) < 0)
            return err;
    for (size_t f = 0; f < x->nfacts; f++) {
        long r = table_row(t);
        if (r < 0 || (err = table_set(t, r, 0, TC_MONO, NAN, "%s", x->fact_names[f])) < 0)
            return r < 0 ? (int)r : err;
        for (size_t c = 0; c < g->ncols; c++) {
            const char *v = x->fact_values[f * g->ncols + c];
            if ((err = table_set(t, r, 1 + c, v[0] ? 0 : TC_NA, NAN, "%s", v[0] ? v : "-")) < 0)
                return err;
        }
    }
    return 0;
}

/* "80.0 GiB" / "512.0 MiB" for a byte count, into buf; 0 when v is not a whole number. */
static int fmt_bytes(const char *v, char *buf, size_t n)
{
    char *end;
    double b = v ? strtod(v, &end) : NAN;
    if (!v || end == v || *end || !isfinite(b) || b < 0)
        return 0;
    if (b >= 1024.0 * 1024 * 1024)
        snprintf(buf, n, "%.1f GiB", b / (1024.0 * 1024 * 1024));
    else
        snprintf(buf, n, "%.1f MiB", b / (1024.0 * 1024));
    return 1;
}

static int build_kv(struct table *t, const struct kvlist *kv)
{
    int err;
    if ((err = table_init(t, 2)) < 0 || (err = table_head(t, 0, "Key", 0)) < 0 ||
        (err = table_head(t, 1, "Value", 0)) < 0)
        return err;
    for (size_t i = 0; i < kv->n; i++) {
        long r = table_row(t);
        const char *key = kv->items[i].key, *v = kv->items[i].value;
        size_t kl = strlen(key);
        char mem[64];
        int bytes = kl > 6 && strcmp(key + kl - 6, "_bytes") == 0 && fmt_bytes(v, mem, sizeof(mem));
        if (r < 0 || (err = table_set(t, r, 0, TC_MONO, NAN, "%s", key)) < 0 ||
            (err = table_set(t, r, 1, 0, NAN, "%s", bytes ? mem : v ? v : "")) < 0)
            return r < 0 ? (int)r : err;
    }
    return 0;
}

static int build_py_env(const struct rctx *x, struct table *t)
{
    int err;
    if ((err = table_init(t, 1 + x->nenvs)) < 0 || (err = table_head(t, 0, "Key", 0)) < 0)
        return err;
    t->caption = strdup("Versions and settings each backend recorded (its first cell that recorded any): "
                        "backends sharing a Python environment can still differ, e.g. in KERAS_BACKEND.");
    for (size_t e = 0; e < x->nenvs; e++)
        if ((err = table_head(t, 1 + e, x->env_names[e], 0)) < 0)
            return err;
    for (size_t k = 0; k < x->nenv_keys; k++) {
        long r = table_row(t);
        if (r < 0 || (err = table_set(t, r, 0, TC_MONO, NAN, "%s", x->env_keys[k])) < 0)
            return r < 0 ? (int)r : err;
        for (size_t e = 0; e < x->nenvs; e++) {
            const char *v = x->env_values[k * x->nenvs + e];
            if ((err = table_set(t, r, 1 + e, v ? TC_MONO : TC_NA, NAN, "%s", v ? v : "-")) < 0)
                return err;
        }
    }
    return t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

static int build_failures(const struct rctx *x, struct table *t)
{
    int err;
    if ((err = table_init(t, 3)) < 0 || (err = table_head(t, 0, "Cell", 0)) < 0 ||
        (err = table_head(t, 1, "Status", 0)) < 0 ||
        (err = table_head(t, 2, "Detail (first line; the full text is in the cell's log)", 0)) < 0)
        return err;
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        if (c->status == STATUS_OK)
            continue;
        const char *line;
        size_t len = grid_detail_line(c->detail, &line);
        if (len > 300)
            len = 300;
        long r = table_row(t);
        char anchor[300];
        table_log_anchor(c->key, anchor, sizeof(anchor));
        if (r < 0 || (err = table_set(t, r, 0, TC_MONO, NAN, "%s", c->key)) < 0 ||
            (err = table_href(t, r, 0, anchor)) < 0 ||
            (err = table_set(t, r, 1, TC_NA, NAN, "%s", c->status ? status_name(c->status) : "not run")) < 0 ||
            (err = table_set(t, r, 2, 0, NAN, "%.*s", (int)len, line)) < 0)
            return r < 0 ? (int)r : err;
    }
    return 0;
}

static int build_meta(const struct rctx *x, struct table *t)
{
    const struct rundata *rd = x->rd;
    int err;
    size_t ok = 0;
    for (size_t i = 0; i < rd->ncells; i++)
        ok += rd->cells[i].status == STATUS_OK;
    char cells[128], baseline[160], ref[600];
    snprintf(cells, sizeof(cells), "%zu (%zu ok, %zu NA), %zu rows x %zu backends", rd->ncells, ok,
             rd->ncells - ok, x->g->nrows, x->g->ncols);
    snprintf(baseline, sizeof(baseline), "%s", x->baseline >= 0 ? x->g->cols[x->baseline].display : "none");
    if (x->ref) {
        const struct ref_row *first = reference_first(x->ref, x->ref_revision);
        /* the file's name, not its path: the documents must not depend on where it was read from */
        const char *base = strrchr(x->ref->path, '/');
        snprintf(ref, sizeof(ref), "%s, revision %d%s%s (%zu published cells match)",
                 base ? base + 1 : x->ref->path, x->ref_revision, first && first->date[0] ? " of " : "",
                 first ? first->date : "", x->ref_matched);
    } else {
        snprintf(ref, sizeof(ref), "none (benchgen report --reference data/reference/keras-benchmarks.csv)");
    }
    const char *fields[][2] = {
        {"Run", rd->name},
        {"Description", rd->description},
        {"Created", rd->created_utc},
        {"Started", rd->started_utc ? rd->started_utc : "-"},
        {"Finished", rd->finished_utc ? rd->finished_utc : "not finished"},
        {"Spec", rd->spec_path},
        {"Spec SHA-256", rd->spec_sha256},
        {"Size / precision", NULL},
        {"Command line", rd->command_line},
        {"benchgen", NULL},
        {"Hardware", x->hardware_run},
        {"Cells", cells},
        {"Speedup baseline", baseline},
        {"Reference", ref},
    };
    if ((err = table_init(t, 2)) < 0 || (err = table_head(t, 0, "Field", 0)) < 0 ||
        (err = table_head(t, 1, "Value", 0)) < 0)
        return err;
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        long r = table_row(t);
        if (r < 0 || (err = table_set(t, r, 0, 0, NAN, "%s", fields[i][0])) < 0)
            return r < 0 ? (int)r : err;
        if (i == 7) {
            /* the cells' own precisions: a spec may set one per row (the LLM rows run in bfloat16) */
            char prec[160] = "";
            size_t np = 0;
            for (size_t k = 0; k < rd->ncells; k++) {
                const char *pr = rd->cells[k].precision;
                if (pr && pr[0] && !strstr(prec, pr) && strlen(prec) + strlen(pr) + 3 < sizeof(prec))
                    snprintf(prec + strlen(prec), sizeof(prec) - strlen(prec), "%s%s", np++ ? ", " : "", pr);
            }
            err = table_set(t, r, 1, 0, NAN, "%s / %s%s, seed %llu", rd->size, np > 1 ? "per row: " : "",
                            np ? prec : rd->precision, (unsigned long long)rd->seed);
        }
        else if (i == 9)
            err = table_set(t, r, 1, TC_MONO, NAN, "%s, commit %s%s", rd->benchgen_version, rd->git_commit,
                            rd->git_dirty ? " (uncommitted changes)" : "");
        else
            err = table_set(t, r, 1, i == 6 ? TC_MONO : 0, NAN, "%s", fields[i][1] ? fields[i][1] : "");
        if (err < 0)
            return err;
    }
    return 0;
}

static int build_wins(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    const struct answer *a = x->answer;
    static const char *const head[] = {"Backend", "Fastest", "Tied for fastest", "Rows measured"};
    int err = table_init(t, a ? 4 : 0);
    for (size_t c = 0; a && c < 4 && !err; c++)
        err = table_head(t, c, head[c], c > 0);
    if (err || !a)
        return err;
    t->caption = util_printf("Rows each backend wins; a lead under %.0f%% is a tie, counted for every backend in it.",
                             ANSWER_NOISE * 100);
    for (size_t c = 0; c < g->ncols && !err; c++) {
        long r = table_row(t);
        if (r < 0)
            return (int)r;
        err = table_set(t, r, 0, 0, NAN, "%s", g->cols[c].display);
        err = err ? err : table_set(t, r, 1, 0, (double)a->wins[c], "%zu", a->wins[c]);
        err = err ? err : table_set(t, r, 2, 0, (double)a->ties[c], "%zu", a->ties[c]);
        err = err ? err : table_set(t, r, 3, 0, (double)a->measured[c], "%zu of %zu", a->measured[c], g->nrows);
    }
    return err ? err : t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

static int build_geomean(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    const struct answer *a = x->answer;
    static const char *const head[] = {"Backend", "Rows", "Speed-up (geometric mean)", "95% interval"};
    int err = table_init(t, a && x->baseline >= 0 ? 4 : 0);
    if (err || !a || x->baseline < 0)
        return err;
    for (size_t c = 0; c < 4 && !err; c++)
        err = table_head(t, c, head[c], c > 0);
    t->caption = util_printf("Geometric mean over the rows both have of %s ms/step / backend ms/step (above 1: "
                             "faster than %s); the interval resamples the rows.",
                             g->cols[x->baseline].display, g->cols[x->baseline].display);
    for (size_t i = 0; i < a->ngeo && !err; i++) {
        const struct answer_geo *ge = &a->geo[i];
        long r = table_row(t);
        if (r < 0)
            return (int)r;
        err = table_set(t, r, 0, 0, NAN, "%s", g->cols[ge->col].display);
        err = err ? err : table_set(t, r, 1, 0, (double)ge->n, "%zu", ge->n);
        if (!err && isfinite(ge->geo))
            err = table_set(t, r, 2, 0, ge->geo, "%.2f\xC3\x97", ge->geo);
        else if (!err)
            err = table_set(t, r, 2, TC_NA, NAN, "NA (no row with both)");
        if (!err && isfinite(ge->lo))
            err = table_set(t, r, 3, 0, NAN, "%.2f\xC3\x97 - %.2f\xC3\x97", ge->lo, ge->hi);
        else if (!err)
            err = table_set(t, r, 3, TC_NA, NAN, "NA (fewer than 3 rows)");
    }
    return err ? err : t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

/* Distinct values of fact `name` over the row's cells, " / "-joined ("" when none). */
static int row_fact(const struct rctx *x, size_t row, const char *name, struct strbuf *sb)
{
    const struct grid_row *gr = &x->g->rows[row];
    size_t mark = sb->len;
    int err = 0;
    for (size_t i = 0; i < x->rd->ncells && !err; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        if (c->batch != gr->batch || strcmp(c->model, gr->model) || strcmp(c->task, gr->task))
            continue;
        const char *v = strcmp(name, "precision") == 0 ? c->precision : kvlist_get(&c->facts, name);
        if (!v || !v[0])
            continue;
        /* already listed? */
        const char *p = sb->buf ? sb->buf + mark : NULL;
        int seen = 0;
        while (p && *p && !seen) {
            size_t len = strcspn(p, "/");
            while (len && p[len - 1] == ' ')
                len--;
            seen = strlen(v) == len && strncmp(p, v, len) == 0;
            p = strchr(p, '/');
            p = p ? p + 2 : NULL;
        }
        if (!seen)
            err = strbuf_printf(sb, "%s%s", sb->len > mark ? " / " : "", v);
    }
    return err;
}

static int build_config(const struct rctx *x, struct table *t)
{
    static const char *const head[] = {"Model (task)", "Batch", "Size", "Precision", "Parameters",
                                       "Trainable", "Shapes", "Timed steps", "Warm-up steps", "Repeats"};
    const struct grid *g = x->g;
    int err = table_init(t, 10);
    for (size_t c = 0; c < 10 && !err; c++)
        err = table_head(t, c, head[c], c == 1 || c >= 7);
    t->caption = strdup("What each row measured, from its cells (values that differ between backends are "
                        "joined with /; - : not recorded).");
    struct strbuf sb = {0};
    for (size_t row = 0; row < g->nrows && !err; row++) {
        long r = table_row(t);
        if (r < 0 || (err = row_heads(t, g, r, row)) < 0) {
            err = r < 0 ? (int)r : err;
            break;
        }
        const struct rd_cell *c = NULL;
        size_t reps = 0;
        for (size_t k = 0; k < g->ncols; k++) {
            const struct grid_cell *gc = grid_at(g, row, k);
            c = c ? c : gc->cell;
            reps = gc->nrepeats > reps ? gc->nrepeats : reps;
        }
        static const char *const facts[] = {"size", "precision", "parameters", "parameters.trainable"};
        for (size_t f = 0; f < 4 && !err; f++) {
            strbuf_free(&sb);
            err = strbuf_append(&sb, "", 0);
            if (f == 0 && c)
                err = err ? err : strbuf_puts(&sb, c->size);
            else
                err = err ? err : row_fact(x, row, facts[f], &sb);
            err = err ? err : table_set(t, r, 2 + f, sb.len ? 0 : TC_NA, NAN, "%s", sb.len ? sb.buf : "-");
        }
        /* shapes: every fact that names one */
        strbuf_free(&sb);
        err = err ? err : strbuf_append(&sb, "", 0);
        for (size_t k = 0; c && k < c->facts.n && !err; k++) {
            const char *name = c->facts.items[k].key;
            if (strstr(name, "shape") || strstr(name, "seq") || strstr(name, "tokens") || strstr(name, "image"))
                err = strbuf_printf(&sb, "%s%s %s", sb.len ? "; " : "", name, c->facts.items[k].value);
        }
        err = err ? err : table_set(t, r, 6, sb.len ? TC_MONO : TC_NA, NAN, "%s", sb.len ? sb.buf : "-");
        err = err ? err : c ? table_set(t, r, 7, 0, c->steps, "%d", c->steps) : table_set(t, r, 7, TC_NA, NAN, "-");
        err = err ? err : c ? table_set(t, r, 8, 0, c->warmup, "%d", c->warmup) : table_set(t, r, 8, TC_NA, NAN, "-");
        err = err ? err : table_set(t, r, 9, 0, (double)reps, "%zu", reps);
    }
    strbuf_free(&sb);
    return err ? err : t->caption ? 0 : error_set(BG_ENOMEM, "out of memory");
}

int tables_build(const struct rctx *x, enum table_kind kind, struct table *t)
{
    int err;
    switch (kind) {
    case TABLE_SUMMARY: err = build_summary(x, t); break;
    case TABLE_DETAIL: err = build_detail(x, t); break;
    case TABLE_SPEEDUP: err = build_speedup(x, t); break;
    case TABLE_THROUGHPUT: err = build_throughput(x, t); break;
    case TABLE_REFERENCE: err = build_reference(x, t); break;
    case TABLE_STATISTICS: err = build_statistics(x, t); break;
    case TABLE_FACTS: err = build_facts(x, t); break;
    case TABLE_RUN_ENV: err = build_kv(t, &x->rd->env); break;
    case TABLE_PY_ENV: err = build_py_env(x, t); break;
    case TABLE_FAILURES: err = build_failures(x, t); break;
    case TABLE_WINS: err = build_wins(x, t); break;
    case TABLE_GEOMEAN: err = build_geomean(x, t); break;
    case TABLE_CONFIG: err = build_config(x, t); break;
    case TABLE_META: err = build_meta(x, t); break;
    default: err = table_init(t, 0); break;
    }
    if (err == 0)
        err = table_finish(t);
    if (err < 0)
        table_free(t);
    return err;
}
