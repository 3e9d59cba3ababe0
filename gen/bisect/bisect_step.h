/*
 * bisect_step.h - one step of `benchgen bisect` (bisect.h): the interleaved
 * A/B run of releases b->rel.v[s->a] (A) and b->rel.v[s->b] (B), each in
 * the environments that pin the package to it, into DIR/<s->dir>/{a,b}, and
 * compare's verdicts on it.
 */
#ifndef BENCHGEN_BISECT_STEP_H
#define BENCHGEN_BISECT_STEP_H

#include "bisect/bisect_data.h"

/* Builds both releases' environments, creates the step's run directories or
 * opens them when they exist (a step being continued runs only the
 * processes with no final status), runs, and sets s->verdict, s->ratio,
 * s->cells (and, at the endpoints, b->targets). With b->o.sequential the
 * run stops as `run --ab` stops (run/abseq.h: its cells after the
 * endpoints are the targets alone; the rule's noise floor is s->noise, the
 * band compare judges it with) and records it as run --ab does;
 * s->processes becomes the most processes a side a cell took. B's environment that cannot
 * be built, or B's cells that do not run, make the step BISECT_SKIP with
 * s->reason; at the endpoints, and for A, that is an error. BG_EINTR on
 * Ctrl-C: the step stays pending, and running it again continues it. */
int bisect_step_run(struct bisect *b, struct bisect_step *s);

/* The sequential design of the steps (first, cap, effect of b->o), made
 * on first use and kept in b->design; BG_EUSAGE for one seqtest_design()
 * refuses. */
int bisect_design(struct bisect *b, const struct seqtest_design **out);

#endif /* BENCHGEN_BISECT_STEP_H */
