/*
 * distribution.c - histogram of a cell's timed steps with its statistics (see distribution.h).
 */
#include "charts/distribution.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PAD CHART_PANEL_MARGIN
#define MAX_BINS 40
#define OUT_W 52.0 /* room beside the bins for the steps beyond the fences */

static void vline(struct chart *c, double x, double y0, double y1, unsigned rgb, const double *dash,
                  int ndash, double width)
{
    chart_rgb(c, rgb);
    cairo_set_line_width(c->cr, width);
    cairo_set_dash(c->cr, dash, ndash, 0);
    cairo_move_to(c->cr, x, y0);
    cairo_line_to(c->cr, x, y1);
    cairo_stroke(c->cr);
    cairo_set_dash(c->cr, NULL, 0, 0);
}

static int inside(const struct chart_axis *ax, double v) { return isfinite(v) && v >= ax->lo && v <= ax->hi; }

/* The steps beyond the fences: a broken edge and "N at X ms" beside the bins. */
static void outliers(struct chart *c, const char *name, double x0, double x1, double y0,
                     double y1, size_t nlow, double lowest, size_t nhigh, double highest)
{
    for (int side = 0; side < 2; side++) {
        size_t k = side ? nhigh : nlow;
        if (!k)
            continue;
        double v = side ? highest : lowest, ex = side ? x1 + 4 : x0 - 4;
        char num[64], lab[96];
        chart_format_number(v, v >= 100 ? 0 : 2, num, sizeof(num));
        snprintf(lab, sizeof(lab), "%zu %s", k, side ? "above" : "below");
        chart_rgb(c, CHART_MUTED);
        cairo_set_line_width(c->cr, 0.6);
        for (int j = 0; j < 2; j++) { /* the axis break */
            cairo_move_to(c->cr, ex - 3 + 2.5 * j - 1.5, y1 + 3);
            cairo_line_to(c->cr, ex - 3 + 2.5 * j + 1.5, y1 - 3);
        }
        cairo_stroke(c->cr);
        double tx = side ? x1 + OUT_W / 2 + 2 : x0 - OUT_W / 2 - 2;
        chart_rgba(c, CHART_MUTED, 0.85);
        cairo_rectangle(c->cr, tx - 1.5, y1 - (y1 - y0) * 0.25, 3, (y1 - y0) * 0.25);
        cairo_fill(c->cr);
        chart_hover(c, tx - OUT_W / 2, y0, OUT_W, y1 - y0, "%s%s%zu step%s %s the outlier fence, %s %s ms",
                    name ? name : "", name ? ": " : "", k,
                    k == 1 ? "" : "s", side ? "above" : "below", side ? "max" : "min", num);
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_REGULAR, 6.5, tx, y1 - (y1 - y0) * 0.25 - 1, 0.5, 1, 0, 0, lab);
        snprintf(lab, sizeof(lab), "%s%s", side ? "max " : "min ", num);
        chart_text(c, CHART_FONT_REGULAR, 7, tx, y1 + 2, 0.5, 0, 0, 0, lab);
    }
}

int distribution_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct distribution *d = data;
    cairo_t *cr = c->cr;
    const struct chart_heading head = {CHART_HEADING_PANEL, d->title, NULL, d->note, d->warning};
    double y = r.y + chart_heading(c, r, &head);
    double x0 = r.x + PAD + 4, x1 = r.x + r.w - PAD - 4, y0 = y + 4, y1 = r.y + r.h - PAD - 12;
    if (d->n == 0 || y1 - y0 < 10) {
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_ITALIC, 7, (x0 + x1) / 2, (y0 + y1) / 2, 0.5, 0.5, 0, 0, "no timed steps");
        return 0;
    }
    /* the bins span the steps inside the outlier fences: one far step must
     * not squeeze the others into a single bar; it is counted on the edge */
    double flo, fhi, lo = INFINITY, hi = -INFINITY;
    int err = chart_fences(d->ms, d->n, &flo, &fhi);
    if (err < 0)
        return err;
    for (size_t i = 0; i < d->n; i++) {
        if (d->ms[i] < flo || d->ms[i] > fhi)
            continue;
        if (d->ms[i] < lo)
            lo = d->ms[i];
        if (d->ms[i] > hi)
            hi = d->ms[i];
    }
    size_t nlow = 0, nhigh = 0;
    double lowest = lo, highest = hi;
    for (size_t i = 0; i < d->n; i++) {
        if (d->ms[i] < flo) {
            nlow++;
            lowest = d->ms[i] < lowest ? d->ms[i] : lowest;
        } else if (d->ms[i] > fhi) {
            nhigh++;
            highest = d->ms[i] > highest ? d->ms[i] : highest;
        }
    }
    if (nhigh)
        x1 -= OUT_W;
    if (nlow)
        x0 += OUT_W;
    struct chart_axis ax;
    chart_axis_linear(&ax, lo, hi, (int)((x1 - x0) / 60) + 2);
    /* Rice rule, capped: enough bins to show shape, few enough for 100 steps */
    size_t nbins = (size_t)ceil(2.0 * cbrt((double)d->n));
    if (nbins < 5)
        nbins = 5;
    if (nbins > MAX_BINS)
        nbins = MAX_BINS;
    size_t counts[MAX_BINS] = {0}, maxc = 0;
    double bw = (ax.hi - ax.lo) / (double)nbins;
    for (size_t i = 0; i < d->n; i++) {
        if (d->ms[i] < flo || d->ms[i] > fhi)
            continue;
        long b = (long)((d->ms[i] - ax.lo) / bw);
        if (b < 0)
            b = 0;
        if (b >= (long)nbins)
            b = (long)nbins - 1;
        if (++counts[b] > maxc)
            maxc = counts[b];
    }
    /* CI band behind the bars */
    if (inside(&ax, d->ci_lo) && inside(&ax, d->ci_hi)) {
        double p0 = chart_axis_pos(&ax, d->ci_lo, x0, x1), p1 = chart_axis_pos(&ax, d->ci_hi, x0, x1);
        chart_rgba(c, CHART_INK, 0.10);
        cairo_rectangle(cr, p0, y0, p1 - p0 < 0.8 ? 0.8 : p1 - p0, y1 - y0);
        cairo_fill(cr);
    }
    for (size_t b = 0; b < nbins; b++) {
        if (!counts[b])
            continue;
        double bx0 = chart_axis_pos(&ax, ax.lo + bw * (double)b, x0, x1);
        double bx1 = chart_axis_pos(&ax, ax.lo + bw * (double)(b + 1), x0, x1);
        double bh = (y1 - y0) * (double)counts[b] / (double)maxc;
        chart_rgba(c, d->color, 0.85);
        cairo_rectangle(cr, bx0 + 0.4, y1 - bh, bx1 - bx0 - 0.8, bh);
        cairo_fill(cr);
        char b0[64], b1[64];
        chart_format_number(ax.lo + bw * (double)b, 2, b0, sizeof(b0));
        chart_format_number(ax.lo + bw * (double)(b + 1), 2, b1, sizeof(b1));
        chart_hover(c, bx0, y0, bx1 - bx0, y1 - y0, "%s%s%zu step%s from %s to %s ms", d->name ? d->name : "",
                    d->name ? ": " : "", counts[b],
                    counts[b] == 1 ? "" : "s", b0, b1);
    }
    if (nlow || nhigh)
        outliers(c, d->name, x0, x1, y0, y1, nlow, lowest, nhigh, highest);
    static const double dashed[] = {3, 2}, dotted[] = {1, 2};
    if (inside(&ax, d->p5))
        vline(c, chart_axis_pos(&ax, d->p5, x0, x1), y0, y1, CHART_MUTED, dotted, 2, 0.9);
    if (inside(&ax, d->p95))
        vline(c, chart_axis_pos(&ax, d->p95, x0, x1), y0, y1, CHART_MUTED, dotted, 2, 0.9);
    if (inside(&ax, d->median))
        vline(c, chart_axis_pos(&ax, d->median, x0, x1), y0, y1, CHART_INK, dashed, 2, 0.9);
    if (inside(&ax, d->mean))
        vline(c, chart_axis_pos(&ax, d->mean, x0, x1), y0, y1, CHART_INK, NULL, 0, 1.3);
    /* baseline and ticks */
    chart_rgb(c, CHART_MUTED);
    cairo_set_line_width(cr, 0.6);
    cairo_move_to(cr, x0, y1);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
    for (size_t t = 0; t < ax.nticks; t++) {
        double px = chart_axis_pos(&ax, ax.ticks[t], x0, x1);
        char lab[64];
        chart_axis_label(&ax, ax.ticks[t], 0, lab, sizeof(lab));
        chart_text(c, CHART_FONT_REGULAR, 7, px, y1 + 2, 0.5, 0, 0, 0, lab);
    }
    return 0;
}
