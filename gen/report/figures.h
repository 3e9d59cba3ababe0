/*
 * figures.h - the report's charts: which ones a run gets, their data, and
 * rendering them to charts/ (PNG, SVG, PDF) and to SVG text for the HTML.
 *
 *   ms-per-step[-k]           ms/step by backend for every row, 95% CI whiskers (12 rows a figure)
 *   speedup-vs-<base>[-k]     throughput speedup of each backend and Keras 3 (best) over the baseline
 *   keras3-best-vs-<backend>  Keras 3 (best) over each other backend, like the published figures
 *   heatmap[-k]               the whole matrix relative to each row's best (40 rows a figure)
 *   cells-<row>               per row: each cell's step-time distribution and step-time series
 *   reference-rev<N>          measured vs published (with --reference)
 *
 * Figures are drawn in this fixed order, so every file is the same bytes on
 * every render of the same run.
 */
#ifndef BENCHGEN_FIGURES_H
#define BENCHGEN_FIGURES_H

#include "report/rctx.h"

/* A figure's data: a struct whose first member is a struct figure_arena, so
 * every allocation made for it (figure_arena_alloc, figure_arena_printf) is
 * released together by figure_arena_free(data), the figure's free_data.
 * figure_arena_new(size) gives the zeroed data struct; a failed allocation
 * returns NULL and sets a->failed, so builders can check once at the end. */
struct figure_arena {
    void **p;
    size_t n, cap;
    int failed;
};
void *figure_arena_new(size_t size);
void *figure_arena_alloc(struct figure_arena *a, size_t size);
char *figure_arena_printf(struct figure_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void figure_arena_free(void *data);

/* Appends a figure to *figs (name passed through escape_filename; title and
 * caption copied). It owns data from then on: free_data(data) runs when the
 * list is freed, or here when the figure cannot be added. */
int figures_add(struct figure **figs, size_t *nfigs, int section, double w, double h, double png_scale,
                chart_draw_fn draw, void *data, void (*free_data)(void *), const char *name,
                const char *title, const char *caption);

/* Releases every figure of the list and the array itself. */
void figures_free(struct figure *figs, size_t nfigs);

/* Fills x->figs from x's grid, baseline and reference. */
int figures_build(struct rctx *x);

/* Renders figures shard, shard + nshards, ... (all of them with 0, 1):
 * files charts_dir/<name>.{png,svg,pdf} for the CHART_* bits in formats
 * (charts_dir may be NULL when formats is 0), and the SVG text into
 * figure.svg when keep_svg. Shards let forked processes share the work; the
 * files do not depend on which process drew them. Shard 0 prints progress to
 * stderr unless x->quiet. */
int figures_render(struct rctx *x, const char *charts_dir, unsigned formats, int keep_svg, size_t shard,
                   size_t nshards);

/* Reads back charts_dir/<name>.svg into figure.svg for every figure (after
 * other processes rendered them). */
int figures_load_svg(struct rctx *x, const char *charts_dir);

/* The same two for any figure list (figures_render is figures_render_list
 * over x->figs): PDF dates from pdf_date, progress unless quiet. */
int figures_render_list(struct figure *figs, size_t nfigs, const char *pdf_date, int quiet,
                        const char *charts_dir, unsigned formats, int keep_svg, size_t shard, size_t nshards);
int figures_load_svg_list(struct figure *figs, size_t nfigs, const char *charts_dir);

/* Removes the chart files (*.png, *.svg, *.pdf) a previous render left in
 * dir, so it holds exactly this render's charts; a missing dir is fine.
 * prefixes: a NULL-terminated list of file-name prefixes to limit it to
 * ("forest-"), or NULL for every chart file. */
int figures_clean_dir(const char *dir, const char *const *prefixes);

#endif /* BENCHGEN_FIGURES_H */
