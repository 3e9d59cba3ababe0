/*
 * figures.c - which charts a report has, their data, and rendering (see figures.h).
 *
 * Each figure's data lives in one arena (every allocation made for it is
 * freed together), so a figure is a draw function plus a pointer, whatever
 * its kind.
 */
#include "report/figures.h"
#include "charts/bars.h"
#include "charts/distribution.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/xalloc.h"
#include "charts/heatmap.h"
#include "charts/scatter.h"
#include "report/roofline.h"
#include "charts/series.h"
#include "plan/catalog.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIG_W 760.0
#define MS_FIG_W FIG_W /* two panels a row: printed at full size, its text never shrinks (was 1000 pt, three a row, 5.4 pt in the PDF) */
/* PNG pixels per point: 1,140 px wide summary figures, sharp on a release
 * page; the per-row step-time figures, one per row and hundreds in a large
 * run, at 950 px, which keeps a 1,000-cell report well inside its time */
#define FIG_PNG_SCALE 1.5
#define CELLS_PNG_SCALE 1.25
#define PANEL_ROWS 12 /* rows per ms/step figure (the published table fits one) */
#define BAR_ROWS 12   /* rows per speedup figure */
#define HEAT_ROWS 40  /* rows per heatmap */
#define HEAD_H 44.0   /* title + subtitle of composite figures */
#define CELL_OK_H 100.0
#define CELL_NA_H 20.0

/* The figures that are one chart each (figure.h). */
FIGURE_DATA(barfig, struct bars, b, bars_draw)
FIGURE_DATA(heatfig, struct heatmap, h, heatmap_draw)
FIGURE_DATA(scatterfig, struct scatter, s, scatter_draw)

/* Takes data (an arena), name and title (malloc'd) over (figure.h). */
static int add_figure(struct rctx *x, int section, double w, double h, chart_draw_fn draw, void *data,
                      char *name, char *title, const char *caption)
{
    return figures_add_arena(&x->figs, &x->nfigs, section, w, h,
                             section == FIG_CELLS ? CELLS_PNG_SCALE : FIG_PNG_SCALE, draw, data, name, title,
                             caption);
}

/* stem, or "stem-<k+1>" when the figure is one of several; takes stem over. */
static char *chunk_name(char *stem, size_t k, size_t nchunks)
{
    if (nchunks < 2)
        return stem;
    char *name = xprintf("%s-%zu", stem, k + 1);
    free(stem);
    return name;
}

static void chunk_suffix(char *buf, size_t n, size_t first, size_t count, size_t total)
{
    if (count == total)
        buf[0] = '\0';
    else
        snprintf(buf, n, " (rows %zu-%zu of %zu)", first + 1, first + count, total);
}

/* ---- composite: title + grid of bar panels -------------------------------- */

/* A composite figure's title and subtitle, at the top of r (HEAD_H high):
 * the charts' own heading (charts/chart.h), 40 pt, and a 4 pt gap. */
static void draw_head(struct chart *c, struct chart_rect r, const char *title, const char *subtitle)
{
    chart_heading(c, r, &(struct chart_heading){CHART_HEADING_FIGURE, title, subtitle, NULL, NULL});
}

struct panels {
    struct figure_arena a;
    const char *title, *subtitle;
    size_t n, cols;
    double cell_h;
    struct bars *bars;
};

static int panels_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct panels *p = data;
    draw_head(c, r, p->title, p->subtitle);
    double cw = r.w / (double)p->cols;
    for (size_t i = 0; i < p->n; i++) {
        struct chart_rect cell = {r.x + cw * (double)(i % p->cols),
                                  r.y + HEAD_H + p->cell_h * (double)(i / p->cols), cw, p->cell_h};
        int err = bars_draw(c, cell, &p->bars[i]);
        if (err < 0)
            return err;
    }
    return 0;
}

static int build_ms_per_step(struct rctx *x)
{
    const struct grid *g = x->g;
    size_t nchunks = (g->nrows + PANEL_ROWS - 1) / PANEL_ROWS;
    for (size_t k = 0; k < nchunks; k++) {
        size_t first = k * PANEL_ROWS, count = g->nrows - first < PANEL_ROWS ? g->nrows - first : PANEL_ROWS;
        struct panels *p = figure_arena_new(sizeof(*p));
        struct figure_arena *a = &p->a;
        char suffix[64];
        chunk_suffix(suffix, sizeof(suffix), first, count, g->nrows);
        p->title = figure_arena_printf(a, "ms/step by backend%s", suffix);
        p->subtitle =
            "Mean of the timed steps (the published metric), lower is better; whiskers: 95% bootstrap "
            "CI of the mean; outlined: the row's fastest.";
        p->n = count;
        p->cols = count > 1 ? 2 : count;
        p->bars = figure_arena_alloc(a, count * sizeof(*p->bars));
        const char **ser = figure_arena_alloc(a, g->ncols * sizeof(*ser));
        unsigned *color = figure_arena_alloc(a, g->ncols * sizeof(*color));
        for (size_t c = 0; c < g->ncols; c++) {
            ser[c] = g->cols[c].display;
            color[c] = g->cols[c].color;
        }
        double cell_h = 0;
        for (size_t i = 0; i < count && !a->failed; i++) {
            size_t r = first + i;
            double *v = figure_arena_alloc(a, g->ncols * sizeof(double));
            double *lo = figure_arena_alloc(a, g->ncols * sizeof(double));
            double *hi = figure_arena_alloc(a, g->ncols * sizeof(double));
            const char **na = figure_arena_alloc(a, g->ncols * sizeof(*na));
            unsigned char *mark = figure_arena_alloc(a, g->ncols);
            if (!v || !lo || !hi || !na || !mark)
                break;
            for (size_t c = 0; c < g->ncols; c++) {
                const struct grid_cell *gc = grid_at(g, r, c);
                v[c] = gc->ok ? gc->st.mean : NAN;
                lo[c] = gc->ok ? gc->st.ci_lo : NAN;
                hi[c] = gc->ok ? gc->st.ci_hi : NAN;
                na[c] = gc->ok ? NULL : gc->na;
                mark[c] = (int)c == g->rows[r].best_col;
            }
            p->bars[i] = (struct bars){.title = g->rows[r].title,
                                       .axis_label = "ms/step",
                                       .ncat = 1,
                                       .nser = g->ncols,
                                       .ser = ser,
                                       .color = color,
                                       .v = v,
                                       .lo = lo,
                                       .hi = hi,
                                       .na = na,
                                       .mark = mark,
                                       .decimals = 2,
                                       .bar_h = 11};
            double h = bars_height(&p->bars[i], MS_FIG_W / (double)p->cols);
            if (h > cell_h)
                cell_h = h;
        }
        p->cell_h = cell_h;
        double height = HEAD_H + cell_h * (double)((count + p->cols - 1) / p->cols) + 8;
        int err = add_figure(x, FIG_SUMMARY, MS_FIG_W, height, panels_draw, p,
                             chunk_name(xstrdup("ms-per-step"), k, nchunks), xprintf("ms/step by backend%s", suffix),
                             "Mean ms/step of every cell, per row, with the 95% confidence interval of "
                             "the mean; NA cells say why they have no number.");
        if (err < 0)
            return err;
    }
    return 0;
}

/* ---- speedup ---------------------------------------------------------------- */

/* Rows whose baseline cell has a number; the others once, as a footnote. */
static size_t speedup_rows(const struct rctx *x, size_t *rows, struct strbuf *missing)
{
    const struct grid *g = x->g;
    size_t n = 0, nmiss = 0;
    for (size_t r = 0; r < g->nrows; r++) {
        const struct grid_cell *bc = grid_at(g, r, (size_t)x->baseline);
        if (bc->ok) {
            rows[n++] = r;
            continue;
        }
        strbuf_printf(missing, "%s%s, b%d (%s)", nmiss++ ? "; " : "", g->rows[r].label, g->rows[r].batch,
                      bc->status);
    }
    return n;
}

static int build_speedup(struct rctx *x)
{
    const struct grid *g = x->g;
    if (x->baseline < 0)
        return 0;
    const struct grid_col *base = &g->cols[x->baseline];
    int show_k3 = grid_keras3_best_shown(g);
    size_t nser = g->ncols - 1 + (size_t)show_k3;
    if (nser == 0)
        return 0;
    size_t *rows = xcalloc(g->nrows + 1, sizeof(*rows));
    struct strbuf missing = {0};
    strbuf_append(&missing, "", 0);
    size_t nrows = speedup_rows(x, rows, &missing), nchunks = (nrows + BAR_ROWS - 1) / BAR_ROWS;
    char *note = missing.len ? xprintf("Not shown, no %s result: %s.", base->display, missing.buf)
                             : xstrdup("");
    strbuf_free(&missing);
    int err = 0;
    for (size_t k = 0; k < nchunks && err == 0; k++) {
        size_t first = k * BAR_ROWS, count = nrows - first < BAR_ROWS ? nrows - first : BAR_ROWS;
        struct barfig *f = figure_arena_new(sizeof(*f));
        struct figure_arena *a = &f->a;
        const char **cat = figure_arena_alloc(a, count * sizeof(*cat));
        const char **ser = figure_arena_alloc(a, nser * sizeof(*ser));
        unsigned *color = figure_arena_alloc(a, nser * sizeof(*color));
        double *v = figure_arena_alloc(a, count * nser * sizeof(double));
        const char **na = figure_arena_alloc(a, count * nser * sizeof(*na));
        char suffix[64];
        chunk_suffix(suffix, sizeof(suffix), first, count, nrows);
        size_t s = 0;
        for (size_t c = 0; c < g->ncols; c++) {
            if ((int)c == x->baseline)
                continue;
            ser[s] = g->cols[c].display;
            color[s++] = g->cols[c].color;
        }
        if (show_k3) {
            ser[s] = "Keras 3 (best)";
            color[s++] = GRID_KERAS3_BEST_COLOR;
        }
        for (size_t i = 0; i < count; i++) {
            size_t r = rows[first + i];
            cat[i] = figure_arena_printf(a, "%s, b%d", g->rows[r].label, g->rows[r].batch);
            const struct grid_cell *bc = grid_at(g, r, (size_t)x->baseline);
            s = 0;
            for (size_t c = 0; c < g->ncols; c++) {
                if ((int)c == x->baseline)
                    continue;
                const struct grid_cell *gc = grid_at(g, r, c);
                v[i * nser + s] = grid_speedup(bc->st.mean, gc->st.mean);
                na[i * nser + s] = !gc->ok ? gc->na : NULL;
                s++;
            }
            if (show_k3) {
                double k3 = grid_keras3_best(g, r);
                v[i * nser + s] = grid_speedup(bc->st.mean, k3);
                na[i * nser + s] = isnan(k3) ? "NA (no Keras 3 result)" : NULL;
            }
        }
        const char *bars_title =
            figure_arena_printf(a, "Throughput speedup over %s%s", base->display, suffix);
        f->b = (struct bars){.title = bars_title,
                             .subtitle = "(baseline ms/step / ms/step - 1) x 100%: +100% is twice as fast, "
                                         "-50% half as fast; the axis ends at -100%.",
                             .axis_label = figure_arena_printf(a, "speedup over %s (%%)", base->display),
                             .ncat = count,
                             .nser = nser,
                             .cat = cat,
                             .ser = ser,
                             .color = color,
                             .v = v,
                             .na = na,
                             .percent = 1,
                             .decimals = 1,
                             .bar_h = 9,
                             .note = k + 1 == nchunks && note[0] ? figure_arena_printf(a, "%s", note) : NULL};
        double h = bars_height(&f->b, FIG_W);
        err = add_figure(x, FIG_SPEEDUP, FIG_W, h, barfig_draw, f,
                         chunk_name(xprintf("speedup-vs-%s", base->backend), k, nchunks),
                         xprintf("Throughput speedup over %s%s", base->display, suffix),
                         show_k3 ? "Throughput speedup of each backend, and of the best Keras 3 "
                                   "backend, over the baseline, per row; rows without a baseline "
                                   "result are listed under the chart."
                                 : "Throughput speedup of each backend over the baseline, per row; "
                                   "rows without a baseline result are listed under the chart.");
    }
    free(rows);
    free(note);
    return err;
}

/* Keras 3 (best) over each non-Keras-3 backend: the published figures. */
static int build_keras3_figures(struct rctx *x)
{
    const struct grid *g = x->g;
    int err = 0;
    for (size_t c = 0; g->nkeras3 && c < g->ncols && !err; c++) {
        /* with one Keras 3 backend, its speedup over the baseline is already a
         * series of the speedup chart */
        if (g->cols[c].keras3 || (!grid_keras3_best_shown(g) && (int)c == x->baseline))
            continue;
        size_t nchunks = (g->nrows + BAR_ROWS * 2 - 1) / (BAR_ROWS * 2);
        for (size_t k = 0; k < nchunks && !err; k++) {
            size_t per = BAR_ROWS * 2, first = k * per,
                   count = g->nrows - first < per ? g->nrows - first : per;
            struct barfig *f = figure_arena_new(sizeof(*f));
            struct figure_arena *a = &f->a;
            const char **cat = figure_arena_alloc(a, count * sizeof(*cat));
            double *v = figure_arena_alloc(a, count * sizeof(double));
            const char **na = figure_arena_alloc(a, count * sizeof(*na));
            unsigned *color = figure_arena_alloc(a, sizeof(unsigned));
            static const char *const ser[] = {"Keras 3 (best)"};
            char suffix[64];
            chunk_suffix(suffix, sizeof(suffix), first, count, g->nrows);
            color[0] = GRID_KERAS3_BEST_COLOR;
            for (size_t i = 0; i < count; i++) {
                size_t r = first + i;
                const struct grid_cell *gc = grid_at(g, r, c);
                double k3 = grid_keras3_best(g, r);
                cat[i] = figure_arena_printf(a, "%s, b%d", g->rows[r].label, g->rows[r].batch);
                v[i] = grid_speedup(gc->st.mean, k3);
                na[i] = !gc->ok ? gc->na : isnan(k3) ? "NA (no Keras 3 result)" : NULL;
            }
            f->b = (struct bars){
                .title = figure_arena_printf(a, "Keras 3 speedup over %s%s", g->cols[c].display, suffix),
                .subtitle = "Throughput increase of the best Keras 3 backend per row, as in the keras.io "
                            "figures: (ms/step of the reference / ms/step of Keras 3 (best) - 1) x 100%.",
                .axis_label = "throughput speedup (%)",
                .ncat = count,
                .nser = 1,
                .cat = cat,
                .ser = ser,
                .color = color,
                .v = v,
                .na = na,
                .percent = 1,
                .decimals = 1,
                .bar_h = 13};
            err = add_figure(x, FIG_SPEEDUP, FIG_W, bars_height(&f->b, FIG_W), barfig_draw, f,
                             chunk_name(xprintf("keras3-best-vs-%s", g->cols[c].backend), k, nchunks),
                             xprintf("Keras 3 (best) speedup over %s%s", g->cols[c].display, suffix),
                             "Speedup of the fastest Keras 3 backend of each row over this backend, "
                             "the quantity the published figures plot.");
        }
    }
    return err;
}

/* ---- heatmap ---------------------------------------------------------------- */

static int build_heatmap(struct rctx *x)
{
    const struct grid *g = x->g;
    size_t nchunks = (g->nrows + HEAT_ROWS - 1) / HEAT_ROWS;
    const char **cols = NULL;
    for (size_t k = 0; k < nchunks; k++) {
        size_t first = k * HEAT_ROWS, count = g->nrows - first < HEAT_ROWS ? g->nrows - first : HEAT_ROWS;
        struct heatfig *f = figure_arena_new(sizeof(*f));
        struct figure_arena *a = &f->a;
        size_t n = count * g->ncols;
        const char **rows = figure_arena_alloc(a, count * sizeof(*rows));
        double *ratio = figure_arena_alloc(a, n * sizeof(double));
        const char **text = figure_arena_alloc(a, n * sizeof(*text));
        const char **na = figure_arena_alloc(a, n * sizeof(*na));
        cols = figure_arena_alloc(a, g->ncols * sizeof(*cols));
        char suffix[64];
        chunk_suffix(suffix, sizeof(suffix), first, count, g->nrows);
        for (size_t c = 0; c < g->ncols; c++)
            cols[c] = g->cols[c].display;
        for (size_t i = 0; i < count; i++) {
            size_t r = first + i;
            rows[i] = figure_arena_printf(a, "%s, b%d", g->rows[r].label, g->rows[r].batch);
            int best = g->rows[r].best_col;
            for (size_t c = 0; c < g->ncols; c++) {
                const struct grid_cell *gc = grid_at(g, r, c);
                size_t j = i * g->ncols + c;
                ratio[j] = gc->ok && best >= 0 ? gc->st.mean / grid_at(g, r, (size_t)best)->st.mean : NAN;
                char ms[64];
                rctx_fmt_ms(gc->st.mean, ms, sizeof(ms));
                text[j] = gc->ok ? figure_arena_printf(a, "%s ms", ms) : NULL;
                na[j] = gc->ok ? NULL : gc->na;
            }
        }
        const char *heat_title = figure_arena_printf(a, "The matrix relative to each row's best%s", suffix);
        f->h =
            (struct heatmap){.title = heat_title,
                             .subtitle = "Mean ms/step and its ratio to the fastest cell of the row (1.00x).",
                             .nrows = count,
                             .ncols = g->ncols,
                             .row_label = rows,
                             .col_label = cols,
                             .ratio = ratio,
                             .text = text,
                             .na = na};
        int err = add_figure(x, FIG_HEATMAP, FIG_W, heatmap_height(&f->h, FIG_W), heatfig_draw, f,
                             chunk_name(xstrdup("heatmap"), k, nchunks),
                             xprintf("The matrix relative to each row's best%s", suffix),
                             "Every cell's mean ms/step as a multiple of its row's fastest cell.");
        if (err < 0)
            return err;
    }
    return 0;
}

/* ---- per-row cells: distribution + series ---------------------------------- */

struct cells_item {
    int ok;
    const char *label, *na;
    struct distribution d;
    struct series s;
};

struct cellsfig {
    struct figure_arena a;
    const char *title, *subtitle;
    size_t n;
    struct cells_item *items;
};

static int cellsfig_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct cellsfig *f = data;
    draw_head(c, r, f->title, f->subtitle);
    double y = r.y + HEAD_H;
    for (size_t i = 0; i < f->n; i++) {
        const struct cells_item *it = &f->items[i];
        if (!it->ok) {
            chart_rgb(c, CHART_INK);
            double tw =
                chart_text(c, CHART_FONT_BOLD, 8.5, r.x + 14, y + CELL_NA_H / 2, 0, 0.5, 0, 0, it->label);
            chart_rgb(c, CHART_MUTED);
            chart_text(c, CHART_FONT_ITALIC, 7, r.x + 22 + tw, y + CELL_NA_H / 2, 0, 0.5, r.w - tw - 40,
                       CHART_ELLIPSIZE, it->na);
            y += CELL_NA_H;
            continue;
        }
        double split = r.w * 0.42;
        int err = distribution_draw(c, (struct chart_rect){r.x + 8, y, split - 8, CELL_OK_H}, &it->d);
        if (err == 0)
            err = series_draw(c, (struct chart_rect){r.x + split, y, r.w - split - 8, CELL_OK_H}, &it->s);
        if (err < 0)
            return err;
        chart_rgb(c, CHART_GRID);
        cairo_set_line_width(c->cr, 0.6);
        cairo_move_to(c->cr, r.x + 8, y + CELL_OK_H);
        cairo_line_to(c->cr, r.x + r.w - 8, y + CELL_OK_H);
        cairo_stroke(c->cr);
        y += CELL_OK_H;
    }
    return 0;
}

static double *ns_to_ms(struct figure_arena *a, const int64_t *ns, size_t n)
{
    double *ms = figure_arena_alloc(a, (n ? n : 1) * sizeof(double));
    for (size_t i = 0; ms && i < n; i++)
        ms[i] = (double)ns[i] / 1e6;
    return ms;
}

/* What a process's first call is: only a compiling backend compiles, and
 * not when its compile cache was warm (an A/B arm's later process). */
static const char *first_label(const struct rd_cell *c)
{
    const struct catalog_backend *b = catalog_backend_find(c->cell.backend);
    if (result_warm_cache(&c->result))
        return "first call (warm cache)";
    return b && b->compiles ? "first call (compile)" : "first call";
}

static int build_cells(struct rctx *x)
{
    const struct grid *g = x->g;
    for (size_t r = 0; r < g->nrows; r++) {
        struct cellsfig *f = figure_arena_new(sizeof(*f));
        struct figure_arena *a = &f->a;
        f->title = g->rows[r].title;
        f->subtitle =
            "Left: the timed steps (mean, median, p5/p95, shaded 95% CI of the mean). "
            "Right: every step in order, warm-up first (grey band); steps off the scale are marked on its edge.";
        f->n = g->ncols;
        f->items = figure_arena_alloc(a, g->ncols * sizeof(*f->items));
        double h = HEAD_H + 8;
        struct series **panels = figure_arena_alloc(a, (g->ncols + 1) * sizeof(*panels));
        size_t npanels = 0;
        for (size_t c = 0; f->items && panels && c < g->ncols; c++) {
            const struct grid_cell *gc = grid_at(g, r, c);
            struct cells_item *it = &f->items[c];
            it->label = g->cols[c].display;
            it->ok = gc->ok;
            if (!gc->ok) {
                const char *line;
                size_t len = grid_detail_line(gc->cell ? gc->cell->result.detail : NULL, &line);
                it->na = figure_arena_printf(a, "%s%s%.*s", gc->na, len ? ": " : "", (int)(len > 200 ? 200 : len),
                                             line);
                h += CELL_NA_H;
                continue;
            }
            /* the first ok repeat is drawn; pooled statistics are marked */
            const struct rd_cell *cell = gc->cell;
            for (size_t i = 0; i < x->rd->ncells; i++) {
                const struct rd_cell *rc = &x->rd->cells[i];
                if (rc->result.status == STATUS_OK && rc->result.ntimed &&
                    !strcmp(rc->cell.backend, cell->cell.backend) && !strcmp(rc->cell.model, cell->cell.model) &&
                    !strcmp(rc->cell.task, cell->cell.task) && rc->cell.batch == cell->cell.batch) {
                    cell = rc;
                    break;
                }
            }
            char warn[160], mean[64], cv[64];
            grid_warnings(&gc->st, warn, sizeof(warn));
            rctx_fmt_ms(gc->st.mean, mean, sizeof(mean));
            chart_format_number(gc->st.cv * 100, 1, cv, sizeof(cv));
            const struct stats *st = &gc->st;
            it->d = (struct distribution){
                .title = figure_arena_printf(a, "%s: %s ms/step", it->label, mean),
                .name = it->label,
                .ms = ns_to_ms(a, cell->result.timed_ns, cell->result.ntimed),
                .n = cell->result.ntimed,
                .mean = st->mean,
                .median = st->median,
                .p5 = st->p5,
                .p95 = st->p95,
                .ci_lo = st->ci_lo,
                .ci_hi = st->ci_hi,
                .color = g->cols[c].color,
                .note = figure_arena_printf(a, "n = %zu%s, CV %s%%, %zu outlier%s", st->n,
                                            gc->nok > 1 ? " (pooled repeats)" : "", cv, st->outliers,
                                            st->outliers == 1 ? "" : "s"),
                .warning = warn[0] ? figure_arena_printf(a, "%s", warn) : NULL};
            it->s = (struct series){.title = NULL,
                                    .name = it->label,
                                    .warmup = ns_to_ms(a, cell->result.warmup_ns, cell->result.nwarmup),
                                    .nwarmup = cell->result.nwarmup,
                                    .timed = it->d.ms,
                                    .ntimed = cell->result.ntimed,
                                    .mean = st->mean,
                                    .color = g->cols[c].color,
                                    .first_label = first_label(cell)};
            panels[npanels++] = &it->s;
            h += CELL_OK_H;
        }
        /* one axis kind for every panel of the figure */
        int err = series_pick_scale(panels, npanels);
        if (err < 0) {
            figure_arena_free(f);
            return err;
        }
        err = add_figure(x, FIG_CELLS, FIG_W, h, cellsfig_draw, f, xprintf("cells-%s", g->rows[r].slug),
                         xprintf("Step times: %s", g->rows[r].title),
                         "Each backend's step-time distribution and step-time series for this row, "
                         "showing warm-up and compile time.");
        if (err < 0)
            return err;
    }
    return 0;
}

/* ---- reference ------------------------------------------------------------ */

static int build_reference(struct rctx *x)
{
    const struct grid *g = x->g;
    if (!x->ref)
        return 0;
    struct scatterfig *f = figure_arena_new(sizeof(*f));
    struct figure_arena *a = &f->a;
    size_t n = g->nrows * g->ncols;
    double *mx = figure_arena_alloc(a, (n + 1) * sizeof(double));
    double *py = figure_arena_alloc(a, (n + 1) * sizeof(double));
    size_t *grp = figure_arena_alloc(a, (n + 1) * sizeof(size_t));
    const char **names = figure_arena_alloc(a, (n + 1) * sizeof(char *));
    const char **labels = figure_arena_alloc(a, (g->ncols + 1) * sizeof(char *));
    unsigned *colors = figure_arena_alloc(a, (g->ncols + 1) * sizeof(unsigned));
    size_t k = 0;
    for (size_t c = 0; c < g->ncols; c++) {
        labels[c] = g->cols[c].display;
        colors[c] = g->cols[c].color;
    }
    for (size_t r = 0; r < g->nrows; r++)
        for (size_t c = 0; c < g->ncols; c++) {
            const struct ref_row *p = rctx_published(x, r, c);
            const struct grid_cell *gc = grid_at(g, r, c);
            if (!p || !isfinite(p->ms) || !gc->ok || rctx_ref_why(x, r, c))
                continue; /* "method differs" cells are not the published work (methodref.h) */
            mx[k] = p->ms;
            py[k] = gc->st.mean;
            names[k] = g->rows[r].title;
            grp[k++] = c;
        }
    const struct ref_row *first = reference_first(x->ref, x->ref_revision);
    f->s = (struct scatter){
        .title = figure_arena_printf(a, "Measured vs published (revision %d%s%s)", x->ref_revision,
                                     first && first->date[0] ? ", " : "", first ? first->date : ""),
        .subtitle = x->hardware_note && x->hardware_note[0] ? x->hardware_note
                                                            : "Same hardware as the published numbers.",
        .x_label = "published ms/step",
        .y_label = "measured ms/step",
        .n = k,
        .x = mx,
        .y = py,
        .group = grp,
        .point_label = names,
        .ngroups = g->ncols,
        .group_label = labels,
        .group_color = colors,
        .ratio_label = "measured / published"};
    return add_figure(x, FIG_REFERENCE, FIG_W, 690, scatterfig_draw, f, xprintf("reference-rev%d", x->ref_revision),
                      xstrdup("Measured vs published"),
                      "Each cell's measured mean against the published value; the diagonal is equal "
                      "speed, dashed lines are 2x either way; under it, their ratio on a log axis with "
                      "the +/-2% noise band shaded.");
}

int figures_build(struct rctx *x)
{
    int err;
    if (x->g->nrows == 0 || x->g->ncols == 0)
        return 0;
    if ((err = build_ms_per_step(x)) < 0 || (err = build_speedup(x)) < 0 ||
        (err = build_keras3_figures(x)) < 0 || (err = build_heatmap(x)) < 0 ||
        (err = build_reference(x)) < 0 || (err = roofline_figure(x, FIG_W, FIG_PNG_SCALE)) < 0 || (err = build_cells(x)) < 0)
        return err;
    return 0;
}

int figures_render_list(struct figure *figs, size_t nfigs, const char *pdf_date, const struct voice *voice,
                        const char *charts_dir, unsigned formats, int keep_svg, size_t shard, size_t nshards)
{
    struct chart_render_opts o = {.png_scale = FIG_PNG_SCALE, .pdf_date = pdf_date, .pdf_title = NULL};
    size_t step = nfigs >= 40 ? nfigs / 10 : 0, done = 0;
    if (nshards == 0)
        nshards = 1;
    for (size_t i = shard; i < nfigs; i += nshards) {
        struct figure *f = &figs[i];
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", charts_dir ? charts_dir : ".", f->name);
        o.pdf_title = f->title;
        o.png_scale = f->png_scale;
        free(f->svg);
        f->svg = NULL;
        int err = chart_render(path, f->w, f->h, formats, &o, f->draw, f->data, keep_svg ? &f->svg : NULL);
        if (err < 0)
            return error_prefix(err, "chart %s", f->name);
        done += nshards;
        if (step && shard == 0 && done / step != (done - nshards) / step && done < nfigs)
            voice_progress(voice, "report", NULL, "charts %zu/%zu", done, nfigs);
    }
    return 0;
}

int figures_render(struct rctx *x, const char *charts_dir, unsigned formats, int keep_svg, size_t shard,
                   size_t nshards)
{
    return figures_render_list(x->figs, x->nfigs, x->pdf_date, x->voice, charts_dir, formats, keep_svg, shard,
                               nshards);
}

int figures_load_svg_list(struct figure *figs, size_t nfigs, const char *charts_dir)
{
    for (size_t i = 0; i < nfigs; i++) {
        char path[PATH_MAX];
        size_t len;
        snprintf(path, sizeof(path), "%s/%s.svg", charts_dir, figs[i].name);
        free(figs[i].svg);
        figs[i].svg = NULL;
        int err = util_read_file(path, &figs[i].svg, &len);
        if (err < 0)
            return err;
    }
    return 0;
}

int figures_load_svg(struct rctx *x, const char *charts_dir)
{
    return figures_load_svg_list(x->figs, x->nfigs, charts_dir);
}
