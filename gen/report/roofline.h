/*
 * roofline.h - a roofline-style figure: each cell's achieved TFLOP/s (its
 * analytic FLOPs over its median step) against the dense peak of its device
 * and dtype (report/hardware.h), on log axes, coloured by backend; the
 * diagonal is 100% MFU. Added to the summary only when some cell has both
 * FLOPs and a known peak, so older runs' reports are unchanged.
 */
#ifndef BENCHGEN_ROOFLINE_H
#define BENCHGEN_ROOFLINE_H

#include "report/rctx.h"

/* Adds the figure to x->figs (w x 520 points, PNG at png_scale) when it
 * applies; 0, or BG_EGENERIC for a label format that did not expand. */
int roofline_figure(struct rctx *x, double w, double png_scale);

#endif /* BENCHGEN_ROOFLINE_H */
