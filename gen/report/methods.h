/*
 * methods.h - the two methods side by side in the run report's Method
 * section (docs/METHOD.md, "Two answers side by side").
 *
 * A run whose spec says `method: [published, corrected]` has every such cell
 * under both methods (keys "...@published" and "...@corrected"). For each
 * position (model, task, batch, backend) that ran under both, the report
 * sets the published-method number beside the corrected one with their
 * ratio, published / corrected, and its 95% interval: the size of the
 * original's flaws on that cell. A second table lists, per such position,
 * each `method.<name>` fact whose recorded value differs between the two
 * cells, with the v0.0.5 source the published cell recorded for it
 * (`method_source.<name>`): built from the facts the cells recorded, never
 * from a list kept here.
 *
 * A run with no position under both methods gets neither table (its report
 * reads as before).
 */
#ifndef BENCHGEN_METHODS_H
#define BENCHGEN_METHODS_H

#include "report/doc.h"
#include "report/rctx.h"
#include "report/tables.h"

/* One position (model, task, batch, backend) that ran under both methods. */
struct methods_pair {
    const struct rd_cell *first;    /* the position's first cell of either method, in plan order */
    const struct rd_cell *pub, *cor; /* the first (else the first ok) cell of each method */
    size_t repeats_pub, repeats_cor; /* ok cells with timed steps under each method */
    double pub_ms, cor_ms;           /* mean ms/step of all their timed steps; NAN when none */
    int valid;                       /* both sides have steps: ratio and interval are set */
    double ratio;                    /* published / corrected: of the pooled means with one repeat a
                                      * side, else of the geometric means of the per-repeat means */
    double ci_lo, ci_hi;             /* its 95% interval (NAN when it has none) */
    int same_work;                   /* both sides recorded their method facts and no method.<name>
                                      * fact differs: the ratio is two processes' difference */
};

/* The positions of rd under both methods, in plan order (the rows of the
 * side-by-side table and of report.json's `methods`): *out (free()) of *n.
 * 0, or significance_test()'s error. */
int methods_pairs(const struct rundata *rd, struct methods_pair **out, size_t *n);

/* Positions under both methods: Cell, Published ms/step, Corrected ms/step,
 * Published / corrected, its 95% interval. An empty table (no rows) when none.
 * 0, or the first error (t is released). */
int methods_side_table(const struct rctx *x, struct table *t);

/* What differs per position: Cell, Fact, Published, Corrected, v0.0.5 source.
 * 0, or the first error (t is released). */
int methods_diff_table(const struct rctx *x, struct table *t);

/* Adds both tables with their headings and a sentence each to d (inside the
 * Method section), when some position ran under both methods. */
void methods_section(struct doc *d, const struct rctx *x);

/* A published cell timed as a window (docs/METHOD.md): its window over its
 * calls in ms, from markers window.begin/window.end and fact window.calls,
 * as the original divided it; NAN when the cell has none. */
double methods_window_ms(const struct rd_cell *c);

#endif /* BENCHGEN_METHODS_H */
