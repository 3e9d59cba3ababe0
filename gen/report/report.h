/*
 * report.h - renders everything a reader needs from a stored run, the same
 * bytes every time: report.html (self-contained), report.md, report.pdf,
 * report.xlsx and charts/ (PNG, SVG, PDF). The command line is
 * gen/cli/cli_report.c; bundle.c calls report_render() too.
 */
#ifndef BENCHGEN_REPORT_H
#define BENCHGEN_REPORT_H

#include "base/voice.h"

/* What to write (--format); the same bits as rctx.h's RCTX_*. */
enum report_format {
    REPORT_HTML = 1 << 0,
    REPORT_MD = 1 << 1,
    REPORT_PDF = 1 << 2,
    REPORT_XLSX = 1 << 3,
    REPORT_CHARTS = 1 << 4, /* the chart files: PNG, SVG and PDF under charts/ */
    REPORT_ALL = 0x1F
};

struct report_options {
    const char *baseline;   /* speedup baseline backend; NULL: the default (rctx.h) */
    const char *reference;  /* published results (CSV); NULL: none */
    int reference_revision; /* which revision of reference; -1: the one matching most cells */
    unsigned formats;       /* REPORT_* bits; 0: REPORT_ALL */
    int jobs;               /* processes drawing side by side; 0: the CPUs, at most 16 */
    int force;              /* replace another run's report in out_dir (outdir.h) */
    struct voice voice;     /* hears its progress (topic "report"); zero: nothing is said */
};

/* Renders the run in run_dir into out_dir (created if missing; the chart
 * files an earlier render left in out_dir/charts are removed). opt may be
 * NULL (defaults). BG_EUSAGE when run_dir holds no run, an option is wrong,
 * or out_dir holds another run's report and opt->force is 0 (outdir.h);
 * other BG_E* codes when rendering failed. The reason is in error_last(). */
int report_render(const char *run_dir, const char *out_dir, const struct report_options *opt);

/* "html,md" -> REPORT_HTML | REPORT_MD (html, md, markdown, pdf, xlsx,
 * charts, all); BG_EUSAGE naming an unknown format. */
int report_parse_formats(unsigned *formats, const char *list);

#endif /* BENCHGEN_REPORT_H */
