/*
 * bundle_render.h - how bundle and verify render a run's report: from
 * <staging>/run into <staging>/report on both sides, so the renderer
 * (report_render(), or a test's, bundle.h) sees the same layout.
 */
#ifndef BENCHGEN_BUNDLE_RENDER_H
#define BENCHGEN_BUNDLE_RENDER_H

#include "report/report.h"

/* report_render()'s contract (report.h). */
typedef int (*bundle_render_fn)(const char *run_dir, const char *out_dir, const struct report_options *opt);

/* Renders dir/run into dir/report, as `benchgen report run --out report
 * --quiet [--baseline B]` would from dir (no voice: the render says
 * nothing); fn NULL means report_render(). */
int bundle_render_in(bundle_render_fn fn, const char *dir, const char *baseline);

#endif /* BENCHGEN_BUNDLE_RENDER_H */
