/*
 * heatmap.c - matrix of cells coloured by their ratio to the row's best (see heatmap.h).
 */
#include "charts/heatmap.h"

#include <math.h>
#include <stdio.h>

#define PAD CHART_MARGIN
#define HEADER_H 34.0
#define CELL_H 26.0
#define LEGEND_H 30.0
#define RATIO_WORST 3.0

unsigned heatmap_color(double ratio)
{
    if (!isfinite(ratio))
        return HEATMAP_NA_COLOR;
    /* a sequential blue scale (ColorBrewer Blues), light at 1x and dark at 3x
     * and beyond, on a log scale: twice as slow is equally far from 1.5x and
     * 3x to a reader; lightness alone carries it, so no hue has to be told apart */
    double t = log(ratio < 1 ? 1 : ratio) / log(RATIO_WORST);
    if (t > 1)
        t = 1;
    return t < 0.5 ? chart_mix(0xF7FBFF, 0x6BAED6, t * 2) : chart_mix(0x6BAED6, 0x08306B, (t - 0.5) * 2);
}

static struct chart_heading heading(const struct heatmap *h)
{
    return (struct chart_heading){CHART_HEADING_FIGURE, h->title, h->subtitle, NULL, NULL};
}

double heatmap_height(const struct heatmap *h, double w)
{
    (void)w;
    const struct chart_heading head = heading(h);
    return chart_heading_height(&head) + HEADER_H + (double)h->nrows * CELL_H + LEGEND_H + PAD;
}

int heatmap_draw(struct chart *c, struct chart_rect r, const void *data)
{
    const struct heatmap *h = data;
    cairo_t *cr = c->cr;
    const struct chart_heading head = heading(h);
    double y = r.y + chart_heading(c, r, &head);
    double label_w = 0;
    for (size_t i = 0; i < h->nrows; i++) {
        double tw;
        chart_text_size(c, CHART_FONT_REGULAR, 8.5, 0, 0, h->row_label[i], &tw, NULL);
        if (tw > label_w)
            label_w = tw;
    }
    if (label_w > r.w * 0.35)
        label_w = r.w * 0.35;
    double x0 = r.x + PAD + label_w + 8, cw = (r.x + r.w - PAD - x0) / (double)(h->ncols ? h->ncols : 1);
    for (size_t j = 0; j < h->ncols; j++) {
        chart_rgb(c, CHART_INK);
        chart_text(c, CHART_FONT_BOLD, 8.5, x0 + cw * ((double)j + 0.5), y + HEADER_H - 4, 0.5, 1, cw - 4,
                   CHART_WRAP, h->col_label[j]);
    }
    y += HEADER_H;
    for (size_t i = 0; i < h->nrows; i++) {
        double ry = y + (double)i * CELL_H;
        chart_rgb(c, CHART_INK);
        chart_text(c, CHART_FONT_REGULAR, 8.5, x0 - 8, ry + CELL_H / 2, 1, 0.5, label_w, CHART_ELLIPSIZE,
                   h->row_label[i]);
        for (size_t j = 0; j < h->ncols; j++) {
            size_t k = i * h->ncols + j;
            double ratio = h->ratio[k];
            unsigned fill = heatmap_color(ratio);
            chart_rgb(c, fill);
            cairo_rectangle(cr, x0 + cw * (double)j + 1, ry + 1, cw - 2, CELL_H - 2);
            cairo_fill(cr);
            double cx = x0 + cw * ((double)j + 0.5);
            if (isfinite(ratio)) {
                char rs[64];
                chart_format_number(ratio, 2, rs, sizeof(rs));
                chart_hover(c, x0 + cw * (double)j, ry, cw, CELL_H, "%s, %s: %s, %s\xC3\x97 the row's best",
                            h->row_label[i], h->col_label[j], h->text && h->text[k] ? h->text[k] : "", rs);
                char line2[80];
                snprintf(line2, sizeof(line2), "%s\xC3\x97", rs); /* "1.23x" with a multiplication sign */
                chart_rgb(c, chart_text_on(fill));
                chart_text(c, ratio <= 1.0 + 1e-12 ? CHART_FONT_BOLD : CHART_FONT_REGULAR, 8.5, cx,
                           ry + CELL_H / 2 - 1, 0.5, 1, cw - 4, CHART_ELLIPSIZE,
                           h->text && h->text[k] ? h->text[k] : "");
                chart_text(c, CHART_FONT_REGULAR, 7, cx, ry + CELL_H / 2, 0.5, 0, cw - 4, CHART_ELLIPSIZE,
                           line2);
            } else {
                chart_hover(c, x0 + cw * (double)j, ry, cw, CELL_H, "%s, %s: %s", h->row_label[i], h->col_label[j],
                            h->na && h->na[k] ? h->na[k] : "NA");
                chart_rgb(c, CHART_MUTED);
                chart_text(c, CHART_FONT_ITALIC, 7, cx, ry + CELL_H / 2, 0.5, 0.5, cw - 4, CHART_ELLIPSIZE,
                           h->na && h->na[k] ? h->na[k] : "NA");
            }
        }
    }
    /* colour scale legend */
    double ly = y + (double)h->nrows * CELL_H + 10, lx = x0, lw = 180;
    for (int s = 0; s < 60; s++) {
        double ratio = exp(log(RATIO_WORST) * s / 59.0);
        chart_rgb(c, heatmap_color(ratio));
        cairo_rectangle(cr, lx + lw * s / 60.0, ly, lw / 60.0 + 0.3, 8);
        cairo_fill(cr);
    }
    chart_rgb(c, CHART_MUTED);
    chart_text(c, CHART_FONT_REGULAR, 7, lx, ly + 10, 0, 0, 0, 0, "1\xC3\x97 (row best)");
    chart_text(c, CHART_FONT_REGULAR, 7, lx + lw, ly + 10, 1, 0, 0, 0,
               "\xE2\x89\xA5"
               "3\xC3\x97 slower");
    chart_rgb(c, HEATMAP_NA_COLOR);
    cairo_rectangle(cr, lx + lw + 20, ly, 14, 8);
    cairo_fill(cr);
    chart_rgb(c, CHART_MUTED);
    chart_text(c, CHART_FONT_REGULAR, 7, lx + lw + 38, ly + 4, 0, 0.5, 0, 0,
               "NA: not measured (reason in the cell)");
    return 0;
}
