/*
 * workbook.c - report.xlsx with libxlsxwriter (see workbook.h).
 *
 * Sheets: Answer, Summary (the published table), Throughput, Speedup, Statistics, Samples,
 * Environment, Method, Published (with --reference), and a hidden ChartData
 * sheet: Excel plots a text cell as zero, so the native charts read numbers
 * (blanks for NA) from there while the visible sheets say "NA (error)".
 * Every string goes through escape_xlsx; every number through workbook_put_num, which
 * refuses NaN and Inf (libxlsxwriter would write them as invalid XML numbers).
 */
#include "report/workbook.h"
#include "base/error.h"
#include "base/util.h"
#include "base/escape.h"
#include "base/xalloc.h"
#include "charts/heatmap.h"
#include "report/methods.h"
#include "report/tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHART_MAX_ROWS 30
/* A native chart prints on a page of its own (a row break above it): A4
 * landscape is 8.27 in tall, less the 0.5 in top and bottom margins
 * (workbook_print_setup) 7.27 in, 698 px at 96 dpi; less the repeated
 * header row (up to 3 lines, 64 px) and room for rounding, 600 px fit at
 * 100%, and fitting to the page's width only ever shrinks the sheet. Bars
 * stay readable at that height with at most CHART_MAX_BARS of them (12 rows
 * of 7 backends); a chart of more says "(first rows)". */
#define CHART_PAGE_PX 600.0
#define CHART_MAX_BARS 84
#define CHART_DEFAULT_PX 288.0 /* libxlsxwriter's chart height at y_scale 1 */

/* ---- cells ---------------------------------------------------------------- */

/* ---- Summary -------------------------------------------------------------- */

static lxw_row_t write_grid_block(struct workbook *w, lxw_worksheet *ws, lxw_row_t r0, const struct table *t,
                                  int summary)
{
    for (size_t c = 0; c < t->ncols; c++)
        workbook_put_str(w, ws, r0, (lxw_col_t)c, t->head[c], w->head);
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            const struct tcell *cell = table_at(t, r, c);
            lxw_row_t row = r0 + 1 + (lxw_row_t)r;
            if (c == 0)
                workbook_put_str(w, ws, row, 0, cell->text, w->text);
            else if (c == 1)
                workbook_put_num(w, ws, row, 1, cell->num, w->int0);
            else if (cell->flags & TC_NA || !isfinite(cell->num))
                workbook_put_str(w, ws, row, (lxw_col_t)c, cell->text, w->na);
            else if (summary)
                workbook_put_num(w, ws, row, (lxw_col_t)c, cell->num,
                                 (cell->flags & TC_BOLD) ? w->best : w->num);
            else
                workbook_put_str(w, ws, row, (lxw_col_t)c, cell->text, w->text);
        }
    return r0 + 1 + (lxw_row_t)t->nrows;
}

/* A native horizontal bar chart of ChartData rows data_r0.. (the first
 * of nrows that fit a page), one series per column from data_c0, starting a
 * page at at_row; returns the last row it covers. In a bar chart
 * libxlsxwriter's x_axis is the value axis (horizontal, at the bottom) and
 * its y_axis the category axis (vertical): categories run top-down as in the
 * table, values left to right with their unit and number format, and the
 * row names sit at the left edge, never over bars that point left. vmin: the
 * smallest value drawn (percent fractions never fall below -1, so the axis
 * never shows a speed-up the formula cannot give); vals: the nvals values
 * drawn, which choose the value axis's number format. */
static lxw_row_t chart_from_data(struct workbook *w, lxw_worksheet *ws, lxw_row_t at_row, lxw_col_t at_col,
                                 const char *title, const char *axis, lxw_row_t data_r0, size_t nrows,
                                 lxw_col_t data_c0, size_t nser, const unsigned *colors, int percent, double vmin,
                                 const double *vals, size_t nvals)
{
    if (w->err || nrows == 0 || nser == 0)
        return at_row;
    size_t fit = CHART_MAX_BARS / nser > 0 ? CHART_MAX_BARS / nser : 1;
    size_t n = nrows < CHART_MAX_ROWS ? nrows : CHART_MAX_ROWS;
    n = n < fit ? n : fit;
    lxw_chart *ch = workbook_add_chart(w->wb, LXW_CHART_BAR);
    if (!ch) { /* libxlsxwriter's own failure */
        w->err = error_set(BG_EGENERIC, "libxlsxwriter cannot add a chart (%s)", title);
        return at_row;
    }
    char buf[256];
    snprintf(buf, sizeof(buf), "%s%s", title, n < nrows ? " (first rows)" : "");
    char *t = escape_xlsx(buf);
    chart_title_set_name(ch, t);
    free(t);
    for (size_t s = 0; s < nser; s++) {
        lxw_chart_series *se = chart_add_series(ch, NULL, NULL);
        chart_series_set_categories(se, "ChartData", data_r0, 0, data_r0 + (lxw_row_t)n - 1, 0);
        chart_series_set_values(se, "ChartData", data_r0, data_c0 + (lxw_col_t)s, data_r0 + (lxw_row_t)n - 1,
                                data_c0 + (lxw_col_t)s);
        chart_series_set_name_range(se, "ChartData", data_r0 - 1, data_c0 + (lxw_col_t)s);
        lxw_chart_fill fill = {.color = colors[s]};
        chart_series_set_fill(se, &fill);
    }
    chart_axis_set_reverse(ch->y_axis); /* categories: first row on top, as in the table */
    chart_axis_set_crossing_max(ch->y_axis); /* so the value axis stays at the bottom */
    chart_axis_set_label_position(ch->y_axis, LXW_CHART_AXIS_LABEL_POSITION_LOW);
    chart_axis_set_name(ch->x_axis, axis); /* values */
    /* a format that shows the values' magnitude: a 0.5 ms tick must not read "1" */
    double vmax = 0;
    for (size_t i = 0; i < nvals; i++)
        if (isfinite(vals[i]) && fabs(vals[i]) > vmax)
            vmax = fabs(vals[i]);
    chart_axis_set_num_format(ch->x_axis, percent          ? "+0%;-0%;0%"
                                          : vmax >= 20.0   ? "#,##0"
                                          : vmax >= 2.0    ? "#,##0.0"
                                          : vmax >= 0.2    ? "#,##0.00"
                                                           : "#,##0.000");
    if (percent && vmin < 0)
        chart_axis_set_min(ch->x_axis, vmin < -0.8 ? -1.0 : floor(vmin * 5) / 5);
    chart_legend_set_position(ch, LXW_CHART_LEGEND_BOTTOM);
    double h = CHART_DEFAULT_PX * (1.0 + (double)(n * nser) / 14.0);
    h = h < CHART_PAGE_PX ? h : CHART_PAGE_PX;
    lxw_chart_options opt = {.x_scale = 2.0, .y_scale = h / CHART_DEFAULT_PX};
    worksheet_insert_chart_opt(ws, at_row, at_col, ch, &opt);
    lxw_row_t breaks[] = {at_row, 0}; /* the chart starts a page */
    worksheet_set_h_pagebreaks(ws, breaks);
    return at_row + (lxw_row_t)ceil(h / LXW_DEF_ROW_HEIGHT_PIXELS); /* the last row it covers */
}

/* A table's caption in row `row`, wrapped over at least CAPTION_MIN_COLS
 * columns (or the table's ncols) and as many lines tall as it needs, so
 * that it prints whole inside the print area instead of running past its
 * right edge or being cut at its foot; returns the last column it covers
 * (the print area must reach it). */
#define CAPTION_MIN_COLS 10
#define CAPTION_COL_CHARS 9.0 /* the least a column holds: workbook_fit_table's minimum */
static lxw_col_t put_caption(struct workbook *w, lxw_worksheet *ws, lxw_row_t row, const char *text, size_t ncols)
{
    size_t span = ncols > CAPTION_MIN_COLS ? ncols : CAPTION_MIN_COLS;
    if (w->err || !text)
        return (lxw_col_t)(span - 1);
    worksheet_merge_range(ws, row, 0, row, (lxw_col_t)(span - 1), "", w->wrap);
    workbook_put_str(w, ws, row, 0, text, w->wrap);
    double lines = ceil((double)strlen(text) * 1.15 / ((double)span * CAPTION_COL_CHARS));
    worksheet_set_row(ws, row, 15.0 * (lines < 1 ? 1 : lines) + 2, NULL);
    return (lxw_col_t)(span - 1);
}

static int sheet_summary(struct workbook *w, lxw_worksheet *ws, lxw_worksheet *data)
{
    const struct rctx *x = w->x;
    const struct grid *g = x->g;
    struct table t = {0}, d = {0};
    int err;
    if ((err = tables_build(x, TABLE_SUMMARY, &t)) < 0)
        return err;
    char title[512];
    snprintf(title, sizeof(title), "Benchmark report: %s", x->rd->name);
    workbook_put_str(w, ws, 0, 0, title, w->title);
    lxw_col_t cap_last =
        put_caption(w, ws, 1,
                    "Mean ms/step of the timed steps (the published metric), lower is better. Bold and boxed: the "
                    "row's fastest cell. Colour: ratio to the row's best. NA: no number, with the status in brackets.",
                    t.ncols);
    lxw_row_t hr = 3;
    lxw_row_t end = write_grid_block(w, ws, hr, &t, 1);
    workbook_fit_table(w, ws, hr, 0, &t, 9, 40);
    worksheet_freeze_panes(ws, hr + 1, 2);
    worksheet_autofilter(ws, hr, 0, end - 1, (lxw_col_t)(t.ncols - 1));
    /* each row shaded from its best (light) to its worst (dark blue), like the heatmap */
    for (size_t r = 0; r < t.nrows && t.ncols > 2; r++) {
        lxw_conditional_format cf = {.type = LXW_CONDITIONAL_3_COLOR_SCALE,
                                     .min_color = heatmap_color(1.0),
                                     .mid_color = heatmap_color(1.3),
                                     .max_color = heatmap_color(1.8)}; /* light enough for black text */
        worksheet_conditional_format_range(ws, hr + 1 + (lxw_row_t)r, 2, hr + 1 + (lxw_row_t)r,
                                           (lxw_col_t)(t.ncols - 1), &cf);
    }
    /* median and confidence interval below the table, as text (one cell, two numbers) */
    if ((err = tables_build(x, TABLE_DETAIL, &d)) < 0) {
        if (!w->err) /* the workbook's first error stays */
            w->err = err;
        goto done;
    }
    workbook_put_str(w, ws, end + 1, 0, d.caption, w->subtitle);
    lxw_row_t end2 = write_grid_block(w, ws, end + 2, &d, 0);
    workbook_fit_table(w, ws, end + 2, 0, &d, 9, 40); /* its "median [lo, hi]" texts are the widest */

    /* chart data: row labels, then ms/step per backend (blank for NA) */
    workbook_put_str(w, data, 0, 0, "Row", w->head);
    for (size_t c = 0; c < g->ncols; c++)
        workbook_put_str(w, data, 0, (lxw_col_t)(1 + c), g->cols[c].display, w->head);
    for (size_t r = 0; r < g->nrows; r++) {
        char lab[256];
        snprintf(lab, sizeof(lab), "%s, b%d", g->rows[r].label, g->rows[r].batch);
        workbook_put_str(w, data, (lxw_row_t)(1 + r), 0, lab, NULL);
        for (size_t c = 0; c < g->ncols; c++) {
            const struct grid_cell *gc = grid_at(g, r, c);
            workbook_put_num_or_blank(w, data, (lxw_row_t)(1 + r), (lxw_col_t)(1 + c),
                                      gc->ok ? gc->st.mean : NAN, w->num);
        }
    }
    unsigned *colors = xcalloc(g->ncols + 1, sizeof(*colors));
    double *ms = xcalloc(g->nrows * g->ncols + 1, sizeof(*ms));
    for (size_t c = 0; c < g->ncols; c++)
        colors[c] = g->cols[c].color;
    for (size_t i = 0; i < g->nrows * g->ncols; i++)
        ms[i] = g->cells[i].ok ? g->cells[i].st.mean : NAN;
    lxw_row_t last = chart_from_data(w, ws, end2 + 2, 0, "ms/step by backend (lower is better)", "ms/step", 1,
                                     g->nrows, 1, g->ncols, colors, 0, 0, ms, g->nrows * g->ncols);
    free(ms);
    workbook_print_setup(w, ws, hr, last, (lxw_col_t)(t.ncols - 1 > cap_last ? t.ncols - 1 : cap_last));
    free(colors);
done:
    table_free(&t);
    table_free(&d);
    return w->err;
}

/* ---- Speedup ----------------------------------------------------------------- */

static int sheet_speedup(struct workbook *w, lxw_worksheet *ws, lxw_worksheet *data)
{
    const struct rctx *x = w->x;
    const struct grid *g = x->g;
    struct table t = {0};
    int err = tables_build(x, TABLE_SPEEDUP, &t);
    if (err < 0)
        return err;
    int any = 0; /* a speedup to show: some row has the baseline's number and another's */
    for (size_t r = 0; r < t.nrows; r++)
        for (size_t c = 2; c < t.ncols; c++)
            any |= isfinite(table_at(&t, r, c)->num);
    if (!any) { /* one sentence, as the report says it, never an empty table */
        char *why = t.ncols <= 2 ? xprintf("No speedup: the run has one backend, %s, and so nothing to compare it with.",
                                            g->ncols ? g->cols[0].display : "none")
                                 : xprintf("No speedup: no row has a number from both the baseline, %s, and another "
                                           "backend.",
                                           g->cols[x->baseline].display);
        workbook_put_str(w, ws, 0, 0, why, w->subtitle);
        free(why);
        workbook_print_setup(w, ws, 0, 0, 9);
        goto done;
    }
    char *head = xprintf("Throughput speedup over %s", g->cols[x->baseline].display);
    workbook_put_str(w, ws, 0, 0, head, w->title);
    free(head);
    /* the long caption wraps over the table's width, inside the print area */
    char *note = xprintf("%s Values are fractions formatted as percent (0.5 = +50%%). Keras 3 (best) is the "
                         "fastest Keras 3 backend of the row.",
                         t.caption);
    lxw_col_t cap_last = put_caption(w, ws, 1, note, t.ncols);
    free(note);
    lxw_row_t hr = 3;
    for (size_t c = 0; c < t.ncols; c++)
        workbook_put_str(w, ws, hr, (lxw_col_t)c, t.head[c], w->head);
    /* chart data sits right of the summary data on ChartData */
    lxw_col_t dc = (lxw_col_t)(g->ncols + 2);
    for (size_t c = 2; c < t.ncols; c++)
        workbook_put_str(w, data, 0, dc + (lxw_col_t)(c - 2), t.head[c], w->head);
    for (size_t r = 0; r < t.nrows; r++) {
        lxw_row_t row = hr + 1 + (lxw_row_t)r;
        workbook_put_str(w, ws, row, 0, table_at(&t, r, 0)->text, w->text);
        workbook_put_num(w, ws, row, 1, table_at(&t, r, 1)->num, w->int0);
        for (size_t c = 2; c < t.ncols; c++) {
            const struct tcell *cell = table_at(&t, r, c);
            if (isfinite(cell->num))
                workbook_put_num(w, ws, row, (lxw_col_t)c, cell->num / 100.0, w->pct);
            else
                workbook_put_str(w, ws, row, (lxw_col_t)c, cell->text, w->na);
            workbook_put_num_or_blank(w, data, (lxw_row_t)(1 + r), dc + (lxw_col_t)(c - 2),
                                      isfinite(cell->num) ? cell->num / 100.0 : NAN, w->pct);
        }
    }
    lxw_row_t end = hr + 1 + (lxw_row_t)t.nrows;
    workbook_fit_table(w, ws, hr, 0, &t, 9, 40);
    worksheet_freeze_panes(ws, hr + 1, 2);
    worksheet_autofilter(ws, hr, 0, end - 1, (lxw_col_t)(t.ncols - 1));
    lxw_conditional_format cf = {.type = LXW_CONDITIONAL_3_COLOR_SCALE,
                                 .min_color = CHART_WORSE_BG,
                                 .mid_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER,
                                 .mid_value = 0,
                                 .mid_color = 0xFFFFFF,
                                 .max_color = CHART_BETTER_BG};
    worksheet_conditional_format_range(ws, hr + 1, 2, end - 1, (lxw_col_t)(t.ncols - 1), &cf);
    size_t nser = t.ncols - 2;
    unsigned *colors = xcalloc(nser + 1, sizeof(*colors));
    for (size_t s = 0, c = 0; c < g->ncols; c++)
        if ((int)c != x->baseline)
            colors[s++] = g->cols[c].color;
    if (grid_keras3_best_shown(g)) /* the table's last column (tables.c) */
        colors[nser - 1] = GRID_KERAS3_BEST_COLOR;
    char title[256];
    snprintf(title, sizeof(title), "Throughput speedup over %s", g->cols[x->baseline].display);
    double vmin = 0;
    for (size_t r = 0; r < t.nrows; r++)
        for (size_t c = 2; c < t.ncols; c++)
            if (isfinite(table_at(&t, r, c)->num) && table_at(&t, r, c)->num / 100.0 < vmin)
                vmin = table_at(&t, r, c)->num / 100.0;
    lxw_row_t last = chart_from_data(w, ws, end + 2, 0, title, "throughput speedup", 1, t.nrows, dc, nser, colors,
                                     1, vmin, NULL, 0);
    workbook_print_setup(w, ws, hr, last, (lxw_col_t)(t.ncols - 1 > cap_last ? t.ncols - 1 : cap_last));
    free(colors);
done:
    table_free(&t);
    return w->err;
}

/* ---- Throughput --------------------------------------------------------------- */

/* Work per second (throughput.h) in the summary's layout, with its unit per
 * row: numbers, higher is better, the row's fastest bold. */
static int sheet_throughput(struct workbook *w, lxw_worksheet *ws)
{
    struct table t = {0};
    int err = tables_build(w->x, TABLE_THROUGHPUT, &t);
    if (err < 0)
        return err;
    workbook_put_str(w, ws, 0, 0, "Throughput (higher is better)", w->title);
    /* the long caption wraps over the table's width, inside the print area */
    lxw_col_t cap_last = put_caption(w, ws, 1, t.caption, t.ncols);
    lxw_row_t hr = 3;
    for (size_t c = 0; c < t.ncols; c++)
        workbook_put_str(w, ws, hr, (lxw_col_t)c, t.head[c], w->head);
    for (size_t r = 0; r < t.nrows; r++) {
        lxw_row_t row = hr + 1 + (lxw_row_t)r;
        workbook_put_str(w, ws, row, 0, table_at(&t, r, 0)->text, w->text);
        workbook_put_num(w, ws, row, 1, table_at(&t, r, 1)->num, w->int0);
        workbook_put_str(w, ws, row, 2, table_at(&t, r, 2)->text, w->text);
        for (size_t c = 3; c < t.ncols; c++) {
            const struct tcell *cell = table_at(&t, r, c);
            if (isfinite(cell->num))
                workbook_put_num(w, ws, row, (lxw_col_t)c, cell->num, (cell->flags & TC_BOLD) ? w->best : w->num);
            else
                workbook_put_str(w, ws, row, (lxw_col_t)c, cell->text, w->na);
        }
    }
    lxw_row_t end = hr + 1 + (lxw_row_t)t.nrows;
    workbook_fit_table(w, ws, hr, 0, &t, 9, 40);
    worksheet_freeze_panes(ws, hr + 1, 3);
    worksheet_autofilter(ws, hr, 0, end - 1, (lxw_col_t)(t.ncols - 1));
    workbook_print_setup(w, ws, hr, end - 1, (lxw_col_t)(t.ncols - 1 > cap_last ? t.ncols - 1 : cap_last));
    table_free(&t);
    return w->err;
}

/* ---- Statistics ------------------------------------------------------------- */

static int sheet_statistics(struct workbook *w, lxw_worksheet *ws)
{
    const struct rundata *rd = w->x->rd;
    static const char *const head[] = {"Cell",
                                       "Model",
                                       "Task",
                                       "Batch",
                                       "Backend",
                                       "Repeat",
                                       "Status",
                                       "Timed steps",
                                       "Mean ms",
                                       "Median ms",
                                       "p5 ms",
                                       "p95 ms",
                                       "Std dev ms",
                                       "CI low ms",
                                       "CI high ms",
                                       "CV",
                                       "Min ms",
                                       "Max ms",
                                       "Outliers",
                                       "First timed step is an outlier",
                                       "Warm-up steps",
                                       "Compile (first call) ms",
                                       "Warm-up total ms",
                                       "Peak RSS MiB",
                                       "Wall s",
                                       "Warnings",
                                       "Phases (s since worker start)",
                                       "Detail"};
    size_t nh = sizeof(head) / sizeof(head[0]);
    for (size_t c = 0; c < nh; c++)
        workbook_put_str(w, ws, 0, (lxw_col_t)c, head[c], w->head);
    for (size_t i = 0; i < rd->ncells && !w->err; i++) {
        const struct rd_cell *c = &rd->cells[i];
        const struct stats *st = &c->st;
        lxw_row_t r = (lxw_row_t)(i + 1);
        int ok = c->result.status == STATUS_OK && st->n > 0;
        workbook_put_str(w, ws, r, 0, c->cell.key, w->mono);
        workbook_put_str(w, ws, r, 1, c->cell.model, NULL);
        workbook_put_str(w, ws, r, 2, c->cell.task, NULL);
        workbook_put_num(w, ws, r, 3, c->cell.batch, w->int0);
        workbook_put_str(w, ws, r, 4, c->cell.backend, NULL);
        workbook_put_num(w, ws, r, 5, c->cell.repeat, w->int0);
        workbook_put_str(w, ws, r, 6, c->result.status ? status_name(c->result.status) : "not run", ok ? NULL : w->na);
        workbook_put_num(w, ws, r, 7, (double)st->n, w->int0);
        double v[] = {st->mean, st->median, st->p5, st->p95, st->stdev, st->ci_lo, st->ci_hi};
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
            workbook_put_num_or_blank(w, ws, r, (lxw_col_t)(8 + k), ok ? v[k] : NAN, w->num);
        workbook_put_num_or_blank(w, ws, r, 15, ok ? st->cv : NAN, w->pct_plain);
        workbook_put_num_or_blank(w, ws, r, 16, ok ? st->min : NAN, w->num);
        workbook_put_num_or_blank(w, ws, r, 17, ok ? st->max : NAN, w->num);
        workbook_put_num_or_blank(w, ws, r, 18, ok ? (double)st->outliers : NAN, w->int0);
        workbook_put_str(w, ws, r, 19, ok ? (st->first_is_outlier ? "yes" : "no") : "", NULL);
        workbook_put_num(w, ws, r, 20, (double)c->result.nwarmup, w->int0);
        double wsum = 0;
        for (size_t k = 0; k < c->result.nwarmup; k++)
            wsum += (double)c->result.warmup_ns[k] / 1e6;
        if (c->result.nwarmup && result_warm_cache(&c->result)) /* an A/B arm's warm process: not compile time */
            workbook_put_str(w, ws, r, 21, "warm cache", w->na);
        else
            workbook_put_num_or_blank(w, ws, r, 21, result_compile_ms(&c->result), w->num);
        workbook_put_num_or_blank(w, ws, r, 22, c->result.nwarmup ? wsum : NAN, w->num);
        workbook_put_num_or_blank(w, ws, r, 23, c->result.status ? (double)c->result.peak_rss / 1048576.0 : NAN,
                                  w->num);
        workbook_put_num_or_blank(w, ws, r, 24, c->result.status ? c->result.wall_s : NAN, w->num);
        char warn[200];
        grid_warnings(st, warn, sizeof(warn));
        workbook_put_str(w, ws, r, 25, ok ? warn : "", w->warn);
        char *phases = rctx_phases(c);
        workbook_put_str(w, ws, r, 26, phases ? phases : "", NULL);
        free(phases);
        workbook_put_str(w, ws, r, 27, c->result.detail ? c->result.detail : "", NULL);
    }
    lxw_row_t last = (lxw_row_t)rd->ncells;
    worksheet_set_column(ws, 0, 0, 36, NULL);
    worksheet_set_column(ws, 1, 6, 12, NULL);
    worksheet_set_column(ws, 7, 24, 11, NULL);
    worksheet_set_column(ws, 25, 27, 30, NULL);
    worksheet_set_row(ws, 0, 45, NULL);
    worksheet_freeze_panes(ws, 1, 1);
    if (rd->ncells)
        worksheet_autofilter(ws, 0, 0, last, (lxw_col_t)(nh - 1));
    lxw_format *noisy = workbook_add_format(w->wb);
    format_set_bg_color(noisy, CHART_WORSE_BG);
    format_set_font_color(noisy, CHART_INK);
    lxw_conditional_format cf = {.type = LXW_CONDITIONAL_TYPE_CELL,
                                 .criteria = LXW_CONDITIONAL_CRITERIA_GREATER_THAN,
                                 .value = STATS_NOISY_CV,
                                 .format = noisy};
    if (rd->ncells)
        worksheet_conditional_format_range(ws, 1, 15, last, 15, &cf);
    workbook_print_setup(w, ws, 0, last, (lxw_col_t)(nh - 1));
    /* 28 columns on one page wide printed at a third of their size: three
     * pages wide instead (the cell's steps and mean; spread and outliers;
     * warm-up, memory and what went wrong), each with the cell's key */
    if (!w->err) {
        lxw_col_t breaks[] = {10, 19, 0};
        worksheet_fit_to_pages(ws, 3, 0);
        worksheet_set_v_pagebreaks(ws, breaks);
        worksheet_repeat_columns(ws, 0, 0);
    }
    return w->err;
}

/* ---- Samples ------------------------------------------------------------------ */

static int sheet_samples(struct workbook *w, lxw_worksheet *ws)
{
    const struct rundata *rd = w->x->rd;
    /* a long table: one row per step. Model, task and batch are in the cell
     * key and on the Statistics sheet; leaving them out keeps a 1,000-cell
     * workbook quick to write and to open */
    static const char *const head[] = {"Cell", "Backend", "Phase", "Step", "ms", "ns"};
    size_t nh = sizeof(head) / sizeof(head[0]);
    for (size_t c = 0; c < nh; c++)
        workbook_put_str(w, ws, 0, (lxw_col_t)c, head[c], w->head);
    lxw_row_t r = 1;
    for (size_t i = 0; i < rd->ncells && !w->err; i++) {
        const struct rd_cell *c = &rd->cells[i];
        if (c->result.nwarmup + c->result.ntimed == 0)
            continue;
        /* escaped once per cell, not once per step */
        char *key = escape_xlsx(c->cell.key), *backend = escape_xlsx(c->cell.backend);
        for (int phase = 0; phase < 2; phase++) {
            const int64_t *ns = phase ? c->result.timed_ns : c->result.warmup_ns;
            size_t n = phase ? c->result.ntimed : c->result.nwarmup;
            for (size_t k = 0; k < n; k++, r++) {
                worksheet_write_string(ws, r, 0, key, NULL);
                worksheet_write_string(ws, r, 1, backend, NULL);
                worksheet_write_string(ws, r, 2, phase ? "timed" : "warmup", NULL);
                worksheet_write_number(ws, r, 3, (double)k, NULL);
                worksheet_write_number(ws, r, 4, (double)ns[k] / 1e6, NULL);
                worksheet_write_number(ws, r, 5, (double)ns[k], NULL);
            }
        }
        free(key);
        free(backend);
    }
    worksheet_set_column(ws, 0, 0, 36, NULL);
    worksheet_set_column(ws, 1, 3, 14, NULL);
    worksheet_set_column(ws, 4, 5, 16, NULL);
    worksheet_freeze_panes(ws, 1, 0);
    if (r > 1)
        worksheet_autofilter(ws, 0, 0, r - 1, (lxw_col_t)(nh - 1));
    /* every step is data to analyse, not to read on paper (72 cells made 215
     * pages): the printout holds the header and this note, the Statistics
     * sheet prints their summary */
    char note[200];
    snprintf(note, sizeof(note),
             "%lu rows, one per step: data for analysis, not printed (the print area is this row; the "
             "Statistics sheet prints their summary).",
             (unsigned long)(r - 1));
    workbook_put_str(w, ws, 0, (lxw_col_t)nh, note, w->subtitle);
    worksheet_set_column(ws, (lxw_col_t)nh, (lxw_col_t)nh, 110, NULL);
    workbook_print_setup(w, ws, 0, 0, (lxw_col_t)nh);
    return w->err;
}

/* ---- Environment -------------------------------------------------------------- */

static int sheet_environment(struct workbook *w, lxw_worksheet *ws)
{
    const struct rundata *rd = w->x->rd;
    static const char *const head[] = {"Scope", "Kind", "Key", "Value"};
    for (size_t c = 0; c < 4; c++)
        workbook_put_str(w, ws, 0, (lxw_col_t)c, head[c], w->head);
    lxw_row_t r = 1;
    for (size_t k = 0; k < rd->env.n; k++, r++) {
        workbook_put_str(w, ws, r, 0, "run", NULL);
        workbook_put_str(w, ws, r, 1, "environment", NULL);
        char bytes[64]; /* a byte count in binary units, as the report shows it */
        const char *key = rd->env.items[k].key, *v = rd->env.items[k].value;
        workbook_put_str(w, ws, r, 2, key, w->mono);
        workbook_put_str(w, ws, r, 3, util_fmt_bytes(bytes, sizeof(bytes), key, v) ? bytes : v, NULL);
    }
    for (size_t i = 0; i < rd->ncells && !w->err; i++) {
        const struct rd_cell *c = &rd->cells[i];
        const struct kvlist *lists[2] = {&c->result.env, &c->result.facts};
        for (int l = 0; l < 2; l++)
            for (size_t k = 0; k < lists[l]->n; k++, r++) {
                workbook_put_str(w, ws, r, 0, c->cell.key, w->mono);
                workbook_put_str(w, ws, r, 1, l ? "fact" : "environment", NULL);
                char bytes[64];
                const char *key = lists[l]->items[k].key, *v = lists[l]->items[k].value;
                workbook_put_str(w, ws, r, 2, key, w->mono);
                workbook_put_str(w, ws, r, 3, util_fmt_bytes(bytes, sizeof(bytes), key, v) ? bytes : v, NULL);
            }
    }
    worksheet_set_column(ws, 0, 0, 36, NULL);
    worksheet_set_column(ws, 1, 1, 12, NULL);
    worksheet_set_column(ws, 2, 2, 30, NULL);
    worksheet_set_column(ws, 3, 3, 60, NULL);
    worksheet_freeze_panes(ws, 1, 0);
    if (r > 1)
        worksheet_autofilter(ws, 0, 0, r - 1, 3);
    /* the run-wide rows print; the per-cell rows are data (every package of
     * every cell), summarised per backend in the report's Environment section */
    lxw_row_t run_last = rd->env.n ? (lxw_row_t)rd->env.n : 0;
    char note[200];
    snprintf(note, sizeof(note), "Printed: the run-wide rows. The %lu per-cell rows below them are data, not printed.",
             (unsigned long)(r - 1 - run_last));
    workbook_put_str(w, ws, 0, 4, note, w->wrap);
    worksheet_set_column(ws, 4, 4, 40, NULL);
    workbook_print_setup(w, ws, 0, run_last, 4);
    return w->err;
}

/* ---- Method --------------------------------------------------------------------- */

static int sheet_method(struct workbook *w, lxw_worksheet *ws)
{
    const struct rctx *x = w->x;
    struct table meta = {0}, facts = {0}, side = {0}, diff = {0};
    int err;
    if ((err = tables_build(x, TABLE_META, &meta)) < 0 || (err = tables_build(x, TABLE_FACTS, &facts)) < 0 ||
        (err = methods_side_table(x, &side)) < 0 || (err = methods_diff_table(x, &diff)) < 0)
        goto done;
    worksheet_set_column(ws, 0, 0, 110, NULL);
    worksheet_set_column(ws, 1, 12, 24, NULL);
    workbook_put_str(w, ws, 0, 0, "Run", w->title);
    lxw_row_t r = workbook_put_table(w, ws, 1, &meta) + 1;
    workbook_put_str(w, ws, r++, 0, "Method", w->title);
    r = workbook_put_paragraphs(w, ws, r, x->method, x->nmethod) + 1;
    if (side.nrows) { /* cells run under both methods (report/methods.h) */
        workbook_put_str(w, ws, r++, 0, "Published vs corrected, side by side", w->bold);
        r = workbook_put_table(w, ws, r, &side) + 1;
        workbook_put_str(w, ws, r++, 0, "What differs per cell", w->bold);
        r = workbook_put_table(w, ws, r, &diff) + 1;
    }
    workbook_put_str(w, ws, r++, 0, "Fairness notes", w->title);
    r = workbook_put_paragraphs(w, ws, r, x->fairness, x->nfairness) + 1;
    workbook_put_str(w, ws, r++, 0, "Facts recorded per backend", w->bold);
    r = workbook_put_table(w, ws, r, &facts) + 1;
    if (x->ref && x->hardware_note[0])
        workbook_put_str(w, ws, r++, 0, x->hardware_note, w->warn);
    workbook_put_str(w, ws, r++, 0, "Spec", w->title);
    /* the spec as the documents show it (report_doc.c) */
    char *spec = doc_cap_spec(x->rd->spec_text);
    const char *p = spec ? spec : x->rd->spec_text;
    while (p && *p && !w->err) {
        size_t len = strcspn(p, "\n");
        char *line = xstrndup(p, len);
        workbook_put_str(w, ws, r++, 0, line, w->mono);
        free(line);
        p += len + (p[len] == '\n');
    }
    free(spec);
    /* the print area reaches the widest table's last column (the facts' values, per backend) */
    size_t wide = meta.ncols;
    const struct table *tabs[] = {&facts, &side, &diff};
    for (size_t k = 0; k < 3; k++)
        wide = tabs[k]->ncols > wide ? tabs[k]->ncols : wide;
    workbook_print_setup(w, ws, 0, r, (lxw_col_t)(wide ? wide - 1 : 0));
    err = w->err;
done:
    table_free(&meta);
    table_free(&facts);
    table_free(&side);
    table_free(&diff);
    return err;
}

/* ---- Published (with --reference) ------------------------------------------------ */

static int sheet_published(struct workbook *w, lxw_worksheet *ws)
{
    const struct rctx *x = w->x;
    const struct grid *g = x->g;
    const struct ref_row *first = reference_first(x->ref, x->ref_revision);
    char title[512];
    snprintf(title, sizeof(title), "Measured vs published, revision %d%s%s", x->ref_revision,
             first && first->date[0] ? " of " : "", first ? first->date : "");
    workbook_put_str(w, ws, 0, 0, title, w->title);
    workbook_put_str(w, ws, 1, 0,
                     x->hardware_note[0] ? x->hardware_note : "Same hardware as the published numbers.",
                     x->hardware_note[0] ? w->warn : w->subtitle);
    workbook_put_str(w, ws, 2, 0, first ? first->source : "", w->subtitle);
    static const char *const head[] = {"Model (task)",         "Batch",        "Backend",
                                       "Measured ms",          "Published ms", "Published as",
                                       "Measured / published", "Note"};
    lxw_row_t hr = 4, r = hr + 1;
    for (size_t c = 0; c < 8; c++)
        workbook_put_str(w, ws, hr, (lxw_col_t)c, head[c], w->head);
    for (size_t row = 0; row < g->nrows; row++)
        for (size_t c = 0; c < g->ncols; c++, r++) {
            const struct grid_cell *gc = grid_at(g, row, c);
            const struct ref_row *p = rctx_published(x, row, c);
            workbook_put_str(w, ws, r, 0, g->rows[row].label, NULL);
            workbook_put_num(w, ws, r, 1, g->rows[row].batch, w->int0);
            workbook_put_str(w, ws, r, 2, g->cols[c].display, NULL);
            if (gc->ok)
                workbook_put_num(w, ws, r, 3, gc->st.mean, w->num);
            else
                workbook_put_str(w, ws, r, 3, gc->na, w->na);
            if (p && isfinite(p->ms))
                workbook_put_num(w, ws, r, 4, p->ms, w->num);
            else
                workbook_put_str(w, ws, r, 4, p ? "NA" : "not published", w->na);
            workbook_put_str(w, ws, r, 5, p ? p->published : "", NULL);
            const char *why = rctx_ref_why(x, row, c);
            double q = gc->ok && p && isfinite(p->ms) && p->ms > 0 && !why ? gc->st.mean / p->ms : NAN;
            if (isfinite(q))
                workbook_put_num(w, ws, r, 6, q, w->num);
            else
                workbook_put_str(w, ws, r, 6, why ? "method differs" : "NA", w->na);
            workbook_put_str(w, ws, r, 7, why ? why : p ? p->note : "", NULL);
        }
    worksheet_set_column(ws, 0, 0, 30, NULL);
    worksheet_set_column(ws, 1, 6, 14, NULL);
    worksheet_set_column(ws, 7, 7, 80, NULL);
    worksheet_freeze_panes(ws, hr + 1, 0);
    worksheet_autofilter(ws, hr, 0, r - 1, 7);
    workbook_print_setup(w, ws, hr, r - 1, 7);
    return w->err;
}

/* ---- a section of the document ------------------------------------------------------ */

static int sheet_answer(struct workbook *w, lxw_worksheet *ws, const struct doc *d)
{
    worksheet_set_column(ws, 0, 0, 110, NULL);
    worksheet_set_column(ws, 1, 3, 24, NULL);
    lxw_row_t r = workbook_put_section(w, ws, 0, d, "answer");
    workbook_print_setup(w, ws, 0, r, 3);
    return w->err;
}

/* ---- the workbook ------------------------------------------------------------------ */

int workbook_write(const struct rctx *x, const struct doc *d, const char *path)
{
    struct workbook w;
    char *title = xprintf("Benchmark report: %s", x->rd->name);
    int err = workbook_begin(&w, path, title, "ms/step benchmark results", x->rd->description, x->created);
    free(title);
    if (err < 0)
        return err;
    w.x = x;
    lxw_worksheet *answer = d ? workbook_sheet(&w, "Answer") : NULL;
    lxw_worksheet *summary = workbook_sheet(&w, "Summary"), *throughput = workbook_sheet(&w, "Throughput"),
                  *speedup = workbook_sheet(&w, "Speedup"),
                  *stats = workbook_sheet(&w, "Statistics"), *samples = workbook_sheet(&w, "Samples"),
                  *env = workbook_sheet(&w, "Environment"), *method = workbook_sheet(&w, "Method");
    lxw_worksheet *published = x->ref ? workbook_sheet(&w, "Published") : NULL;
    lxw_worksheet *data = workbook_sheet(&w, "ChartData");
    err = w.err;
    if (err == 0)
        worksheet_hide(data);
    if (err == 0 && answer)
        err = sheet_answer(&w, answer, d);
    if (err == 0)
        err = sheet_summary(&w, summary, data);
    if (err == 0)
        err = sheet_throughput(&w, throughput);
    if (err == 0)
        err = sheet_speedup(&w, speedup, data);
    if (err == 0)
        err = sheet_statistics(&w, stats);
    if (err == 0)
        err = sheet_samples(&w, samples);
    if (err == 0)
        err = sheet_environment(&w, env);
    if (err == 0)
        err = sheet_method(&w, method);
    if (err == 0 && published)
        err = sheet_published(&w, published);
    return workbook_finish(&w, path, err);
}
