/*
 * bars.c - horizontal grouped bars with whiskers and NA notes (see bars.h).
 */
#include "charts/bars.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PAD CHART_MARGIN
#define LEGEND_ROW_H 13.0
#define LEGEND_COL_W 170.0
#define AXIS_H 30.0
#define VALUE_MARGIN 70.0

static double bar_thickness(const struct bars *b) { return b->bar_h > 0 ? b->bar_h : 11.0; }

static double group_height(const struct bars *b)
{
    double bh = bar_thickness(b);
    return (double)b->nser * bh + (b->nser > 1 ? bh * 0.9 : bh * 0.5);
}

static int has_legend(const struct bars *b) { return b->ncat > 1 && b->nser > 1; }

static size_t legend_cols(const struct bars *b, double w)
{
    size_t cols = (size_t)((w - 2 * PAD) / LEGEND_COL_W);
    if (cols < 1)
        cols = 1;
    return cols > b->nser ? b->nser : cols;
}

static double legend_height(const struct bars *b, double w)
{
    if (!has_legend(b))
        return 0;
    size_t cols = legend_cols(b, w);
    return (double)((b->nser + cols - 1) / cols) * LEGEND_ROW_H + 6;
}

static struct chart_heading heading(const struct bars *b)
{
    return (struct chart_heading){CHART_HEADING_FIGURE, b->title, b->subtitle, NULL, NULL};
}

static double head_height(const struct bars *b, double w)
{
    const struct chart_heading head = heading(b);
    return chart_heading_height(&head) + legend_height(b, w);
}

/* The footnote's height: about 4.3 pt a character at 7.5 pt, wrapped. */
static double note_height(const struct bars *b, double w)
{
    if (!b->note || !b->note[0])
        return 0;
    double per_line = (w - 2 * PAD) / 4.3;
    return (floor((double)strlen(b->note) / per_line) + 1) * 10.0 + 4;
}

double bars_height(const struct bars *b, double w)
{
    return head_height(b, w) + (double)b->ncat * group_height(b) + AXIS_H + note_height(b, w) + PAD;
}

void bars_value_axis(const struct bars *b, struct chart_axis *ax, double plot_w)
{
    double lo = 0, hi = 0;
    size_t nvals = b->ncat * b->nser;
    for (size_t i = 0; i < nvals; i++) {
        double vals[3] = {b->v[i], b->lo ? b->lo[i] : NAN, b->hi ? b->hi[i] : NAN};
        for (int k = 0; k < 3; k++)
            if (isfinite(vals[k])) {
                if (vals[k] < lo)
                    lo = vals[k];
                if (vals[k] > hi)
                    hi = vals[k];
            }
    }
    if (hi <= lo)
        hi = lo + 1;
    if (lo < 0) /* room for the labels of negative bars */
        lo -= (hi - lo) * 0.12;
    if (b->percent && lo < -100) /* a speed-up is never below -100% (infinitely slow) */
        lo = -100;
    chart_axis_linear(ax, lo, hi, (int)(plot_w / 70) + 2);
    if (b->percent && ax->lo < -100) {
        size_t k = 0;
        for (size_t t = 0; t < ax->nticks; t++)
            if (ax->ticks[t] >= -100 - 1e-9)
                ax->ticks[k++] = ax->ticks[t];
        ax->nticks = k;
        ax->lo = -100;
    }
}

static const char *label_for(const struct bars *b, size_t cat, size_t ser)
{
    if (b->ncat == 1)
        return b->ser[ser];
    return ser == 0 ? b->cat[cat] : NULL;
}

/* The hover text of bar (cat, ser): its names, value and whisker ends. */
static void bar_hover(struct chart *c, const struct bars *b, size_t ci, size_t s, struct chart_rect band)
{
    size_t i = ci * b->nser + s;
    char name[256], num[64], lo[64], hi[64], ci_text[160] = "";
    if (b->ncat > 1 && b->nser > 1)
        snprintf(name, sizeof(name), "%s, %s", b->cat[ci], b->ser[s]);
    else if (b->ncat == 1 && b->title) /* a panel: its title names the row */
        snprintf(name, sizeof(name), "%s, %s", b->title, b->ser[s]);
    else
        snprintf(name, sizeof(name), "%s", b->ncat == 1 ? b->ser[s] : b->cat[ci]);
    double v = b->v[i];
    if (!isfinite(v)) {
        chart_hover(c, band.x, band.y, band.w, band.h, "%s: %s", name, b->na && b->na[i] ? b->na[i] : "NA");
        return;
    }
    const char *pct = b->percent ? "%" : "";
    chart_format_number(v, b->decimals, num, sizeof(num));
    double wlo = b->lo ? b->lo[i] : NAN, whi = b->hi ? b->hi[i] : NAN;
    if (isfinite(wlo) && isfinite(whi)) {
        chart_format_number(wlo, b->decimals, lo, sizeof(lo));
        chart_format_number(whi, b->decimals, hi, sizeof(hi));
        snprintf(ci_text, sizeof(ci_text), " [%s%s, %s%s]", lo, pct, hi, pct);
    }
    chart_hover(c, band.x, band.y, band.w, band.h, "%s: %s%s%s%s%s%s", name, b->percent && v > 0 ? "+" : "",
                num, pct, !b->percent && b->axis_label ? " " : "", !b->percent && b->axis_label ? b->axis_label : "",
                ci_text);
}

int bars_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct bars *b = data;
    cairo_t *cr = c->cr;
    const struct chart_heading head = heading(b);
    double y = r.y + chart_heading(c, r, &head);
    if (has_legend(b)) {
        size_t cols = legend_cols(b, r.w);
        double colw = (r.w - 2 * PAD) / (double)cols;
        for (size_t s = 0; s < b->nser; s++) {
            double lx = r.x + PAD + (double)(s % cols) * colw, ly = y + (double)(s / cols) * LEGEND_ROW_H;
            chart_rgb(c, b->color[s]);
            cairo_rectangle(cr, lx, ly + 2, 9, 9);
            cairo_fill(cr);
            chart_rgb(c, CHART_INK);
            chart_text(c, CHART_FONT_REGULAR, 8.5, lx + 13, ly + 6.5, 0, 0.5, colw - 16, CHART_ELLIPSIZE,
                       b->ser[s]);
        }
        y += legend_height(b, r.w);
    }

    /* the label column is as wide as the widest label, up to 40% of the chart */
    double label_w = 0;
    for (size_t i = 0; i < (b->ncat == 1 ? b->nser : b->ncat); i++) {
        double tw;
        chart_text_size(c, CHART_FONT_REGULAR, 8.5, 0, 0, b->ncat == 1 ? b->ser[i] : b->cat[i], &tw, NULL);
        if (tw > label_w)
            label_w = tw;
    }
    if (label_w > r.w * 0.4)
        label_w = r.w * 0.4;
    double x0 = r.x + PAD + label_w + 8, x1 = r.x + r.w - PAD - VALUE_MARGIN;
    double plot_top = y, plot_h = (double)b->ncat * group_height(b);
    if (x1 < x0 + 40)
        x1 = x0 + 40;

    /* value axis */
    struct chart_axis ax;
    bars_value_axis(b, &ax, x1 - x0);

    /* grid and tick labels */
    cairo_set_line_width(cr, 0.6);
    for (size_t t = 0; t < ax.nticks; t++) {
        double px = chart_axis_pos(&ax, ax.ticks[t], x0, x1);
        chart_rgb(c, ax.ticks[t] == 0 ? CHART_MUTED : CHART_GRID);
        cairo_move_to(cr, px, plot_top);
        cairo_line_to(cr, px, plot_top + plot_h);
        cairo_stroke(cr);
        char lab[64];
        chart_axis_label(&ax, ax.ticks[t], b->percent, lab, sizeof(lab));
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_REGULAR, 7, px, plot_top + plot_h + 3, 0.5, 0, 0, 0, lab);
    }
    if (b->axis_label) {
        chart_rgb(c, CHART_INK);
        chart_text(c, CHART_FONT_REGULAR, 8.5, (x0 + x1) / 2, plot_top + plot_h + 15, 0.5, 0, 0, 0,
                   b->axis_label);
    }

    double bh = bar_thickness(b), zero = chart_axis_pos(&ax, 0, x0, x1);
    for (size_t ci = 0; ci < b->ncat; ci++) {
        double gy = plot_top + (double)ci * group_height(b) + (group_height(b) - (double)b->nser * bh) / 2;
        if (b->ncat > 1 && b->nser > 1 && ci > 0) { /* separate groups */
            chart_rgb(c, CHART_GRID);
            double sy = plot_top + (double)ci * group_height(b);
            cairo_move_to(cr, r.x + PAD, sy);
            cairo_line_to(cr, x1, sy);
            cairo_stroke(cr);
        }
        if (b->ncat > 1) {
            chart_rgb(c, CHART_INK);
            chart_text(c, CHART_FONT_REGULAR, 8.5, x0 - 8, gy + (double)b->nser * bh / 2, 1, 0.5, label_w,
                       CHART_ELLIPSIZE, b->cat[ci]);
        }
        for (size_t s = 0; s < b->nser; s++) {
            size_t i = ci * b->nser + s;
            double by = gy + (double)s * bh, cy = by + bh / 2;
            const char *lab = label_for(b, ci, s);
            if (b->ncat == 1 && lab) {
                chart_rgb(c, CHART_INK);
                chart_text(c, CHART_FONT_REGULAR, 8.5, x0 - 8, cy, 1, 0.5, label_w, CHART_ELLIPSIZE, lab);
            }
            bar_hover(c, b, ci, s, (struct chart_rect){x0, by, x1 - x0, bh});
            double v = b->v[i];
            if (!isfinite(v)) {
                const char *na = b->na && b->na[i] ? b->na[i] : "NA";
                chart_rgb(c, CHART_NA);
                cairo_rectangle(cr, zero - 0.5, by + 1, 1.5, bh - 2);
                cairo_fill(cr);
                chart_text(c, CHART_FONT_ITALIC, 7, zero + 4, cy, 0, 0.5, 0, 0, na);
                continue;
            }
            double px = chart_axis_pos(&ax, v, x0, x1);
            double left = px < zero ? px : zero, width = fabs(px - zero);
            chart_rgb(c, b->color[s]);
            cairo_rectangle(cr, left, by + 1, width < 0.5 ? 0.5 : width, bh - 2);
            cairo_fill(cr);
            int marked = b->mark && b->mark[i];
            if (marked) {
                chart_rgb(c, CHART_INK);
                cairo_set_line_width(cr, 1.2);
                cairo_rectangle(cr, left, by + 1, width < 0.5 ? 0.5 : width, bh - 2);
                cairo_stroke(cr);
                cairo_set_line_width(cr, 0.6);
            }
            double wlo = b->lo ? b->lo[i] : NAN, whi = b->hi ? b->hi[i] : NAN, end = px;
            if (isfinite(wlo) && isfinite(whi)) {
                double p0 = chart_axis_pos(&ax, wlo, x0, x1), p1 = chart_axis_pos(&ax, whi, x0, x1);
                chart_rgb(c, CHART_INK);
                cairo_set_line_width(cr, 0.9);
                cairo_move_to(cr, p0, cy);
                cairo_line_to(cr, p1, cy);
                cairo_move_to(cr, p0, cy - bh * 0.3);
                cairo_line_to(cr, p0, cy + bh * 0.3);
                cairo_move_to(cr, p1, cy - bh * 0.3);
                cairo_line_to(cr, p1, cy + bh * 0.3);
                cairo_stroke(cr);
                cairo_set_line_width(cr, 0.6);
                if (v >= 0 ? p1 > end : p0 < end)
                    end = v >= 0 ? p1 : p0;
            }
            char num[64], lab2[80];
            chart_format_number(v, b->decimals, num, sizeof(num));
            snprintf(lab2, sizeof(lab2), "%s%s%s", b->percent && v > 0 ? "+" : "", num,
                     b->percent ? "%" : "");
            chart_rgb(c, CHART_INK);
            if (v >= 0)
                chart_text(c, marked ? CHART_FONT_BOLD : CHART_FONT_REGULAR, 7, end + 3, cy, 0, 0.5, 0, 0,
                           lab2);
            else { /* left of the bar, or right of the zero line when the bar reaches the axis' end */
                double lw;
                chart_text_size(c, CHART_FONT_REGULAR, 7, 0, 0, lab2, &lw, NULL);
                int inside = end - 3 - lw < x0;
                chart_text(c, marked ? CHART_FONT_BOLD : CHART_FONT_REGULAR, 7, inside ? zero + 3 : end - 3,
                           cy, inside ? 0 : 1, 0.5, 0, 0, lab2);
            }
        }
    }
    if (b->note && b->note[0]) {
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_REGULAR, 7.5, r.x + PAD, plot_top + plot_h + AXIS_H, 0, 0, r.w - 2 * PAD,
                   CHART_WRAP, b->note);
    }
    return 0;
}
