/*
 * trend.c - small multiples of one measure across runs (see trend.h).
 *
 * Each panel has its own y range: cells differ by orders of magnitude, and a
 * shared axis would flatten every cell but the slowest into a line.
 */
#include "charts/trend.h"

#include <math.h>
#include <stdio.h>

#define PAD CHART_MARGIN
#define KEY_H 14.0
#define PANEL_H 132.0
#define PANEL_TITLE_H 14.0
#define LEFT 46.0   /* y tick labels and the axis name */
#define BOTTOM 16.0 /* x labels */
#define MAX_VALUE_LABELS 6

/* Panels keep their width however many there are, so a figure's last,
 * shorter row looks like the others. */
static size_t ncols(const struct trend *t) { return t->cols ? t->cols : 3; }

static struct chart_heading heading(const struct trend *t)
{
    return (struct chart_heading){CHART_HEADING_FIGURE, t->title, t->subtitle, NULL, NULL};
}

static double head_height(const struct trend *t)
{
    const struct chart_heading head = heading(t);
    return chart_heading_height(&head) + (t->key ? KEY_H : 0);
}

double trend_height(const struct trend *t)
{
    size_t cols = ncols(t), rows = (t->nseries + cols - 1) / cols;
    return head_height(t) + (double)(rows ? rows : 1) * PANEL_H + PAD;
}

static double at(const double *v, size_t i) { return v ? v[i] : NAN; }

/* Enough digits to tell close values apart, whatever their magnitude. */
static int value_decimals(double v)
{
    v = fabs(v);
    return v >= 100 ? 1 : v >= 10 ? 2 : v >= 1 ? 3 : 4;
}

/* The value a relative chart plots: the change from the series' reference
 * (its first value, the baseline's when it has one), in percent. */
static double ref_of(const struct trend *t, const struct trend_series *s)
{
    for (size_t i = 0; i < t->npoints; i++)
        if (isfinite(s->v[i]) && s->v[i] > 0)
            return s->v[i];
    return NAN;
}

static double shown(const struct trend *t, double ref, double v)
{
    return t->relative ? (v / ref - 1) * 100 : v;
}

int trend_shared_axis(const struct trend *t, struct chart_axis *ay)
{
    double lo = 0, hi = 0;
    for (size_t k = 0; k < t->nseries; k++) {
        const struct trend_series *s = &t->series[k];
        double ref = ref_of(t, s);
        for (size_t i = 0; i < t->npoints && isfinite(ref); i++) {
            double vals[3] = {s->v[i], at(s->lo, i), at(s->hi, i)};
            if (!isfinite(vals[0]))
                continue;
            for (int j = 0; j < 3; j++)
                if (isfinite(vals[j])) {
                    double y = shown(t, ref, vals[j]);
                    lo = y < lo ? y : lo;
                    hi = y > hi ? y : hi;
                }
        }
    }
    /* at least +/-5%, so the noise band never fills the panel */
    lo = lo > -5 ? -5 : lo;
    hi = hi < 5 ? 5 : hi;
    chart_axis_linear(ay, lo - (hi - lo) * 0.08, hi + (hi - lo) * 0.08, 5);
    return 0;
}

static void panel(struct chart *c, const struct trend *t, const struct trend_series *s, struct chart_rect r,
                  const struct chart_axis *shared)
{
    cairo_t *cr = c->cr;
    chart_rgb(c, CHART_INK);
    chart_text(c, CHART_FONT_BOLD, 8.5, r.x + 4, r.y + 2, 0, 0, r.w - 8, CHART_ELLIPSIZE, s->label);
    double x0 = r.x + LEFT, x1 = r.x + r.w - 10, y0 = r.y + PANEL_TITLE_H + 10, y1 = r.y + r.h - BOTTOM - 8;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < t->npoints; i++) {
        double vals[3] = {s->v[i], at(s->lo, i), at(s->hi, i)};
        if (!isfinite(vals[0]))
            continue;
        for (int k = 0; k < 3; k++)
            if (isfinite(vals[k])) {
                lo = vals[k] < lo ? vals[k] : lo;
                hi = vals[k] > hi ? vals[k] : hi;
            }
    }
    double dx = t->npoints > 1 ? (x1 - x0 - 24) / (double)(t->npoints - 1) : 0;
#define PX(i) (t->npoints > 1 ? x0 + 12 + dx * (double)(i) : (x0 + x1) / 2)
    /* x labels first: a panel without values still shows its runs */
    chart_rgb(c, CHART_MUTED);
    cairo_set_line_width(cr, 0.6);
    cairo_move_to(cr, x0, y1);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
    for (size_t i = 0; i < t->npoints; i++)
        chart_text(c, CHART_FONT_REGULAR, 7, PX(i), y1 + 3, 0.5, 0, dx > 0 ? dx : 0, CHART_ELLIPSIZE,
                   t->point_label[i]);
    if (!isfinite(lo)) {
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_ITALIC, 7, (x0 + x1) / 2, (y0 + y1) / 2, 0.5, 0.5, 0, 0, "no values");
        lo = 0;
        hi = 1;
    }
    double span = hi - lo > 0 ? hi - lo : fabs(hi) * 0.02 + 1e-9;
    struct chart_axis ay;
    if (shared)
        ay = *shared;
    else
        chart_axis_linear(&ay, lo - span * 0.15, hi + span * 0.15, 4);
    double ref = ref_of(t, s);
#define PY(v) chart_axis_pos(&ay, shown(t, ref, (v)), y1, y0)
    cairo_set_line_width(cr, 0.5);
    for (size_t k = 0; k < ay.nticks; k++) {
        double py = chart_axis_pos(&ay, ay.ticks[k], y1, y0);
        char lab[64];
        chart_rgb(c, CHART_GRID);
        cairo_move_to(cr, x0, py);
        cairo_line_to(cr, x1, py);
        cairo_stroke(cr);
        chart_axis_label(&ay, ay.ticks[k], t->relative, lab, sizeof(lab));
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_REGULAR, 6.5, x0 - 3, py, 1, 0.5, 0, 0, lab);
    }
    if (t->axis_label) {
        chart_rgb(c, CHART_MUTED);
        chart_text_rotated(c, CHART_FONT_REGULAR, 6.5, r.x + 6, (y0 + y1) / 2, 0.5, 0, -M_PI / 2,
                           t->axis_label);
    }
    if (t->npoints > 0 && isfinite(s->v[0])) { /* the baseline, across the panel */
        static const double dash[] = {3, 2};
        double py = PY(s->v[0]);
        chart_rgb(c, CHART_MUTED);
        cairo_set_line_width(cr, 0.7);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, x0, py);
        cairo_line_to(cr, x1, py);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    chart_rgb(c, t->color);
    cairo_set_line_width(cr, 1.1);
    for (size_t i = 1; i < t->npoints; i++) {
        if (!isfinite(s->v[i - 1]) || !isfinite(s->v[i]))
            continue; /* a gap where a run has no value: no line pretends there is one */
        cairo_move_to(cr, PX(i - 1), PY(s->v[i - 1]));
        cairo_line_to(cr, PX(i), PY(s->v[i]));
    }
    cairo_stroke(cr);
    for (size_t i = 0; i < t->npoints; i++) {
        double v = s->v[i], px = PX(i), hw = dx > 0 ? dx / 2 : (x1 - x0) / 2;
        const char *pl = t->point_label ? t->point_label[i] : "";
        if (!isfinite(v)) {
            const char *na = s->na && s->na[i] ? s->na[i] : "NA";
            chart_hover(c, px - hw, y0, 2 * hw, y1 - y0, "%s, %s: %s", s->label, pl, na);
            chart_rgb(c, CHART_NA);
            chart_text(c, CHART_FONT_ITALIC, 6.5, px, y1 - 4, 0.5, 1, dx > 0 ? dx : x1 - x0, CHART_ELLIPSIZE,
                       na);
            continue;
        }
        double py = PY(v), wlo = at(s->lo, i), whi = at(s->hi, i);
        chart_rgb(c, t->color);
        if (isfinite(wlo) && isfinite(whi)) {
            double p0 = PY(wlo), p1 = PY(whi);
            cairo_set_line_width(cr, 0.9);
            cairo_move_to(cr, px, p0);
            cairo_line_to(cr, px, p1);
            cairo_move_to(cr, px - 2.5, p0);
            cairo_line_to(cr, px + 2.5, p0);
            cairo_move_to(cr, px - 2.5, p1);
            cairo_line_to(cr, px + 2.5, p1);
            cairo_stroke(cr);
        }
        cairo_new_sub_path(cr);
        cairo_arc(cr, px, py, 2.6, 0, 2 * M_PI);
        cairo_fill(cr);
        char num[64], change[64] = "";
        chart_format_number(v, value_decimals(v), num, sizeof(num));
        if (isfinite(ref) && i > 0)
            snprintf(change, sizeof(change), " (%+.1f%%)", (v / ref - 1) * 100);
        chart_hover(c, px - hw, y0, 2 * hw, y1 - y0, "%s, %s: %s%s%s%s", s->label, pl, num, t->value_unit ? " " : "",
                    t->value_unit ? t->value_unit : "", change);
        if (t->npoints <= MAX_VALUE_LABELS) {
            char lab[64];
            chart_format_number(v, value_decimals(v), lab, sizeof(lab));
            int last = i + 1 == t->npoints && t->npoints > 1; /* keep the last label inside the panel */
            chart_rgb(c, CHART_INK);
            chart_text(c, CHART_FONT_REGULAR, 6.5, last ? px - 4 : px + 4, py - 3, last ? 1 : 0, 1, 0, 0,
                       lab);
        }
    }
#undef PY
#undef PX
}

int trend_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct trend *t = data;
    const struct chart_heading head = heading(t);
    double y = r.y + chart_heading(c, r, &head);
    if (t->key) {
        chart_rgb(c, CHART_INK);
        chart_text(c, CHART_FONT_REGULAR, 8, r.x + PAD, y, 0, 0, r.w - 2 * PAD, CHART_ELLIPSIZE, t->key);
        y += KEY_H;
    }
    size_t cols = ncols(t);
    double pw = (r.w - 2 * PAD) / (double)cols;
    struct chart_axis shared;
    if (t->relative)
        trend_shared_axis(t, &shared);
    for (size_t i = 0; i < t->nseries; i++) {
        struct chart_rect p = {r.x + PAD + pw * (double)(i % cols), y + PANEL_H * (double)(i / cols), pw,
                               PANEL_H};
        panel(c, t, &t->series[i], p, t->relative ? &shared : NULL);
        if (i % cols != 0) { /* a rule between panels of a row */
            chart_rgb(c, CHART_GRID);
            cairo_set_line_width(c->cr, 0.6);
            cairo_move_to(c->cr, p.x, p.y + 4);
            cairo_line_to(c->cr, p.x, p.y + p.h - 4);
            cairo_stroke(c->cr);
        }
    }
    return 0;
}
