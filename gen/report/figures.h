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

#include "report/figure.h"
#include "report/rctx.h"

/* Fills x->figs from x's grid, baseline and reference. */
int figures_build(struct rctx *x);

/* Renders figures shard, shard + nshards, ... (all of them with 0, 1):
 * files charts_dir/<name>.{png,svg,pdf} for the CHART_* bits in formats
 * (charts_dir may be NULL when formats is 0), and the SVG text into
 * figure.svg when keep_svg. Shards let forked processes share the work; the
 * files do not depend on which process drew them. Shard 0 tells x->voice
 * its progress (may be NULL). */
int figures_render(struct rctx *x, const char *charts_dir, unsigned formats, int keep_svg, size_t shard,
                   size_t nshards);

/* Reads back charts_dir/<name>.svg into figure.svg for every figure (after
 * other processes rendered them). */
int figures_load_svg(struct rctx *x, const char *charts_dir);

/* The same two for any figure list (figures_render is figures_render_list
 * over x->figs): PDF dates from pdf_date, progress to voice (may be NULL). */
int figures_render_list(struct figure *figs, size_t nfigs, const char *pdf_date, const struct voice *voice,
                        const char *charts_dir, unsigned formats, int keep_svg, size_t shard, size_t nshards);
int figures_load_svg_list(struct figure *figs, size_t nfigs, const char *charts_dir);

#endif /* BENCHGEN_FIGURES_H */
