/*
 * roofline.c - the report's roofline-style figure (see roofline.h).
 */
#include "report/roofline.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "charts/scatter.h"
#include "report/figure.h"
#include "report/hardware.h"

#include <math.h>

struct roofline {
    struct figure_arena a;
    struct scatter s;
};

static int roofline_draw(struct chart *c, struct chart_rect r, const void *data)
{
    return scatter_draw(c, r, &((const struct roofline *)data)->s);
}

/* Roofline-style: each cell's achieved TFLOP/s against the peak of its
 * device and dtype (report/hardware.h), per backend; only for runs whose
 * cells have FLOPs and a known peak. */
int roofline_figure(struct rctx *x, double w, double png_scale)
{
    const struct grid *g = x->g;
    size_t n = 0;
    for (size_t i = 0; i < x->rd->ncells; i++) {
        double t, m;
        hardware_mfu(x->rd, &x->rd->cells[i], &t, &m, NULL, 0);
        n += isfinite(m);
    }
    if (n == 0)
        return 0;
    struct roofline *f = figure_arena_new(sizeof(*f));
    struct figure_arena *a = &f->a;
    double *px = figure_arena_alloc(a, (n + 1) * sizeof(double));
    double *ay = figure_arena_alloc(a, (n + 1) * sizeof(double));
    size_t *grp = figure_arena_alloc(a, (n + 1) * sizeof(size_t));
    const char **labels = figure_arena_alloc(a, (g->ncols + 1) * sizeof(char *));
    unsigned *colors = figure_arena_alloc(a, (g->ncols + 1) * sizeof(unsigned));
    for (size_t c = 0; c < g->ncols; c++) {
        labels[c] = g->cols[c].display;
        colors[c] = g->cols[c].color;
    }
    size_t k = 0;
    for (size_t i = 0; i < x->rd->ncells && k < n; i++) {
        const struct rd_cell *cell = &x->rd->cells[i];
        double t, m;
        hardware_mfu(x->rd, cell, &t, &m, NULL, 0);
        int col = grid_col_find(g, cell->cell.backend);
        if (!isfinite(m) || col < 0)
            continue;
        px[k] = t / (m / 100.0); /* the peak */
        ay[k] = t;
        grp[k++] = (size_t)col;
    }
    f->s = (struct scatter){.title = "Achieved vs peak FLOP/s",
                            .subtitle = "The diagonal is the device's dense peak for the cell's dtype (100% MFU); "
                                        "the dashed line below it is 50% MFU.",
                            .corner_note = "below the diagonal: under the peak",
                            .x_label = "peak TFLOP/s (device, dtype)",
                            .y_label = "achieved TFLOP/s (model FLOPs / median step)",
                            .n = k,
                            .x = px,
                            .y = ay,
                            .group = grp,
                            .ngroups = g->ncols,
                            .group_label = labels,
                            .group_color = colors};
    if (a->failed) {
        figure_arena_free(f);
        return error_set(BG_EGENERIC, "roofline: a label format did not expand");
    }
    return figures_add(&x->figs, &x->nfigs, FIG_SUMMARY, w, 520, png_scale, roofline_draw, f, figure_arena_free,
                       "roofline", "Achieved vs peak",
                      "Each cell's achieved TFLOP/s (analytic model FLOPs per step over its median step time) "
                      "against the dense peak of its device and dtype, coloured by backend (docs/GPU.md).");
}
