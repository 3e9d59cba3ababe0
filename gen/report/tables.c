/*
 * tables.c - the report's tables from a struct rctx (see tables.h).
 */
#include "report/tables.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "charts/heatmap.h"
#include "report/answer.h"
#include "report/throughput.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void table_init(struct table *t, size_t ncols)
{
    memset(t, 0, sizeof(*t));
    t->ncols = ncols;
    t->head = xcalloc(ncols + 1, sizeof(*t->head));
    t->numeric = xcalloc(ncols + 1, 1);
}

void table_head(struct table *t, size_t c, const char *text, int numeric)
{
    if (t->err)
        return;
    t->numeric[c] = (unsigned char)numeric;
    free(t->head[c]);
    t->head[c] = xstrdup(text);
}

size_t table_row(struct table *t)
{
    t->cells = xrealloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(*t->cells));
    for (size_t c = 0; c < t->ncols; c++)
        t->cells[t->nrows * t->ncols + c] = (struct tcell){NULL, NAN, 0, 0, NULL};
    return t->nrows++;
}

void table_set(struct table *t, size_t r, size_t c, unsigned flags, double num, const char *fmt, ...)
{
    if (t->err)
        return;
    struct tcell *cell = &t->cells[r * t->ncols + c];
    va_list ap;
    va_start(ap, fmt);
    char *text = xvformat(fmt, ap);
    va_end(ap);
    if (!text) {
        t->err = error_set(BG_EGENERIC, "table: a cell text could not be formatted (\"%s\")", fmt);
        return;
    }
    free(cell->text);
    cell->text = text;
    cell->flags = flags;
    cell->num = num;
}

int table_finish(struct table *t)
{
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        if (!t->cells[i].text)
            t->cells[i].text = xstrdup("");
    return t->err;
}

int table_error(const struct table *t) { return t->err; }

void table_href(struct table *t, size_t r, size_t c, const char *anchor)
{
    if (t->err)
        return;
    struct tcell *cell = &t->cells[r * t->ncols + c];
    free(cell->href);
    cell->href = xstrdup(anchor);
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

static void row_heads(struct table *t, const struct grid *g, size_t r, size_t row)
{
    table_set(t, r, 0, 0, NAN, "%s", g->rows[row].label);
    table_set(t, r, 1, 0, g->rows[row].batch, "%d", g->rows[row].batch);
}

/* The grid tables' columns: "Model (task)", "Batch", then extra (NULL: none),
 * a number column per backend but column skip (-1: none), and "Keras 3
 * (best)" when k3. */
static void grid_table(struct table *t, const struct grid *g, const char *extra, int skip, int k3)
{
    size_t k = 2;
    table_init(t, 2 + (extra != NULL) + g->ncols - (skip >= 0) + (size_t)k3);
    table_head(t, 0, "Model (task)", 0);
    table_head(t, 1, "Batch", 1);
    if (extra)
        table_head(t, k++, extra, 0);
    for (size_t c = 0; c < g->ncols; c++)
        if ((int)c != skip)
            table_head(t, k++, g->cols[c].display, 1);
    if (k3)
        table_head(t, k, "Keras 3 (best)", 1);
}

static void build_summary(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int k3 = grid_keras3_best_shown(g);
    grid_table(t, g, NULL, -1, k3);
    for (size_t row = 0; row < g->nrows; row++) {
        size_t r = table_row(t);
        row_heads(t, g, r, row);
        for (size_t c = 0; c < g->ncols; c++) {
            const struct grid_cell *gc = grid_at(g, row, c);
            char ms[64];
            rctx_fmt_ms(gc->st.mean, ms, sizeof(ms));
            /* the fastest, or every cell of a tie inside the noise band */
            const struct grid_cell *bc = g->rows[row].best_col >= 0 ? grid_at(g, row, (size_t)g->rows[row].best_col) : NULL;
            int best = (int)c == g->rows[row].best_col ||
                       (x->answer && bc && gc->ok && gc->st.mean < bc->st.mean * (1 + ANSWER_NOISE));
            unsigned flags = best ? TC_BOLD | TC_HEAT : TC_HEAT;
            if (gc->ok) {
                table_set(t, r, 2 + c, flags, gc->st.mean, "%s", ms);
                /* colour by the ratio to the row's best, as the heatmap */
                t->cells[r * t->ncols + 2 + c].bg =
                    heatmap_color(gc->st.mean / grid_at(g, row, (size_t)g->rows[row].best_col)->st.mean);
            } else {
                table_set(t, r, 2 + c, TC_NA, NAN, "%s", gc->na);
            }
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
            if (isfinite(best))
                table_set(t, r, 2 + g->ncols, is_best ? TC_BOLD : 0, best, "%s", ms);
            else
                table_set(t, r, 2 + g->ncols, TC_NA, NAN, "NA (no Keras 3 result)");
        }
    }
}

static void build_detail(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    grid_table(t, g, NULL, -1, 0);
    t->caption = xstrdup("Median ms/step, and the 95% bootstrap confidence interval of the mean in brackets.");
    for (size_t row = 0; row < g->nrows; row++) {
        size_t r = table_row(t);
        row_heads(t, g, r, row);
        for (size_t c = 0; c < g->ncols; c++) {
            const struct grid_cell *gc = grid_at(g, row, c);
            char med[64], lo[64], hi[64];
            rctx_fmt_ms(gc->st.median, med, sizeof(med));
            rctx_fmt_ms(gc->st.ci_lo, lo, sizeof(lo));
            rctx_fmt_ms(gc->st.ci_hi, hi, sizeof(hi));
            if (gc->ok)
                table_set(t, r, 2 + c, 0, gc->st.median, "%s [%s, %s]", med, lo, hi);
            else
                table_set(t, r, 2 + c, TC_NA, NAN, "%s", gc->na);
        }
    }
}

static void build_speedup(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int k3 = grid_keras3_best_shown(g);
    if (x->baseline < 0) {
        table_init(t, 0);
        return;
    }
    grid_table(t, g, NULL, x->baseline, k3);
    const struct grid_col *base = &g->cols[x->baseline];
    t->caption = xprintf("Throughput speedup over %s: (baseline ms/step / ms/step - 1) x 100%%. "
                         "+100%% is twice as fast, negative is slower.",
                         base->display);
    for (size_t row = 0; row < g->nrows; row++) {
        size_t r = table_row(t);
        row_heads(t, g, r, row);
        const struct grid_cell *bc = grid_at(g, row, (size_t)x->baseline);
        size_t k = 2;
        for (size_t c = 0; c <= g->ncols; c++) {
            if ((int)c == x->baseline || (c == g->ncols && !k3))
                continue;
            double ms = c < g->ncols ? grid_at(g, row, c)->st.mean : grid_keras3_best(g, row);
            double pct = grid_speedup(bc->st.mean, ms);
            char txt[64];
            rctx_fmt_pct(pct, txt, sizeof(txt));
            if (isfinite(pct))
                table_set(t, r, k, 0, pct, "%s", txt);
            else if (c < g->ncols && !grid_at(g, row, c)->ok)
                table_set(t, r, k, TC_NA, NAN, "%s", grid_at(g, row, c)->na);
            else if (!bc->ok)
                table_set(t, r, k, TC_NA, NAN, "NA (baseline %s)", bc->status);
            else
                table_set(t, r, k, TC_NA, NAN, "NA (no Keras 3 result)");
            k++;
        }
    }
}

static void build_reference(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    if (!x->ref) {
        table_init(t, 0);
        return;
    }
    int k3 = g->nkeras3 > 0;
    grid_table(t, g, NULL, -1, k3);
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
    if (strbuf_error(&cap) && !t->err)
        t->err = strbuf_error(&cap);
    t->caption = strbuf_detach(&cap);
    for (size_t row = 0; row < g->nrows; row++) {
        size_t r = table_row(t);
        row_heads(t, g, r, row);
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
                table_set(t, r, 2 + c, TC_NA, NAN, "%s / %s (%s)", m, pub, why);
            else if (isfinite(q))
                table_set(t, r, 2 + c, 0, q, "%s / %s (%s\xC3\x97)", m, pub, ratio);
            else
                table_set(t, r, 2 + c, TC_NA, NAN, "%s / %s", m, pub);
        }
    }
}

static void build_throughput(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    int k3 = grid_keras3_best_shown(g);
    grid_table(t, g, "Unit", -1, k3);
    t->caption = xprintf("Throughput at the mean ms/step, higher is better: samples/s for fit and predict, "
                         "tokens/s for generate (batch x %d new tokens, an upper bound where the method "
                         "stops at EOS), images/s for StableDiffusion (predict: %d denoising steps an image).",
                         THROUGHPUT_NEW_TOKENS, THROUGHPUT_SD_STEPS);
    for (size_t row = 0; row < g->nrows; row++) {
        const struct grid_row *gr = &g->rows[row];
        size_t r = table_row(t);
        row_heads(t, g, r, row);
        struct throughput tp;
        for (size_t c = 0; c <= g->ncols; c++) {
            if (c == g->ncols && !k3)
                break;
            int col = c < g->ncols ? (int)c : gr->k3_col;
            const struct grid_cell *gc = col >= 0 ? grid_at(g, row, (size_t)col) : NULL;
            throughput_of(&tp, gr->model, gr->task, gr->batch, gc ? gc->cell : NULL);
            if (c == 0)
                table_set(t, r, 2, 0, NAN, "%s", tp.unit);
            double rate = gc && gc->ok ? throughput_rate(&tp, gc->st.mean) : NAN;
            char txt[64];
            throughput_fmt(rate, txt, sizeof(txt));
            /* bold as in the summary: the fastest, or a tie with it inside the noise band */
            const struct grid_cell *bc = gr->best_col >= 0 ? grid_at(g, row, (size_t)gr->best_col) : NULL;
            int best = col >= 0 && (col == gr->best_col || (x->answer && bc && gc->ok &&
                                                            gc->st.mean < bc->st.mean * (1 + ANSWER_NOISE)));
            if (isfinite(rate))
                table_set(t, r, 3 + c, best ? TC_BOLD : 0, rate, "%s", txt);
            else
                table_set(t, r, 3 + c, TC_NA, NAN, "%s", c < g->ncols ? gc->na : "NA (no Keras 3 result)");
        }
    }
}

/* Statistics columns, in order; STAT_METHOD, STAT_REPEAT and STAT_WARMUP
 * are left out when they would say nothing or repeat what another column
 * says (every cell ran one method; every cell ran once; every cell's
 * warm-up is its one first call). */
enum {
    STAT_MODEL, STAT_BATCH, STAT_BACKEND, STAT_METHOD, STAT_REPEAT, STAT_STATUS, STAT_N, STAT_MEAN, STAT_MEDIAN, STAT_P5,
    STAT_P95, STAT_STDEV, STAT_CI, STAT_CV, STAT_OUTLIERS, STAT_COMPILE, STAT_WARMUP, STAT_WARNINGS, STAT_NCOLS
};

static void build_statistics(const struct rctx *x, struct table *t)
{
    static const char *const head[STAT_NCOLS] = {"Model (task)", "Batch",    "Backend",  "Method",
                                                 "Repeat",       "Status",   "n",
                                                 "Mean",         "Median",   "p5",
                                                 "p95",          "Std dev",  "95% CI of the mean",
                                                 "CV",           "Outliers", "Compile (first call) ms",
                                                 "Warm-up ms",   "Warnings"};
    static const unsigned char numeric[STAT_NCOLS] = {0, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0};
    int repeats = 0, warmups = 0, methods = 0, warm = 0;
    const char *method0 = x->rd->ncells ? x->rd->cells[0].cell.method : NULL;
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        repeats |= c->cell.repeat > 1;
        warmups |= c->result.nwarmup > 1;
        warm |= c->result.nwarmup > 0 && result_warm_cache(&c->result);
        methods |= (c->cell.method == NULL) != (method0 == NULL) ||
                   (c->cell.method && method0 && strcmp(c->cell.method, method0) != 0);
    }
    int col[STAT_NCOLS]; /* the table column of each, -1 when left out */
    size_t n = 0;
    for (int c = 0; c < STAT_NCOLS; c++)
        col[c] = (c == STAT_METHOD && !methods) || (c == STAT_REPEAT && !repeats) || (c == STAT_WARMUP && !warmups)
                     ? -1
                     : (int)n++;
    table_init(t, n);
    t->caption = xprintf("Every cell of the run, ms. Mean is the published metric; CV = standard deviation / "
                         "mean.%s%s%s",
                         warmups ? "" : " Each cell's warm-up was its one first call, so the compile column is "
                                        "also its warm-up time.",
                         repeats ? "" : " Each cell ran once (repeat 1).",
                         warm ? " A process marked \"warm cache\" started with its A/B arm's compile cache holding "
                                "what the arm's first process of that cell compiled: its first call is not compile "
                                "time, which is the cold process's." : "");
    for (int c = 0; c < STAT_NCOLS; c++)
        if (col[c] >= 0)
            table_head(t, (size_t)col[c], head[c], numeric[c]);
#define SET(c, ...)                                                                                             \
    do {                                                                                                        \
        if (col[c] >= 0)                                                                                        \
            table_set(t, r, (size_t)col[c], __VA_ARGS__);                                                       \
    } while (0)
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *cell = &x->rd->cells[i];
        const struct stats *st = &cell->st;
        int ok = cell->result.status == STATUS_OK && st->n > 0;
        size_t r = table_row(t);
        int row = -1;
        for (size_t k = 0; k < x->g->nrows && row < 0; k++)
            if (x->g->rows[k].batch == cell->cell.batch && !strcmp(x->g->rows[k].model, cell->cell.model) &&
                !strcmp(x->g->rows[k].task, cell->cell.task))
                row = (int)k;
        char v[8][64], warn[200];
        double nums[8] = {st->mean, st->median, st->p5, st->p95, st->stdev, NAN, NAN, NAN};
        for (int k = 0; k < 5; k++)
            rctx_fmt_ms(ok ? nums[k] : NAN, v[k], sizeof(v[k]));
        grid_warnings(st, warn, sizeof(warn));
        double compile = result_compile_ms(&cell->result), wsum = 0;
        bool warm_first = cell->result.nwarmup > 0 && result_warm_cache(&cell->result);
        for (size_t k = 0; k < cell->result.nwarmup; k++)
            wsum += (double)cell->result.warmup_ns[k] / 1e6;
        const char *status = cell->result.status ? status_name(cell->result.status) : "not run";
        SET(STAT_MODEL, 0, NAN, "%s", row >= 0 ? x->g->rows[row].label : cell->cell.model);
        SET(STAT_BATCH, 0, cell->cell.batch, "%d", cell->cell.batch);
        SET(STAT_BACKEND, 0, NAN, "%s", rctx_backend_display(cell->cell.backend));
        SET(STAT_METHOD, 0, NAN, "%s", cell->cell.method ? cell->cell.method : "-");
        SET(STAT_REPEAT, 0, cell->cell.repeat, "%d", cell->cell.repeat);
        SET(STAT_STATUS, ok ? 0 : TC_NA, NAN, "%s", status);
        char anchor[300];
        table_log_anchor(cell->cell.key, anchor, sizeof(anchor));
        table_href(t, r, 0, anchor);
        if (!ok) {
            for (int c = STAT_N; c < STAT_WARNINGS; c++)
                SET(c, TC_NA, NAN, "%s", c == STAT_N ? "0" : "NA");
            continue;
        }
        char lo[64], hi[64], cv[64], comp[64], wu[64];
        rctx_fmt_ms(st->ci_lo, lo, sizeof(lo));
        rctx_fmt_ms(st->ci_hi, hi, sizeof(hi));
        chart_format_number(st->cv * 100, 1, cv, sizeof(cv));
        rctx_fmt_ms(warm_first ? (double)cell->result.warmup_ns[0] / 1e6 : compile, comp, sizeof(comp));
        double wsum_ms = cell->result.nwarmup ? wsum : NAN;
        rctx_fmt_ms(wsum_ms, wu, sizeof(wu));
        SET(STAT_N, 0, (double)st->n, "%zu", st->n);
        SET(STAT_MEAN, 0, st->mean, "%s", v[0]);
        SET(STAT_MEDIAN, 0, st->median, "%s", v[1]);
        SET(STAT_P5, 0, st->p5, "%s", v[2]);
        SET(STAT_P95, 0, st->p95, "%s", v[3]);
        SET(STAT_STDEV, 0, st->stdev, "%s", v[4]);
        SET(STAT_CI, 0, NAN, "%s - %s", lo, hi);
        SET(STAT_CV, st->cv > STATS_NOISY_CV ? TC_WARN : 0, st->cv, "%s%%", cv);
        SET(STAT_OUTLIERS, 0, (double)st->outliers, "%zu", st->outliers);
        if (warm_first) /* never compile time: said, and no number a sum or chart could take */
            SET(STAT_COMPILE, TC_NA, NAN, "warm cache (first call %s)", comp);
        else
            SET(STAT_COMPILE, cell->result.nwarmup ? 0 : TC_NA, compile, "%s", comp);
        SET(STAT_WARMUP, cell->result.nwarmup ? 0 : TC_NA, wsum_ms, "%s", wu);
        SET(STAT_WARNINGS, warn[0] ? TC_WARN : 0, NAN, "%s", warn);
    }
#undef SET
}

static void build_facts(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    table_init(t, 1 + g->ncols);
    table_head(t, 0, "Fact", 0);
    for (size_t c = 0; c < g->ncols; c++)
        table_head(t, 1 + c, g->cols[c].display, 0);
    for (size_t f = 0; f < x->nfacts; f++) {
        size_t r = table_row(t);
        table_set(t, r, 0, TC_MONO, NAN, "%s", x->fact_names[f]);
        for (size_t c = 0; c < g->ncols; c++) {
            const char *v = x->fact_values[f * g->ncols + c];
            table_set(t, r, 1 + c, v[0] ? 0 : TC_NA, NAN, "%s", v[0] ? v : "-");
        }
    }
}

/* Two text columns, one row a pair. */
static void kv_table(struct table *t, const char *key, const char *value)
{
    table_init(t, 2);
    table_head(t, 0, key, 0);
    table_head(t, 1, value, 0);
}

static void build_kv(struct table *t, const struct kvlist *kv)
{
    kv_table(t, "Key", "Value");
    for (size_t i = 0; i < kv->n; i++) {
        size_t r = table_row(t);
        const char *key = kv->items[i].key, *v = kv->items[i].value;
        char mem[64];
        int bytes = util_fmt_bytes(mem, sizeof(mem), key, v);
        table_set(t, r, 0, TC_MONO, NAN, "%s", key);
        table_set(t, r, 1, 0, NAN, "%s", bytes ? mem : v ? v : "");
    }
}

static void build_py_env(const struct rctx *x, struct table *t)
{
    table_init(t, 1 + x->nenvs);
    table_head(t, 0, "Key", 0);
    t->caption = xstrdup("Versions and settings each backend recorded (its first cell that recorded any): "
                         "backends sharing a Python environment can still differ, e.g. in KERAS_BACKEND.");
    for (size_t e = 0; e < x->nenvs; e++)
        table_head(t, 1 + e, x->env_names[e], 0);
    for (size_t k = 0; k < x->nenv_keys; k++) {
        size_t r = table_row(t);
        table_set(t, r, 0, TC_MONO, NAN, "%s", x->env_keys[k]);
        for (size_t e = 0; e < x->nenvs; e++) {
            const char *v = x->env_values[k * x->nenvs + e];
            table_set(t, r, 1 + e, v ? TC_MONO : TC_NA, NAN, "%s", v ? v : "-");
        }
    }
}

static void build_failures(const struct rctx *x, struct table *t)
{
    table_init(t, 5);
    table_head(t, 0, "Cell", 0);
    table_head(t, 1, "Status", 0);
    table_head(t, 2, "What went wrong (the exception's line; the whole text is under Cell logs)", 0);
    table_head(t, 3, "Last frames (innermost last)", 0);
    table_head(t, 4, "Log", 0);
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        if (c->result.status == STATUS_OK)
            continue;
        const char *line;
        size_t len = grid_detail_line(c->result.detail, &line);
        if (len > 300)
            len = 300;
        size_t r = table_row(t);
        char anchor[300];
        table_log_anchor(c->cell.key, anchor, sizeof(anchor));
        table_set(t, r, 0, TC_MONO, NAN, "%s", c->cell.key);
        table_href(t, r, 0, anchor);
        table_set(t, r, 1, TC_NA, NAN, "%s", c->result.status ? status_name(c->result.status) : "not run");
        if (len)
            table_set(t, r, 2, 0, NAN, "%.*s", (int)len, line);
        else if (c->result.status == STATUS_NONE) /* never an empty cell: say what is known */
            table_set(t, r, 2, 0, NAN, "no result recorded: not run, or still running when the report was made "
                                        "(benchgen run --resume runs it)");
        else
            table_set(t, r, 2, 0, NAN, "no detail recorded; see the cell's log");
        char frames[400];
        grid_detail_frames(c->result.detail, 3, frames, sizeof(frames));
        if (frames[0])
            table_set(t, r, 3, TC_MONO, NAN, "%s", frames);
        else
            table_set(t, r, 3, TC_NA, NAN, "no traceback");
        if (c->log_path && c->log_path[0])
            table_set(t, r, 4, TC_MONO, NAN, "%s", c->log_path);
        else
            table_set(t, r, 4, TC_NA, NAN, "none kept");
    }
}

static void build_meta(const struct rctx *x, struct table *t)
{
    const struct rundata *rd = x->rd;
    size_t ok = 0;
    for (size_t i = 0; i < rd->ncells; i++)
        ok += rd->cells[i].result.status == STATUS_OK;
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
    kv_table(t, "Field", "Value");
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        size_t r = table_row(t);
        table_set(t, r, 0, 0, NAN, "%s", fields[i][0]);
        if (i == 7) {
            /* the cells' own precisions: a spec may set one per row (the LLM rows run in bfloat16) */
            char prec[160] = "";
            size_t np = 0;
            for (size_t k = 0; k < rd->ncells; k++) {
                const char *pr = rd->cells[k].cell.precision;
                if (pr && pr[0] && !strstr(prec, pr) && strlen(prec) + strlen(pr) + 3 < sizeof(prec))
                    snprintf(prec + strlen(prec), sizeof(prec) - strlen(prec), "%s%s", np++ ? ", " : "", pr);
            }
            table_set(t, r, 1, 0, NAN, "%s / %s%s, seed %llu", rd->size, np > 1 ? "per row: " : "",
                      np ? prec : rd->precision, (unsigned long long)rd->seed);
        }
        else if (i == 9)
            table_set(t, r, 1, TC_MONO, NAN, "%s, commit %s%s", rd->benchgen_version, rd->git_commit,
                      rd->git_dirty ? " (uncommitted changes)" : "");
        else
            table_set(t, r, 1, i == 6 ? TC_MONO : 0, NAN, "%s", fields[i][1] ? fields[i][1] : "");
    }
}

static void build_wins(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    const struct answer *a = x->answer;
    static const char *const head[] = {"Backend", "Fastest", "Tied for fastest", "Rows measured"};
    table_init(t, a ? 4 : 0);
    if (!a)
        return;
    for (size_t c = 0; c < 4; c++)
        table_head(t, c, head[c], c > 0);
    t->caption = xprintf("Rows each backend wins; a lead under %.0f%% is a tie, counted for every backend in it.",
                         ANSWER_NOISE * 100);
    for (size_t c = 0; c < g->ncols; c++) {
        size_t r = table_row(t);
        table_set(t, r, 0, 0, NAN, "%s", g->cols[c].display);
        table_set(t, r, 1, 0, (double)a->wins[c], "%zu", a->wins[c]);
        table_set(t, r, 2, 0, (double)a->ties[c], "%zu", a->ties[c]);
        table_set(t, r, 3, 0, (double)a->measured[c], "%zu of %zu", a->measured[c], g->nrows);
    }
}

static void build_geomean(const struct rctx *x, struct table *t)
{
    const struct grid *g = x->g;
    const struct answer *a = x->answer;
    static const char *const head[] = {"Backend", "Rows", "Speed-up (geometric mean)", "95% interval"};
    table_init(t, a && x->baseline >= 0 ? 4 : 0);
    if (!a || x->baseline < 0)
        return;
    for (size_t c = 0; c < 4; c++)
        table_head(t, c, head[c], c > 0);
    t->caption = xprintf("Geometric mean over the rows both have of %s ms/step / backend ms/step (above 1: "
                         "faster than %s); the interval resamples the rows.",
                         g->cols[x->baseline].display, g->cols[x->baseline].display);
    for (size_t i = 0; i < a->ngeo; i++) {
        const struct answer_geo *ge = &a->geo[i];
        size_t r = table_row(t);
        table_set(t, r, 0, 0, NAN, "%s", g->cols[ge->col].display);
        table_set(t, r, 1, 0, (double)ge->n, "%zu", ge->n);
        if (isfinite(ge->geo))
            table_set(t, r, 2, 0, ge->geo, "%.2f\xC3\x97", ge->geo);
        else
            table_set(t, r, 2, TC_NA, NAN, "NA (no row with both)");
        if (isfinite(ge->lo))
            table_set(t, r, 3, 0, NAN, "%.2f\xC3\x97 - %.2f\xC3\x97", ge->lo, ge->hi);
        else
            table_set(t, r, 3, TC_NA, NAN, "NA (fewer than 3 rows)");
    }
}

/* Distinct values of fact `name` over the row's cells, " / "-joined ("" when none). */
static void row_fact(const struct rctx *x, size_t row, const char *name, struct strbuf *sb)
{
    const struct grid_row *gr = &x->g->rows[row];
    size_t mark = sb->len;
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        if (c->cell.batch != gr->batch || strcmp(c->cell.model, gr->model) || strcmp(c->cell.task, gr->task))
            continue;
        const char *v = strcmp(name, "precision") == 0 ? c->cell.precision : kvlist_get(&c->result.facts, name);
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
            strbuf_printf(sb, "%s%s", sb->len > mark ? " / " : "", v);
    }
}

/* Cell (r, c) from sb's text, "-" (NA) when empty; sb is emptied for the next. */
static void set_joined(struct table *t, size_t r, size_t c, unsigned flags, struct strbuf *sb)
{
    if (strbuf_error(sb) && !t->err)
        t->err = strbuf_error(sb);
    table_set(t, r, c, sb->len ? flags : TC_NA, NAN, "%s", sb->len ? sb->buf : "-");
    strbuf_free(sb);
}

static void build_config(const struct rctx *x, struct table *t)
{
    static const char *const head[] = {"Model (task)", "Batch", "Size", "Precision", "Parameters",
                                       "Trainable", "Shapes", "Timed steps", "Warm-up steps", "Repeats"};
    const struct grid *g = x->g;
    table_init(t, 10);
    for (size_t c = 0; c < 10; c++)
        table_head(t, c, head[c], c == 1 || c >= 7);
    t->caption = xstrdup("What each row measured, from its cells (values that differ between backends are "
                         "joined with /; - : not recorded).");
    struct strbuf sb = {0};
    for (size_t row = 0; row < g->nrows; row++) {
        size_t r = table_row(t);
        row_heads(t, g, r, row);
        const struct rd_cell *c = NULL;
        size_t reps = 0;
        for (size_t k = 0; k < g->ncols; k++) {
            const struct grid_cell *gc = grid_at(g, row, k);
            c = c ? c : gc->cell;
            reps = gc->nrepeats > reps ? gc->nrepeats : reps;
        }
        static const char *const facts[] = {"size", "precision", "parameters", "parameters.trainable"};
        for (size_t f = 0; f < 4; f++) {
            if (f == 0 && c)
                strbuf_puts(&sb, c->cell.size);
            else
                row_fact(x, row, facts[f], &sb);
            set_joined(t, r, 2 + f, 0, &sb);
        }
        /* shapes: every fact that names one */
        for (size_t k = 0; c && k < c->result.facts.n; k++) {
            const char *name = c->result.facts.items[k].key;
            if (strstr(name, "shape") || strstr(name, "seq") || strstr(name, "tokens") || strstr(name, "image"))
                strbuf_printf(&sb, "%s%s %s", sb.len ? "; " : "", name, c->result.facts.items[k].value);
        }
        set_joined(t, r, 6, TC_MONO, &sb);
        if (c) {
            table_set(t, r, 7, 0, c->cell.steps, "%d", c->cell.steps);
            table_set(t, r, 8, 0, c->cell.warmup, "%d", c->cell.warmup);
        } else {
            table_set(t, r, 7, TC_NA, NAN, "-");
            table_set(t, r, 8, TC_NA, NAN, "-");
        }
        table_set(t, r, 9, 0, (double)reps, "%zu", reps);
    }
    strbuf_free(&sb);
}

static void build_run_env(const struct rctx *x, struct table *t) { build_kv(t, &x->rd->env); }

int tables_build(const struct rctx *x, enum table_kind kind, struct table *t)
{
    static void (*const build[])(const struct rctx *, struct table *) = {
        [TABLE_SUMMARY] = build_summary,       [TABLE_DETAIL] = build_detail,
        [TABLE_SPEEDUP] = build_speedup,       [TABLE_REFERENCE] = build_reference,
        [TABLE_STATISTICS] = build_statistics, [TABLE_FACTS] = build_facts,
        [TABLE_RUN_ENV] = build_run_env,       [TABLE_PY_ENV] = build_py_env,
        [TABLE_FAILURES] = build_failures,     [TABLE_META] = build_meta,
        [TABLE_WINS] = build_wins,             [TABLE_GEOMEAN] = build_geomean,
        [TABLE_CONFIG] = build_config,         [TABLE_THROUGHPUT] = build_throughput,
    };
    if ((size_t)kind < sizeof(build) / sizeof(build[0]) && build[kind])
        build[kind](x, t);
    else
        table_init(t, 0);
    int err = table_finish(t);
    if (err < 0)
        table_free(t);
    return err;
}
