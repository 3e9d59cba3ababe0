/*
 * answer.h - what a reader of the report wants first: per row, which
 * backend is fastest, by how much and with what confidence (a lead inside
 * the noise band is a tie); how many rows each backend wins; and each
 * backend's geometric-mean speed-up over the baseline with a bootstrap
 * confidence interval.
 *
 * Confidence per row: the bootstrap interval of the ratio of mean ms/step
 * runner-up / fastest (significance_test: steps, or processes then steps
 * when the cells have repeats). A tie: the ratio is below 1 + noise. Clear:
 * the whole interval lies above 1 + noise. Otherwise likely (ahead, but the
 * interval reaches into the band).
 *
 * Geometric mean: over the rows where both the backend and the baseline
 * have a number, of baseline ms / backend ms; its interval resamples the
 * rows (fixed seed, so the same run gives the same interval).
 *
 * Ownership: answer_build() fills a struct answer the caller releases with
 * answer_free(); it borrows nothing after it returns.
 */
#ifndef BENCHGEN_ANSWER_H
#define BENCHGEN_ANSWER_H

#include <stddef.h>

#include "report/rctx.h"

#define ANSWER_NOISE 0.02      /* the noise band: a lead under 2% is a tie */
#define ANSWER_RESAMPLES 2000  /* bootstrap resamples */

enum answer_kind {
    ANSWER_NONE,  /* no backend has a number */
    ANSWER_ONLY,  /* one backend has a number */
    ANSWER_TIE,   /* the runner-up is within the noise band */
    ANSWER_LIKELY,/* ahead, the interval reaching into the band */
    ANSWER_CLEAR  /* ahead, the whole interval outside the band */
};

struct answer_row {
    enum answer_kind kind;
    int best, second;      /* grid columns; -1 when none */
    double ratio, lo, hi;  /* runner-up / fastest mean ms/step and its 95% interval */
    size_t ntied;          /* columns within the noise band of the best, the best included */
};

struct answer_geo {
    int col;           /* grid column */
    size_t n;          /* rows with both numbers */
    double geo, lo, hi; /* speed-up baseline ms / ms; NAN when n == 0 (lo, hi: n < 3) */
};

struct answer {
    struct answer_row *rows; /* one per grid row */
    size_t *wins, *ties;     /* per grid column: rows won outright (clear or likely), rows tied for first */
    size_t *measured;        /* per grid column: rows with a number */
    struct answer_geo *geo;  /* per grid column but the baseline */
    size_t ngeo;
    size_t max_repeats;      /* the most repeats any cell has (1: no repeats) */
};

int answer_build(struct answer *a, const struct rctx *x);
void answer_free(struct answer *a);

/* The paragraph of row r ("BERT (fit), b32: PyTorch (compiled) is fastest, 6.2% ahead of ..."), malloc'd. */
char *answer_sentence(const struct answer *a, const struct rctx *x, size_t r);

#endif /* BENCHGEN_ANSWER_H */
