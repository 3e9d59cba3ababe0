/*
 * scheduler.h - runs a plan's cells through an executor and records each.
 *
 * The scheduler plans and records; the executor (executor.h) only starts
 * cells and hands back results. The default executor, local, runs one cell
 * at a time, because cells must not share a device (and on a CPU they would
 * steal each other's cores). For every cell that comes back: record it in
 * one transaction (store.h) and tell the store's voice (store_voice(): a
 * cell starts, its phase about every 250 ms, it ends; base/voice.h).
 * SIGINT/SIGTERM stop the cell in flight, record it as interrupted and end
 * the run.
 */
#ifndef BENCHGEN_SCHEDULER_H
#define BENCHGEN_SCHEDULER_H

#include <stdbool.h>
#include <stdio.h>

#include "plan/matrix.h"
#include "run/executor.h"
#include "store/store.h"

struct sched_summary {
    int total, ok, unsupported, failed, skipped, interrupted;
    int skipped_seq; /* run --ab, sequential: processes a stopped cell did not need */
    char submitted[256]; /* what the executor queued ("" locally): a Slurm job id */
};

/* Runs todo with the executor eo asks for (NULL: local, one at a time).
 * With eo->no_wait it returns once the executor has queued the cells.
 * 0 (see summary for how cells ended) or BG_EINTR when the user stopped the
 * run; other negative codes when the executor refused its options or the
 * store could not be written. */
int sched_run(struct store *st, const struct matrix *todo, const struct exec_options *eo,
              struct sched_summary *sum);

/* One side of an interleaved A/B run (`run --ab`): the store its cells are
 * recorded in and "NAME=VALUE" variables set for its workers only. */
struct sched_arm {
    struct store *st;
    const char *const *setenv;
    size_t nsetenv;
    double wait_idle; /* run --wait-idle: seconds to wait for a quiet machine before each cell */
};

struct abseq;

/* Runs todo locally, one cell at a time in plan order, recording cell i in
 * arms[arm[i]] (arm[i] is 0 or 1): the A and B processes of each cell
 * alternate in one loop (plan/abplan.h orders them), so drift over the run
 * hits both sides alike. With seq (run/abseq.h, may be NULL), a process
 * whose cell has already stopped is skipped (counted in sum->skipped_seq,
 * not run, not recorded). Each arm keeps its own compile caches, one
 * directory per cell under ARM_DIR/compile-cache (A and B never share one):
 * the arm's first process of a cell compiles cold, its later ones start
 * with what it left (their fact compile.cache says warm; runners/worker.h).
 * The directories are removed when the run ends. The loop's events go to
 * arms[0].st's voice. Returns as sched_run(). */
int sched_run_ab(const struct sched_arm arms[2], const struct matrix *todo, const unsigned char *arm,
                 struct abseq *seq, struct sched_summary *sum);

/* Prints the plan: one line per cell with its settings. */
void sched_print_plan(const struct matrix *todo, FILE *out);

/* Prints a plan: sched_print_plan()'s when arm is NULL, else an interleaved
 * A/B plan, one line per process with its arm (arm[i]: 0 A, 1 B); upto: the
 * count is a cap (sequential verdicts may stop earlier). */
void sched_print_plan_arms(const struct matrix *todo, const unsigned char *arm, bool upto, FILE *out);

#endif /* BENCHGEN_SCHEDULER_H */
