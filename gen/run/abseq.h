/*
 * abseq.h - the sequential stopping of an interleaved `run --ab`
 * (stats/seqtest.h): which planned processes to run, the looks, and why
 * each cell stopped.
 *
 * The plan holds every cell's processes up to the cap, ABBA-interleaved
 * and repeat-major (plan/abplan.h). A cell (one identity: its key without
 * "#r<k>") runs its first batch; after each look's pair of repeats has run
 * on both arms, seqtest_look() decides: slower, faster or same stop the
 * cell, and so does a process that did not end ok; the others run the next
 * step's processes, up to the cap. The processes a stopped cell did not
 * need are skipped; store_drop_unstarted() then removes them from the plan.
 *
 * Ownership: abseq_new() keeps pointers to plan, arm and design (borrowed:
 * they must outlive it); abseq_free() releases the rest.
 */
#ifndef BENCHGEN_ABSEQ_H
#define BENCHGEN_ABSEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "plan/matrix.h"
#include "stats/seqtest.h"
#include "store/result.h"
#include "store/store.h"

struct abseq;

/* plan: the interleaved plan of both arms (arm[i]: 0 A, 1 B); noise: the
 * noise floor of the rule (a fraction). */
struct abseq *abseq_new(const struct matrix *plan, const unsigned char *arm, const struct seqtest_design *d,
                        double noise);

/* Points q at plan, a subset of the plan it was made for (the processes
 * left after the others were given to abseq_record(): a resumed run, as
 * `bisect --resume` continues a step), with its arm. BG_EGENERIC when plan
 * has a cell q does not know. */
int abseq_replan(struct abseq *q, const struct matrix *plan, const unsigned char *arm);

/* Whether plan cell i is still needed: false once its cell stopped. */
bool abseq_needed(const struct abseq *q, size_t i);

/* Records what plan cell i gave; looks when it completes a look's pair. */
int abseq_record(struct abseq *q, size_t i, const struct result *r);

/* Writes the design and, per cell, how many processes it took and why it
 * stopped ("run.seq.design", "run.seq.cell.<identity>") into both runs;
 * prints the per-cell lines to out (NULL: not printed). */
int abseq_finish(struct abseq *q, struct store *a, struct store *b, FILE *out);

void abseq_free(struct abseq *q);

/* The run-wide key of a cell's stop note, malloc'd: "run.seq.cell.<identity>"
 * with the identity as compare names it (model/task/b<batch>/backend). */
char *abseq_note_key(const char *identity);

#endif /* BENCHGEN_ABSEQ_H */
