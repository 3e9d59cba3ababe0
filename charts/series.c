/*
 * series.c - step times in execution order, warm-up and compile time included (see series.h).
 */
#include "charts/series.h"

#include <math.h>
#include <stdio.h>

#include "base/error.h"

#define PAD CHART_PANEL_MARGIN
#define MARK_BAND 9.0 /* room above the plot for the markers of clipped steps */
/* beyond this max/min ratio a linear axis flattens the timed steps into a line */
#define LOG_THRESHOLD 8.0

static double step_at(const struct series *s, size_t i)
{
    return i < s->nwarmup ? s->warmup[i] : s->timed[i - s->nwarmup];
}

int series_range(const struct series *s, double *lo, double *hi)
{
    double flo = -INFINITY, fhi = INFINITY;
    int err = s->ntimed ? chart_fences(s->timed, s->ntimed, &flo, &fhi) : 0;
    if (err < 0)
        return err;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < s->nwarmup + s->ntimed; i++) {
        double v = step_at(s, i);
        if (!isfinite(v) || v < flo || v > fhi)
            continue;
        if (v < *lo)
            *lo = v;
        if (v > *hi)
            *hi = v;
    }
    return 0;
}

int series_pick_scale(struct series *const *s, size_t n)
{
    int log = 0;
    for (size_t i = 0; i < n; i++) {
        double lo, hi;
        int err = series_range(s[i], &lo, &hi);
        if (err < 0)
            return err;
        if (lo > 0 && isfinite(hi) && hi / lo > LOG_THRESHOLD)
            log = 1;
    }
    for (size_t i = 0; i < n; i++)
        s[i]->log = log;
    return 0;
}

int series_axis(const struct series *s, struct chart_axis *ay)
{
    double lo, hi;
    int err = series_range(s, &lo, &hi);
    if (err < 0)
        return err;
    if (!isfinite(lo) || !isfinite(hi)) {
        chart_axis_linear(ay, 0, 1, 4);
    } else if (s->log && lo > 0) {
        chart_axis_log(ay, lo, hi);
    } else {
        /* zoomed on the steady state when it sits far from zero */
        double span = hi - lo;
        chart_axis_linear(ay, lo > 0 && span < lo ? lo - span * 0.1 : 0, hi + span * 0.05, 4);
    }
    return 0;
}

static void marker(cairo_t *cr, double x, double y, int up)
{
    double d = up ? -1 : 1;
    cairo_move_to(cr, x, y + 2.6 * d);
    cairo_line_to(cr, x - 2.6, y - 1.8 * d);
    cairo_line_to(cr, x + 2.6, y - 1.8 * d);
    cairo_close_path(cr);
}

int series_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct series *s = data;
    cairo_t *cr = c->cr;
    const struct chart_heading head = {CHART_HEADING_PANEL, s->title, NULL, NULL, NULL};
    double y = r.y + chart_heading(c, r, &head);
    size_t n = s->nwarmup + s->ntimed;
    double x0 = r.x + PAD + 34, x1 = r.x + r.w - PAD - 2, ym = y + 12, y0 = ym + MARK_BAND,
           y1 = r.y + r.h - PAD - 12;
    if (n == 0 || y1 - y0 < 10) {
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_ITALIC, 7, (x0 + x1) / 2, (y0 + y1) / 2, 0.5, 0.5, 0, 0,
                   "no steps recorded");
        return 0;
    }
    struct chart_axis ay;
    int err = series_axis(s, &ay);
    if (err < 0)
        return err;
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
    /* a step outside the axis sits on the plot's edge, marked */
#define PY(v) ((v) > ay.hi ? ym + MARK_BAND / 2 : (v) < ay.lo ? y1 : chart_axis_pos(&ay, (v), y1, y0))
    size_t nabove = 0, nbelow = 0;
    double top = -INFINITY, bottom = INFINITY;
    for (size_t i = s->nwarmup > 0; i < n; i++) { /* the first call is labelled on its own */
        double v = step_at(s, i);
        if (v > ay.hi) {
            nabove++;
            top = v > top ? v : top;
        } else if (v < ay.lo) {
            nbelow++;
            bottom = v < bottom ? v : bottom;
        }
    }
    /* warm-up region */
    if (s->nwarmup > 0) {
        double wx = s->ntimed ? (PX(s->nwarmup - 1) + PX(s->nwarmup)) / 2 : x1;
        chart_rgba(c, SERIES_WARMUP_COLOR, 0.10);
        cairo_rectangle(cr, x0 - 2, ym, wx - x0 + 2, y1 - ym);
        cairo_fill(cr);
        static const double dash[] = {3, 2};
        chart_rgb(c, SERIES_WARMUP_COLOR);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, wx, ym);
        cairo_line_to(cr, wx, y1);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    /* the break between the axis and the band of clipped steps */
    if (nabove || (s->nwarmup > 0 && s->warmup[0] > ay.hi)) {
        chart_rgb(c, CHART_MUTED);
        cairo_set_line_width(cr, 0.6);
        for (int k = 0; k < 2; k++) {
            cairo_move_to(cr, x0 - 4, y0 - 1 - 2.5 * k + 1.5);
            cairo_line_to(cr, x0 + 4, y0 - 1 - 2.5 * k - 1.5);
        }
        cairo_stroke(cr);
    }
    /* timed steps */
    if (s->ntimed) {
        chart_rgb(c, s->color);
        cairo_set_line_width(cr, 0.9);
        for (size_t i = 0; i < s->ntimed; i++) {
            double px = PX(s->nwarmup + i), py = PY(s->timed[i]);
            if (i == 0)
                cairo_move_to(cr, px, py);
            else
                cairo_line_to(cr, px, py);
        }
        cairo_stroke(cr);
        /* dots only where they add something: beyond a few dozen steps the
         * line says it all, and every dot costs a path in the SVG and PDF */
        for (size_t i = 0; i < s->ntimed; i++) {
            double v = s->timed[i];
            if (v > ay.hi || v < ay.lo) {
                marker(cr, PX(s->nwarmup + i), PY(v), v > ay.hi);
            } else if (s->ntimed <= 40) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, PX(s->nwarmup + i), PY(v), 1.3, 0, 2 * M_PI);
            }
        }
        cairo_fill(cr);
    }
    /* warm-up steps, the first one labelled with the first-call time */
    chart_rgb(c, SERIES_WARMUP_COLOR);
    for (size_t i = 0; i < s->nwarmup; i++) {
        double v = s->warmup[i];
        if (v > ay.hi || v < ay.lo) {
            marker(cr, PX(i), PY(v), v > ay.hi);
        } else {
            cairo_new_sub_path(cr);
            cairo_arc(cr, PX(i), PY(v), 2.0, 0, 2 * M_PI);
        }
    }
    cairo_fill(cr);
    double used = 0;
    if (s->nwarmup > 0) {
        char num[64], lab[160];
        chart_format_number(s->warmup[0], s->warmup[0] >= 100 ? 0 : 2, num, sizeof(num));
        snprintf(lab, sizeof(lab), "%s: %s ms%s", s->first_label ? s->first_label : "first call", num,
                 s->warmup[0] > ay.hi ? " (above the axis)" : "");
        used = chart_text(c, CHART_FONT_REGULAR, 7, x0 + 5, ym - 1, 0, 1, 0, 0, lab);
    }
    /* other clipped steps, counted with their extreme value */
    size_t others = nabove + nbelow;
    if (others) {
        char num[64], lab[160];
        double ext = nabove ? top : bottom;
        chart_format_number(ext, ext >= 100 ? 0 : 2, num, sizeof(num));
        snprintf(lab, sizeof(lab), "%s%zu more off the axis (%s %s ms)",
                 used > 0 ? "; " : "", others, ext > ay.hi ? "up to" : "down to", num);
        chart_rgb(c, CHART_MUTED);
        chart_text(c, CHART_FONT_REGULAR, 7, x0 + 5 + used, ym - 1, 0, 1, x1 - x0 - 5 - used, CHART_ELLIPSIZE,
                   lab);
    }
    if (isfinite(s->mean) && s->ntimed) {
        static const double dash[] = {4, 2};
        double py = PY(s->mean);
        chart_rgb(c, CHART_INK);
        cairo_set_line_width(cr, 0.8);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, PX(s->nwarmup), py);
        cairo_line_to(cr, x1, py);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    /* hover: every step, a strip as wide as its slot */
    for (size_t i = 0; i < n; i++) {
        double v = step_at(s, i), w = n > 1 ? dx : x1 - x0;
        char num[64];
        chart_format_number(v, 2, num, sizeof(num));
        if (i < s->nwarmup)
            chart_hover(c, PX(i) - w / 2, ym, w, y1 - ym, "%s%sstep %zu, %s: %s ms", s->name ? s->name : "",
                        s->name ? ", " : "", i + 1,
                        i == 0 ? (s->first_label ? s->first_label : "first call") : "warm-up", num);
        else
            chart_hover(c, PX(i) - w / 2, ym, w, y1 - ym, "%s%sstep %zu, timed: %s ms", s->name ? s->name : "",
                        s->name ? ", " : "", i + 1, num);
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
#undef PY
#undef PX
    return 0;
}
