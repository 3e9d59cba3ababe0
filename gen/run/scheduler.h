/*
 * scheduler.h - runs a plan's cells one at a time and records each.
 *
 * One at a time because cells must not share a device (and on a CPU they
 * would steal each other's cores). For every cell: resolve its Python
 * environment (missing -> skipped), run it in a worker (runners/worker.h),
 * record it in one transaction (store.h), print progress. SIGINT/SIGTERM
 * stop the cell in flight, record it as interrupted and end the run.
 */
#ifndef BENCHGEN_SCHEDULER_H
#define BENCHGEN_SCHEDULER_H

#include <stdbool.h>
#include <stdio.h>

#include "plan/matrix.h"
#include "store/store.h"

struct sched_summary {
    int total, ok, unsupported, failed, skipped, interrupted;
};

/* 0 (see summary for how cells ended) or BG_EINTR when the user stopped the
 * run; other negative codes when the store could not be written. */
int sched_run(struct store *st, const struct matrix *todo, struct sched_summary *sum);

/* Prints the plan: one line per cell with its settings. */
void sched_print_plan(const struct matrix *todo, FILE *out);

#endif /* BENCHGEN_SCHEDULER_H */
