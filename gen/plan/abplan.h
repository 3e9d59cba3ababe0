/*
 * abplan.h - the order of an interleaved A/B run (`benchgen run --ab`).
 *
 * A and B are the same plan (B in other environments or with other
 * variables). Every cell's A and B processes run next to each other, in
 * ABBA order: the first of a pair alternates from one cell to the next and
 * from one repeat to the next, so neither side is systematically first
 * (warmer file cache, the machine's state after the previous cell) and slow
 * drift over the run hits both sides alike. asv's interleaved rounds are the
 * same idea across benchmarks.
 *
 * Ownership: out is the caller's (matrix_free); *arm is malloc'd.
 */
#ifndef BENCHGEN_ABPLAN_H
#define BENCHGEN_ABPLAN_H

#include "plan/matrix.h"

/* out gets 2 * a->ncells cells (deep copies, ids kept: each is the id in its
 * own arm's plan); (*arm)[i] is 0 when out->cells[i] comes from a, 1 from b.
 * a and b must have the same keys in the same order (BG_EUSAGE otherwise). */
int abplan_interleave(struct matrix *out, unsigned char **arm, const struct matrix *a, const struct matrix *b);

#endif /* BENCHGEN_ABPLAN_H */
