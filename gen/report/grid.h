/*
 * grid.h - a run as the published table: rows are (model, task, batch) in
 * plan order, columns are backends (catalog order, so columns read like the
 * published table, then any others in plan order). Every report format shows
 * this same grid, so they agree on what "the best cell" or "NA" means.
 *
 * A grid position holds every repeat of its cell, under one method: that of
 * its first cell in plan order (a run of both methods shows the first listed
 * in the grid and sets the other beside it in the Method section); its statistics are those
 * of the pooled timed steps of its ok repeats (with one repeat: exactly the
 * cell's statistics from run.db). A position is NA unless at least one
 * repeat finished ok with timed steps; its status then says why: the
 * failure status ("error", "unsupported", ...), "not run" (planned but no
 * final status) or "missing" (not in the plan at all).
 *
 * Ownership: grid_build() gives the caller a struct grid that grid_free()
 * releases. It borrows the rundata, which must outlive it.
 */
#ifndef BENCHGEN_GRID_H
#define BENCHGEN_GRID_H

#include <stddef.h>

#include "store/rundata.h"
#include "stats/stats.h"

struct grid_cell {
    const struct rd_cell *cell; /* first repeat in plan order; NULL when missing */
    size_t nrepeats, nok;       /* cells at this position, and how many ended ok */
    int ok;                     /* st is valid (n > 0) */
    const char *status;         /* "ok", a failure status, "not run" or "missing"; borrowed */
    char na[40];                /* "NA (unsupported)" when !ok, "" otherwise */
    struct stats st;            /* pooled timed steps of the ok repeats */
    double compile_ms;          /* first call (warmup_ns[0]) of the first ok repeat whose compile cache
                                 * was cold (store/result.h); NAN when none */
    double warmup_ms;           /* all warm-up steps of that repeat; NAN when none */
};

struct grid_row {
    const char *model, *task; /* borrowed from the rundata */
    int batch;
    char *label;  /* "BERT (fit)" */
    char *title;  /* "BERT (fit), batch 32" */
    char *slug;   /* "bert_fit_b32": a file-name component */
    int best_col; /* fastest ok column, -1 when none */
    int k3_col;   /* fastest ok Keras 3 column, -1 when none */
};

/* The colour of "Keras 3 (best)" in every chart and workbook. */
#define GRID_KERAS3_BEST_COLOR 0x222222u

struct grid_col {
    const char *backend; /* borrowed */
    const char *display; /* "Keras 3 (JAX)"; the backend name when not in the catalog */
    unsigned color;      /* stable per backend across reports */
    int keras3;          /* one of the keras3-* backends */
};

struct grid {
    const struct rundata *rd;
    struct grid_row *rows;
    size_t nrows;
    struct grid_col *cols;
    size_t ncols;
    struct grid_cell *cells; /* nrows * ncols, [r * ncols + c] */
    size_t nkeras3;          /* Keras 3 columns present */
};

int grid_build(struct grid **out, const struct rundata *rd);
void grid_free(struct grid *g);

static inline const struct grid_cell *grid_at(const struct grid *g, size_t r, size_t c)
{
    return &g->cells[r * g->ncols + c];
}

/* Whether cell is one of position (r, c)'s cells (its row, column and method). */
int grid_holds(const struct grid *g, size_t r, size_t c, const struct rd_cell *cell);

/* Column of a backend, or -1. */
int grid_col_find(const struct grid *g, const char *backend);

/* Whether the documents' grid tables (Summary, Throughput, Speedup) and the
 * speedup chart show a "Keras 3 (best)" column: only with two Keras 3
 * backends or more, as with one it repeats that backend's column. The
 * machine-readable outputs (report.json, summary.csv) and the comparison
 * with a published keras3-best value keep it whenever a Keras 3 backend ran. */
static inline int grid_keras3_best_shown(const struct grid *g)
{
    return g->nkeras3 > 1;
}

/* Mean ms/step of the row's best Keras 3 column ("Keras 3 (best)"), NAN when none. */
double grid_keras3_best(const struct grid *g, size_t r);

/* Throughput speedup of a over base in percent, as the published figures
 * define it: (base_ms / a_ms - 1) * 100. NAN when either is not a positive number. */
double grid_speedup(double base_ms, double a_ms);

/* The default speedup baseline: torch-eager (the April 2024 page's first
 * figure; every published row has it), else keras2-tensorflow (the live
 * page's figure, which has no LLM rows), else the first column. */
int grid_default_baseline(const struct grid *g);

/* Warnings for a cell's statistics, "; "-separated, into buf ("" when none):
 * noisy (CV over STATS_NOISY_CV) and a first timed step that is an outlier. */
void grid_warnings(const struct stats *st, char *buf, size_t n);

/* The line of a failed cell's detail that says what went wrong: for a
 * Python traceback its exception line ("ValueError: bad shape"), the last
 * line at the left margin, never "Traceback (most recent call last):";
 * otherwise the first line. *line points into detail; returns its length. */
size_t grid_detail_line(const char *detail, const char **line);

/* The last frames (at most max) of the traceback in a failed cell's detail
 * that grid_detail_line() reads, outermost first, as "file.py:12 in step;
 * model.py:40 in forward": file names only (no directories: the same bytes
 * on every machine). Writes "" when the detail holds no traceback frame.
 * Truncates to n - 1 bytes. */
void grid_detail_frames(const char *detail, size_t max, char *buf, size_t n);

#endif /* BENCHGEN_GRID_H */
