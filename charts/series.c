/*
 * series.c - step times in execution order, warm-up and compile time included (see series.h).
 */
#include "charts/series.h"

#include <math.h>
#include <stdio.h>

#define PAD 6.0
#define WARMUP_COLOR 0xD55E00u
/* beyond this max/min ratio a linear axis flattens the timed steps into a line */
#define LOG_THRESHOLD 8.0

int series_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct series *s = data;
    cairo_t *cr = c->cr;
    double y = r.y + PAD;
    if (s->title) {
        chart_rgb(c, CHART_INK);
        chart_text(c, CHART_FONT_BOLD, 8.5, r.x + PAD, y, 0, 0, r.w - 2 * PAD, CHART_ELLIPSIZE, s->title);
        y += 12;
    }
    size_t n = s->nwarmup + s->ntimed;
    double x0 = r.x + PAD + 34, x1 = r.x + r.w - PAD - 2, y0 = y + 12, y1 = r.y + r.h - PAD - 12;
    if (n == 0 || y1 - y0 < 10) {
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_ITALIC, 7, (x0 + x1) / 2, (y0 + y1) / 2, 0.5, 0.5, 0, 0,
                   "no steps recorded");
        return 0;
    }
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) {
        double v = i < s->nwarmup ? s->warmup[i] : s->timed[i - s->nwarmup];
        if (v < lo)
            lo = v;
        if (v > hi)
            hi = v;
    }
    struct chart_axis ay;
    if (lo > 0 && hi / lo > LOG_THRESHOLD)
        chart_axis_log(&ay, lo, hi);
    else
        chart_axis_linear(&ay, lo > 0 && (hi - lo) < lo ? lo - (hi - lo) * 0.1 : 0, hi, 4);
    /* grid and y labels */
    cairo_set_line_width(cr, 0.5);
    for (size_t t = 0; t < ay.nticks; t++) {
        double py = chart_axis_pos(&ay, ay.ticks[t], y1, y0);
        chart_rgb(c, CHART_GRID);
        cairo_move_to(cr, x0, py);
        cairo_line_to(cr, x1, py);
        cairo_stroke(cr);
        if (ay.log && ay.nticks > 8 && t % 3 != 0)
            continue;
        char lab[64];
        chart_axis_label(&ay, ay.ticks[t], 0, lab, sizeof(lab));
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_REGULAR, 7, x0 - 3, py, 1, 0.5, 0, 0, lab);
    }
    double dx = n > 1 ? (x1 - x0) / (double)(n - 1) : 0;
#define PX(i) (n > 1 ? x0 + dx * (double)(i) : (x0 + x1) / 2)
    /* warm-up region */
    if (s->nwarmup > 0) {
        double wx = s->ntimed ? (PX(s->nwarmup - 1) + PX(s->nwarmup)) / 2 : x1;
        chart_rgba(c, WARMUP_COLOR, 0.08);
        cairo_rectangle(cr, x0 - 2, y0, wx - x0 + 2, y1 - y0);
        cairo_fill(cr);
        static const double dash[] = {3, 2};
        chart_rgb(c, WARMUP_COLOR);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, wx, y0);
        cairo_line_to(cr, wx, y1);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    /* timed steps */
    if (s->ntimed) {
        chart_rgb(c, s->color);
        cairo_set_line_width(cr, 0.9);
        for (size_t i = 0; i < s->ntimed; i++) {
            double px = PX(s->nwarmup + i), py = chart_axis_pos(&ay, s->timed[i], y1, y0);
            if (i == 0)
                cairo_move_to(cr, px, py);
            else
                cairo_line_to(cr, px, py);
        }
        cairo_stroke(cr);
        /* dots only where they add something: beyond a few dozen steps the
         * line says it all, and every dot costs a path in the SVG and PDF */
        if (s->ntimed <= 40) {
            for (size_t i = 0; i < s->ntimed; i++) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, PX(s->nwarmup + i), chart_axis_pos(&ay, s->timed[i], y1, y0), 1.3, 0, 2 * M_PI);
            }
            cairo_fill(cr);
        }
    }
    /* warm-up steps, the first one labelled with the compile / first-call time */
    chart_rgb(c, WARMUP_COLOR);
    for (size_t i = 0; i < s->nwarmup; i++) {
        cairo_new_sub_path(cr);
        cairo_arc(cr, PX(i), chart_axis_pos(&ay, s->warmup[i], y1, y0), 2.0, 0, 2 * M_PI);
    }
    cairo_fill(cr);
    if (s->nwarmup > 0) {
        char num[64], lab[128];
        chart_format_number(s->warmup[0], s->warmup[0] >= 100 ? 0 : 2, num, sizeof(num));
        snprintf(lab, sizeof(lab), "first call (compile): %s ms", num);
        chart_text(c, CHART_FONT_REGULAR, 7, x0 + 2, y0 - 2, 0, 1, 0, 0, lab);
    }
    if (isfinite(s->mean) && s->ntimed) {
        static const double dash[] = {4, 2};
        double py = chart_axis_pos(&ay, s->mean, y1, y0);
        chart_rgb(c, CHART_INK);
        cairo_set_line_width(cr, 0.8);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, PX(s->nwarmup), py);
        cairo_line_to(cr, x1, py);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    /* x axis */
    chart_rgb(c, CHART_MUTED);
    cairo_set_line_width(cr, 0.6);
    cairo_move_to(cr, x0, y1);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
    char lab[96];
    snprintf(lab, sizeof(lab), "step (%zu warm-up, %zu timed)%s", s->nwarmup, s->ntimed,
             ay.log ? "; log scale" : "");
    chart_text(c, CHART_FONT_REGULAR, 7, (x0 + x1) / 2, y1 + 2, 0.5, 0, 0, 0, lab);
    chart_text(c, CHART_FONT_REGULAR, 7, x0, y1 + 2, 0, 0, 0, 0, "1");
    snprintf(lab, sizeof(lab), "%zu", n);
    chart_text(c, CHART_FONT_REGULAR, 7, x1, y1 + 2, 1, 0, 0, 0, lab);
#undef PX
    return 0;
}
