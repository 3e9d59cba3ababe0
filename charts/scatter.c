/*
 * scatter.c - log-log measured vs published with the diagonal (see scatter.h).
 */
#include "charts/scatter.h"

#include <math.h>
#include <stdio.h>

#define PAD CHART_MARGIN
#define RATIO_H 150.0 /* the ratio panel under the scatter */

static const double dash[] = {3, 3};

static struct chart_heading heading(const struct scatter *s)
{
    return (struct chart_heading){CHART_HEADING_FIGURE, s->title, s->subtitle, NULL, NULL};
}

size_t scatter_guides(const struct scatter *s, const char **labels, size_t cap)
{
    const char *all[] = {"equal (y = x)", "2x slower / 2x faster", "noise band (+/- 2%)"};
    size_t n = s->ratio_label ? 3 : 2;
    for (size_t i = 0; i < n && i < cap; i++)
        labels[i] = all[i];
    return n;
}

/* Hover text of point i: its name, both values and their ratio. */
static void point_hover(struct chart *c, const struct scatter *s, size_t i, double x, double y, double w, double h)
{
    char xs[64], ys[64];
    chart_format_number(s->x[i], 2, xs, sizeof(xs));
    chart_format_number(s->y[i], 2, ys, sizeof(ys));
    const char *group = s->group_label[s->group[i]];
    if (s->point_label && s->point_label[i])
        chart_hover(c, x, y, w, h, "%s, %s: %s %s, %s %s (%.3fx)", s->point_label[i], group, s->x_label, xs,
                    s->y_label, ys, s->y[i] / s->x[i]);
    else
        chart_hover(c, x, y, w, h, "%s: %s %s, %s %s (%.3fx)", group, s->x_label, xs, s->y_label, ys,
                    s->y[i] / s->x[i]);
}

static void ratio_panel(struct chart *c, const struct scatter *s, const struct chart_axis *ax, double x0,
                        double x1, double y0, double y1)
{
    cairo_t *cr = c->cr;
    double m = log(1 / 0.95) * 1.08; /* at least 0.95x to 1.05x: the band and beyond */
    for (size_t i = 0; i < s->n; i++)
        if (s->x[i] > 0 && s->y[i] > 0 && isfinite(s->x[i]) && isfinite(s->y[i]))
            m = fmax(m, fabs(log(s->y[i] / s->x[i])) * 1.15);
    static const double ticks[] = {0.5, 0.67, 0.8, 0.9, 0.95, 0.98, 1, 1.02, 1.05, 1.1, 1.25, 1.5, 2};
#define RY(q) (y1 - (log(q) + m) / (2 * m) * (y1 - y0))
    /* noise band */
    double b = 1 + SCATTER_BAND;
    chart_rgba(c, CHART_INK, 0.08);
    cairo_rectangle(cr, x0, RY(b), x1 - x0, RY(1 / b) - RY(b));
    cairo_fill(cr);
    cairo_set_line_width(cr, 0.5);
    for (size_t t = 0; t < sizeof(ticks) / sizeof(ticks[0]); t++) {
        if (fabs(log(ticks[t])) > m)
            continue;
        double py = RY(ticks[t]);
        chart_rgb(c, ticks[t] == 1 ? CHART_INK : CHART_GRID);
        cairo_move_to(cr, x0, py);
        cairo_line_to(cr, x1, py);
        cairo_stroke(cr);
        char lab[32];
        snprintf(lab, sizeof(lab), "%.2fx", ticks[t]);
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_REGULAR, 7, x0 - 3, py, 1, 0.5, 0, 0, lab);
    }
    for (size_t t = 0; t < ax->nticks; t++) {
        double px = chart_axis_pos(ax, ax->ticks[t], x0, x1);
        chart_rgb(c, CHART_GRID);
        cairo_move_to(cr, px, y0);
        cairo_line_to(cr, px, y1);
        cairo_stroke(cr);
    }
    for (size_t i = 0; i < s->n; i++) {
        if (!(s->x[i] > 0) || !(s->y[i] > 0) || !isfinite(s->x[i]) || !isfinite(s->y[i]))
            continue;
        chart_rgba(c, s->group_color[s->group[i]], 0.85);
        double px = chart_axis_pos(ax, s->x[i], x0, x1), py = RY(s->y[i] / s->x[i]);
        cairo_arc(cr, px, py, 3.0, 0, 2 * M_PI);
        cairo_fill(cr);
        point_hover(c, s, i, px - 4, py - 4, 8, 8);
    }
#undef RY
    chart_rgb(c, CHART_MUTED);
    chart_text(c, CHART_FONT_REGULAR, 7, x1 - 4, y0 + 3, 1, 0, 0, 0, "above 1.00x: slower than published");
    chart_rgb(c, CHART_INK);
    chart_text_rotated(c, CHART_FONT_REGULAR, 8.5, x0 - 40, (y0 + y1) / 2, 0.5, 0, -M_PI / 2, s->ratio_label);
}

int scatter_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct scatter *s = data;
    cairo_t *cr = c->cr;
    const struct chart_heading head = heading(s);
    double y = r.y + chart_heading(c, r, &head);
    double legend_w = 170;
    double lo = INFINITY, hi = 0;
    size_t shown = 0;
    for (size_t i = 0; i < s->n; i++) {
        double v[2] = {s->x[i], s->y[i]};
        if (!(v[0] > 0) || !(v[1] > 0) || !isfinite(v[0]) || !isfinite(v[1]))
            continue;
        shown++;
        for (int k = 0; k < 2; k++) {
            if (v[k] < lo)
                lo = v[k];
            if (v[k] > hi)
                hi = v[k];
        }
    }
    double panel = s->ratio_label ? RATIO_H + 12 : 0;
    double side = fmin(r.w - 2 * PAD - legend_w - 50, r.y + r.h - PAD - 30 - y - panel);
    double x0 = r.x + PAD + 46, x1 = x0 + side, y1 = y + side, y0 = y;
    if (!shown || side < 40) {
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_ITALIC, 7, r.x + r.w / 2, r.y + r.h / 2, 0.5, 0.5, 0, 0,
                   "no cell has both a measured and a published value");
        return 0;
    }
    struct chart_axis ax;
    chart_axis_log(&ax, lo / 1.1, hi * 1.1);
    cairo_set_line_width(cr, 0.5);
    for (size_t t = 0; t < ax.nticks; t++) {
        double px = chart_axis_pos(&ax, ax.ticks[t], x0, x1), py = chart_axis_pos(&ax, ax.ticks[t], y1, y0);
        chart_rgb(c, CHART_GRID);
        cairo_move_to(cr, px, y0);
        cairo_line_to(cr, px, y1);
        cairo_move_to(cr, x0, py);
        cairo_line_to(cr, x1, py);
        cairo_stroke(cr);
        if (ax.nticks > 8 && t % 3 != 0)
            continue;
        char lab[64];
        chart_axis_label(&ax, ax.ticks[t], 0, lab, sizeof(lab));
        chart_rgb(c, CHART_MUTED);
        if (!s->ratio_label) /* with the panel, the x labels go under it */
            chart_text(c, CHART_FONT_REGULAR, 7, px, y1 + 3, 0.5, 0, 0, 0, lab);
        chart_text(c, CHART_FONT_REGULAR, 7, x0 - 3, py, 1, 0.5, 0, 0, lab);
    }
    /* y = x and the 2x bands */
    double f[3] = {1, 2, 0.5};
    for (int k = 0; k < 3; k++) {
        chart_rgb(c, k == 0 ? CHART_INK : CHART_MUTED);
        cairo_set_line_width(cr, k == 0 ? 0.9 : 0.6);
        cairo_set_dash(cr, k == 0 ? NULL : dash, k == 0 ? 0 : 2, 0);
        double a = ax.lo, b = ax.hi;
        double ya = a * f[k], yb = b * f[k];
        if (ya < ax.lo) {
            a = ax.lo / f[k];
            ya = ax.lo;
        }
        if (yb > ax.hi) {
            b = ax.hi / f[k];
            yb = ax.hi;
        }
        cairo_move_to(cr, chart_axis_pos(&ax, a, x0, x1), chart_axis_pos(&ax, ya, y1, y0));
        cairo_line_to(cr, chart_axis_pos(&ax, b, x0, x1), chart_axis_pos(&ax, yb, y1, y0));
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    chart_rgb(c, CHART_MUTED);
    chart_text(c, CHART_FONT_REGULAR, 7, x1 - 4, y0 + 4, 1, 0, 0, 0,
               s->corner_note ? s->corner_note : "above the line: slower than published");
    for (size_t i = 0; i < s->n; i++) {
        if (!(s->x[i] > 0) || !(s->y[i] > 0) || !isfinite(s->x[i]) || !isfinite(s->y[i]))
            continue;
        chart_rgba(c, s->group_color[s->group[i]], 0.85);
        double px = chart_axis_pos(&ax, s->x[i], x0, x1), py = chart_axis_pos(&ax, s->y[i], y1, y0);
        cairo_arc(cr, px, py, 3.2, 0, 2 * M_PI);
        cairo_fill(cr);
        point_hover(c, s, i, px - 4, py - 4, 8, 8);
    }
    double ly1 = y1;
    if (s->ratio_label) {
        ratio_panel(c, s, &ax, x0, x1, y1 + 12, y1 + 12 + RATIO_H);
        ly1 = y1 + 12 + RATIO_H;
        for (size_t t = 0; t < ax.nticks; t++) {
            if (ax.nticks > 8 && t % 3 != 0)
                continue;
            char lab[64];
            chart_axis_label(&ax, ax.ticks[t], 0, lab, sizeof(lab));
            chart_rgb(c, CHART_MUTED);
            chart_text(c, CHART_FONT_REGULAR, 7, chart_axis_pos(&ax, ax.ticks[t], x0, x1), ly1 + 3, 0.5, 0, 0,
                       0, lab);
        }
    }
    chart_rgb(c, CHART_INK);
    chart_text(c, CHART_FONT_REGULAR, 8.5, (x0 + x1) / 2, ly1 + 15, 0.5, 0, 0, 0, s->x_label);
    chart_text_rotated(c, CHART_FONT_REGULAR, 8.5, r.x + PAD, (y0 + y1) / 2, 0.5, 0, -M_PI / 2, s->y_label);
    double lx = x1 + 24, ly = y0 + 4;
    for (size_t g = 0; g < s->ngroups; g++) {
        chart_rgb(c, s->group_color[g]);
        cairo_arc(cr, lx + 4, ly + (double)g * 14 + 6, 3.5, 0, 2 * M_PI);
        cairo_fill(cr);
        chart_rgb(c, CHART_INK);
        chart_text(c, CHART_FONT_REGULAR, 8.5, lx + 12, ly + (double)g * 14 + 6, 0, 0.5, legend_w - 14,
                   CHART_ELLIPSIZE, s->group_label[g]);
    }
    /* the guides: solid diagonal, dashed 2x lines, shaded noise band */
    const char *guides[3];
    size_t ng = scatter_guides(s, guides, 3);
    for (size_t k = 0; k < ng; k++) {
        double gy = ly + (double)(s->ngroups + k) * 14 + 12;
        if (k < 2) {
            chart_rgb(c, k == 0 ? CHART_INK : CHART_MUTED);
            cairo_set_line_width(cr, k == 0 ? 0.9 : 0.6);
            cairo_set_dash(cr, k == 0 ? NULL : dash, k == 0 ? 0 : 2, 0);
            cairo_move_to(cr, lx - 2, gy);
            cairo_line_to(cr, lx + 10, gy);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        } else {
            chart_rgba(c, CHART_INK, 0.12);
            cairo_rectangle(cr, lx - 2, gy - 4, 12, 8);
            cairo_fill(cr);
        }
        chart_rgb(c, CHART_INK);
        chart_text(c, CHART_FONT_REGULAR, 8.5, lx + 12, gy, 0, 0.5, legend_w - 14, CHART_ELLIPSIZE, guides[k]);
    }
    return 0;
}
