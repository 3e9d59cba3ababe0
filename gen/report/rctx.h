/*
 * rctx.h - what every report writer reads: the run, its grid, the chosen
 * baseline and reference, the figures, and small formatting helpers, so the
 * HTML, Markdown, PDF and workbook say the same things in the same words.
 *
 * Ownership: report.c builds one struct rctx with rctx_init() and releases
 * it with rctx_free(); writers only borrow it. The rundata is borrowed too.
 */
#ifndef BENCHGEN_RCTX_H
#define BENCHGEN_RCTX_H

#include <stddef.h>
#include <time.h>

#include "base/voice.h"
#include "charts/chart.h"
#include "report/figure.h"
#include "report/grid.h"
#include "report/reference.h"
#include "store/rundata.h"

/* Output selection (--format). */
enum {
    RCTX_HTML = 1 << 0,
    RCTX_MD = 1 << 1,
    RCTX_PDF = 1 << 2,
    RCTX_XLSX = 1 << 3,
    RCTX_CHARTS = 1 << 4, /* the chart files: PNG, SVG and PDF under charts/ */
    RCTX_ALL = 0x1F
};

struct answer; /* answer.h: built by report.c after rctx_init() */

struct rctx {
    const struct rundata *rd;
    const struct answer *answer; /* NULL until built */
    struct grid *g;
    int baseline;                  /* grid column, -1 when none */
    struct reference *ref;         /* NULL without --reference */
    int ref_revision;              /* -1 without --reference */
    const struct ref_row **ref_at; /* nrows * ncols published cells (NULL entries) */
    const struct ref_row **ref_k3; /* nrows: published "keras3-best" (NULL entries) */
    char **ref_why;                /* nrows * ncols: "method differs: ..." (NULL: comparable); methodref.h */
    size_t ref_matched;            /* published cells with a number that match a grid cell */
    char *hardware_run;            /* "NVIDIA H200" or the CPU model */
    char *hardware_note;           /* "" when the reference hardware matches the run's */
    struct figure *figs;
    size_t nfigs;
    char pdf_date[32];     /* the run's created_utc, for PDF metadata */
    time_t created;        /* the same as time_t, for the workbook */
    char created_text[40]; /* "2024-04-03 12:00 UTC" */
    unsigned formats;
    const struct voice *voice; /* report_options' voice: progress (figures_render) */
    /* text shared by every format, from templates/ */
    char **method; /* paragraphs; "- " starts a bullet */
    size_t nmethod;
    char **fairness;
    size_t nfairness;
    /* fairness facts: names x columns, values joined per backend */
    char **fact_names;
    size_t nfacts;
    char **fact_values; /* nfacts * ncols; "" when the backend has no value */
    /* environment per Python environment (cells' env names) */
    char **env_names;
    size_t nenvs;
    char **env_keys;
    size_t nenv_keys;
    char **env_values; /* nenv_keys * nenvs; NULL when absent */
};

/* Builds the grid, resolves the baseline (NULL: the default) and reference
 * (NULL: none; revision < 0: the revision matching most cells, latest on a tie),
 * and loads the shared text. BG_EUSAGE for an unknown baseline or revision. */
int rctx_init(struct rctx *x, const struct rundata *rd, const char *baseline, const char *ref_path,
              int ref_revision);
void rctx_free(struct rctx *x);

/* The dates a document carries, from a run's created_utc ("2024-04-03T12:00:00Z"),
 * never from the clock: *created (for the workbook), pdf_date (PDF metadata)
 * and text ("2024-04-03 12:00 UTC"). A missing or malformed date gives a fixed
 * one (1970-01-01T00:00:01Z), so bytes stay reproducible. */
void rctx_created(const char *created_utc, time_t *created, char pdf_date[32], char text[40]);

/* "1,306.85"; "NA" for NAN. */
void rctx_fmt_ms(double ms, char *buf, size_t n);
/* "+23.4%" / "-5.6%" / "NA". */
void rctx_fmt_pct(double pct, char *buf, size_t n);

/* Published value of a grid cell (NULL when none). */
const struct ref_row *rctx_published(const struct rctx *x, size_t r, size_t c);

/* Why the cell at grid row r, column c must not be compared with its
 * published number ("method differs: ..."), or NULL when it may (methodref.h). */
const char *rctx_ref_why(const struct rctx *x, size_t r, size_t c);

/* How many cells of the run (every repeat) did not end ok. */
size_t rctx_nfailures(const struct rctx *x);

/* Marker timeline of a cell as "python 0.05 s, import 2.10 s, ..." into a malloc'd string. */
char *rctx_phases(const struct rd_cell *c);

/* Display name of a backend ("Keras 3 (JAX)"), the name itself when unknown. */
const char *rctx_backend_display(const char *backend);

#endif /* BENCHGEN_RCTX_H */
