/*
 * forest.c - estimates with confidence intervals on a log ratio axis (see forest.h).
 *
 * Ratios are drawn on a log axis so that 0.8 and 1.25 sit equally far from 1:
 * "20% faster" and "25% slower" are the same factor. Over a narrow range the
 * ticks are the plain decimal steps of a linear axis (0.95, 1.00, 1.05) placed
 * logarithmically, which reads better than 1-2-5 decades that would leave a
 * +/-10% comparison with two ticks.
 */
#include "charts/forest.h"

#include <math.h>
#include <stdio.h>

#define PAD CHART_MARGIN
#define LEGEND_H 15.0
#define ROW_H 14.0
#define SUMMARY_GAP 6.0
#define AXIS_H 32.0
#define LABEL_SIZE 8.0
#define VALUE_SIZE 7.5

static int has_summary(const struct forest *f)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->rows[i].summary)
            return 1;
    return 0;
}

static struct chart_heading heading(const struct forest *f)
{
    return (struct chart_heading){CHART_HEADING_FIGURE, f->title, f->subtitle, NULL, NULL};
}

static double head_height(const struct forest *f)
{
    const struct chart_heading head = heading(f);
    return chart_heading_height(&head) + (f->nlegend ? LEGEND_H : 0) + 4;
}

double forest_height(const struct forest *f)
{
    return head_height(f) + (double)f->n * ROW_H + (has_summary(f) ? SUMMARY_GAP : 0) + AXIS_H + PAD;
}

static void widen(double v, double *lo, double *hi)
{
    if (!(v > 0) || !isfinite(v))
        return;
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

/* The drawn range and ticks; *dec < 0 means "label the ticks as a log axis does". */
static void ratio_axis(const struct forest *f, double plot_w, struct chart_axis *ax, int *dec)
{
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < f->n; i++) {
        widen(f->rows[i].est, &lo, &hi);
        if (isfinite(f->rows[i].est)) {
            widen(f->rows[i].lo, &lo, &hi);
            widen(f->rows[i].hi, &lo, &hi);
        }
    }
    double ref = f->ref > 0 ? f->ref : 1;
    widen(ref, &lo, &hi);
    widen(f->band_lo, &lo, &hi);
    widen(f->band_hi, &lo, &hi);
    double llo = log(lo), lhi = log(hi), span = lhi - llo;
    if (span < 0.04) { /* at least +/-2% around the data */
        llo -= (0.04 - span) / 2;
        lhi += (0.04 - span) / 2;
        span = 0.04;
    }
    lo = exp(llo - span * 0.06);
    hi = exp(lhi + span * 0.06);
    *dec = -1;
    if (hi / lo <= 4) {
        struct chart_axis lin;
        chart_axis_linear(&lin, lo, hi, (int)(plot_w / 55) + 2);
        if (lin.lo > 0) {
            *ax = lin;
            ax->log = 1;
            *dec = lin.decimals;
            return;
        }
    }
    chart_axis_log(ax, lo, hi);
}

static double clamp(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

static void legend(struct chart *c, const struct forest *f, double x, double y, double max_x)
{
    for (size_t i = 0; i < f->nlegend && x < max_x; i++) {
        chart_rgb(c, f->legend_color[i]);
        cairo_new_sub_path(c->cr);
        cairo_arc(c->cr, x + 3.5, y + 6, 3.2, 0, 2 * M_PI);
        cairo_fill(c->cr);
        chart_rgb(c, CHART_INK);
        x += 10 + chart_text(c, CHART_FONT_REGULAR, 8, x + 10, y + 6, 0, 0.5, max_x - x - 10, CHART_ELLIPSIZE,
                             f->legend_label[i]);
        x += 14;
    }
}

static void diamond(cairo_t *cr, double x, double y, double r)
{
    cairo_move_to(cr, x - r * 1.3, y);
    cairo_line_to(cr, x, y - r);
    cairo_line_to(cr, x + r * 1.3, y);
    cairo_line_to(cr, x, y + r);
    cairo_close_path(cr);
    cairo_fill(cr);
}

int forest_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct forest *f = data;
    cairo_t *cr = c->cr;
    const struct chart_heading head = heading(f);
    double y = r.y + chart_heading(c, r, &head);
    if (f->nlegend) {
        legend(c, f, r.x + PAD, y, r.x + r.w - PAD);
        y += LEGEND_H;
    }
    y += 4;

    /* columns: labels as wide as the widest (at most 34%), values likewise (at most 32%) */
    double label_w = 0, value_w = 0;
    for (size_t i = 0; i < f->n; i++) {
        const struct forest_row *row = &f->rows[i];
        double w, tw = 0;
        chart_text_size(c, row->summary ? CHART_FONT_BOLD : CHART_FONT_REGULAR, LABEL_SIZE, 0, 0, row->label,
                        &w, NULL);
        if (w > label_w)
            label_w = w;
        if (!isfinite(row->est))
            continue;
        chart_text_size(c, CHART_FONT_REGULAR, VALUE_SIZE, 0, 0, row->value, &w, NULL);
        if (row->tag)
            chart_text_size(c, CHART_FONT_BOLD, VALUE_SIZE, 0, 0, row->tag, &tw, NULL);
        if (w + tw + 5 > value_w)
            value_w = w + tw + 5;
    }
    if (label_w > r.w * 0.34)
        label_w = r.w * 0.34;
    if (value_w > r.w * 0.32)
        value_w = r.w * 0.32;
    double x0 = r.x + PAD + label_w + 10, x1 = r.x + r.w - PAD - value_w - 14;
    if (x1 < x0 + 60)
        x1 = x0 + 60;
    double top = y, summary_gap = has_summary(f) ? SUMMARY_GAP : 0;
    double bottom = top + (double)f->n * ROW_H + summary_gap;

    struct chart_axis ax;
    int dec;
    ratio_axis(f, x1 - x0, &ax, &dec);
#define POS(v) chart_axis_pos(&ax, clamp((v), ax.lo, ax.hi), x0, x1)

    /* zebra rows, so a label finds its interval */
    double gap = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (f->rows[i].summary && gap == 0)
            gap = summary_gap;
        if (i % 2 == 0) {
            chart_rgb(c, 0xF6F6F6);
            cairo_rectangle(cr, r.x + PAD, top + gap + (double)i * ROW_H, r.w - 2 * PAD, ROW_H);
            cairo_fill(cr);
        }
    }
    if (isfinite(f->band_lo) && isfinite(f->band_hi) && f->band_hi > f->band_lo) {
        double b0 = POS(f->band_lo), b1 = POS(f->band_hi);
        chart_rgba(c, 0x8C8C8C, 0.20);
        cairo_rectangle(cr, b0, top, b1 - b0 < 0.8 ? 0.8 : b1 - b0, bottom - top);
        cairo_fill(cr);
    }
    cairo_set_line_width(cr, 0.5);
    for (size_t t = 0; t < ax.nticks; t++) {
        double px = POS(ax.ticks[t]);
        chart_rgb(c, CHART_GRID);
        cairo_move_to(cr, px, top);
        cairo_line_to(cr, px, bottom);
        cairo_stroke(cr);
        char lab[64];
        if (dec >= 0)
            chart_format_number(ax.ticks[t], dec, lab, sizeof(lab));
        else
            chart_axis_label(&ax, ax.ticks[t], 0, lab, sizeof(lab));
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_REGULAR, 7, px, bottom + 3, 0.5, 0, 0, 0, lab);
    }
    double ref = f->ref > 0 ? f->ref : 1;
    chart_rgb(c, CHART_INK);
    cairo_set_line_width(cr, 0.9);
    cairo_move_to(cr, POS(ref), top);
    cairo_line_to(cr, POS(ref), bottom);
    cairo_stroke(cr);
    chart_rgb(c, CHART_MUTED);
    cairo_set_line_width(cr, 0.6);
    cairo_move_to(cr, x0, bottom);
    cairo_line_to(cr, x1, bottom);
    cairo_stroke(cr);
    if (f->axis_label) {
        chart_rgb(c, CHART_INK);
        chart_text(c, CHART_FONT_REGULAR, 8, (x0 + x1) / 2, bottom + 15, 0.5, 0, 0, 0, f->axis_label);
    }

    gap = 0;
    for (size_t i = 0; i < f->n; i++) {
        const struct forest_row *row = &f->rows[i];
        if (row->summary && gap == 0) {
            gap = summary_gap;
            double ry = top + (double)i * ROW_H + gap / 2;
            chart_rgb(c, CHART_MUTED);
            cairo_set_line_width(cr, 0.8);
            cairo_move_to(cr, r.x + PAD, ry);
            cairo_line_to(cr, r.x + r.w - PAD, ry);
            cairo_stroke(cr);
        }
        double cy = top + gap + (double)i * ROW_H + ROW_H / 2;
        chart_rgb(c, CHART_INK);
        chart_text(c, row->summary ? CHART_FONT_BOLD : CHART_FONT_REGULAR, LABEL_SIZE, x0 - 10, cy, 1, 0.5,
                   label_w, CHART_ELLIPSIZE, row->label);
        /* hover: the row's label, its value text (or estimate) and tag */
        if (!isfinite(row->est))
            chart_hover(c, x0, cy - ROW_H / 2, x1 - x0, ROW_H, "%s: %s", row->label, row->na ? row->na : "NA");
        else if (row->value)
            chart_hover(c, x0, cy - ROW_H / 2, x1 - x0, ROW_H, "%s: %s%s%s", row->label, row->value,
                        row->tag ? " " : "", row->tag ? row->tag : "");
        else
            chart_hover(c, x0, cy - ROW_H / 2, x1 - x0, ROW_H, "%s: %.4g%s%s", row->label, row->est,
                        row->tag ? " " : "", row->tag ? row->tag : "");
        if (!isfinite(row->est)) {
            chart_rgb(c, CHART_MUTED);
            chart_text(c, CHART_FONT_ITALIC, 7, x0 + 4, cy, 0, 0.5, r.x + r.w - PAD - x0 - 4, CHART_ELLIPSIZE,
                       row->na ? row->na : "NA");
            continue;
        }
        chart_rgb(c, row->color);
        if (isfinite(row->lo) && isfinite(row->hi)) {
            double p0 = POS(row->lo), p1 = POS(row->hi);
            cairo_set_line_width(cr, 1.2);
            cairo_move_to(cr, p0, cy);
            cairo_line_to(cr, p1, cy);
            cairo_move_to(cr, p0, cy - 3);
            cairo_line_to(cr, p0, cy + 3);
            cairo_move_to(cr, p1, cy - 3);
            cairo_line_to(cr, p1, cy + 3);
            cairo_stroke(cr);
        }
        if (row->summary) {
            diamond(cr, POS(row->est), cy, 4.0);
        } else {
            cairo_new_sub_path(cr);
            cairo_arc(cr, POS(row->est), cy, 2.8, 0, 2 * M_PI);
            cairo_fill(cr);
        }
        double vx = x1 + 14;
        if (row->value) {
            chart_rgb(c, CHART_INK);
            vx += chart_text(c, CHART_FONT_REGULAR, VALUE_SIZE, vx, cy, 0, 0.5, 0, 0, row->value) + 5;
        }
        if (row->tag) {
            chart_rgb(c, row->color);
            chart_text(c, CHART_FONT_BOLD, VALUE_SIZE, vx, cy, 0, 0.5, r.x + r.w - PAD - vx, CHART_ELLIPSIZE,
                       row->tag);
        }
    }
#undef POS
    return 0;
}
