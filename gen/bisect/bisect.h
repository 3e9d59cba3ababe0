/*
 * bisect.h - `benchgen bisect`: which release of a package made a cell
 * slower (or faster)? Over the published releases of the package between a
 * good and a bad version (envs/envs_releases.h), each step an interleaved
 * A/B run (plan/abplan.h, sched_run_ab()) of two derived environments that
 * pin the package (envs/envs_derive.h), judged by compare's per-cell
 * verdicts (compare/compare.h). docs/BISECT.md has the method.
 *
 *   1. the endpoints: good against bad; the cells compare calls slower
 *      (faster with o.faster) are the cells bisected; none: nothing to
 *      bisect;
 *   2. steps: the current good against the untested release nearest the
 *      middle of the range left: "slower" in a bisected cell moves the bad
 *      end there, every bisected cell "same" (or moved the other way) moves
 *      the good end. Each step (and the endpoints) stops as `run --ab`
 *      does (run/abseq.h): a first batch a side, then two more at each look
 *      while a cell is undecided, up to the cap; "ambiguous" at the cap
 *      stops with the range narrowed so far. With a fixed count a side
 *      (o.processes, --repeats), "ambiguous" runs the step again with twice
 *      the processes, up to o.max_processes a side, then stops the same way;
 *   3. a release whose environment cannot be built, or whose cells do not
 *      run, is skipped with the reason (as git bisect skips).
 *
 * Every step is a normal A/B run directory, DIR/<NN>-<version>[-xN]/{a,b}.
 * DIR/bisect.json holds the state, rewritten after each change, so that
 * bisect_resume() continues after a Ctrl-C or a crash without running a
 * finished step (or a finished process of an interrupted one) again.
 *
 * Ownership: struct bisect owns everything in it; bisect_free().
 */
#ifndef BENCHGEN_BISECT_H
#define BENCHGEN_BISECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bisect/bisect_data.h"

/* Lists the releases and creates DIR with its state (nothing is run yet).
 * BG_EUSAGE for a taken DIR, an unknown version or bad options. */
int bisect_start(struct bisect **out, const struct bisect_options *o);

/* Reads DIR's state. BG_ENOTFOUND when DIR holds none. */
int bisect_resume(struct bisect **out, const char *dir);

/* Runs what is left until an outcome; the state is saved after every
 * change, the outputs written at the end. BG_EINTR on Ctrl-C (resumable).
 * voice (may be NULL) hears each step (topic "bisect") and its runs. */
int bisect_run(struct bisect *b, const struct voice *voice);

/* "step 3 of at most 5": the bisection steps run or running, and how many
 * more there can be at most. */
void bisect_progress(const struct bisect *b, int *step, int *at_most);

/* The state file and the outputs (bisect_state.c, bisect_out.c). */
int bisect_save(const struct bisect *b);
int bisect_load(struct bisect *b, const char *dir);
int bisect_write_outputs(const struct bisect *b);
int bisect_write_text(const struct bisect *b, FILE *out);

const char *bisect_verdict_name(enum bisect_verdict v);
const char *bisect_outcome_name(enum bisect_outcome o);

void bisect_free(struct bisect *b);

#endif /* BENCHGEN_BISECT_H */
