/*
 * cellrun.h - `benchgen cell RUN_DIR ID`: runs one cell of a run in this
 * process's worker, as a task of the Slurm executor or a slot of the local
 * executor with --devices/--cpus-per-cell, and writes its result as one
 * attempt file (run/cellfile.h), signed with the attempt's key (run/
 * cellkey.h; refused without one). It runs the cell as run.db's plan has
 * it, opening run.db read-only (the submitting side is its only writer);
 * RUN_DIR/cells/plan.json adds the cluster resources and log limit and must
 * agree with run.db on every other setting, or the cell is refused.
 *
 * Signals: SIGTERM, SIGINT and SIGHUP (Slurm preemption, requeue, scancel,
 * the local executor stopping) kill the cell, which is recorded as
 * `interrupted`; SIGUSR1 (sbatch --signal before the time limit) kills it
 * and records `timeout`, saying so in the detail.
 *
 * Under Slurm the attempt's tag is s<array job>_<task>.<restart count> and
 * a task requeued max_attempts times or more is not run again: it records
 * `interrupted` with the reason, so `run --resume` can try it later.
 */
#ifndef BENCHGEN_CELLRUN_H
#define BENCHGEN_CELLRUN_H

#include "plan/status.h"

struct cellrun_options {
    const char *tag;  /* the attempt's tag; NULL: from Slurm's variables or l<ns>.<pid> */
    int max_attempts; /* 0 = CELLRUN_MAX_ATTEMPTS */
    double wait_idle; /* seconds to wait for a quiet machine first (run --wait-idle); 0: none */
};

#define CELLRUN_MAX_ATTEMPTS 3

/* 0 when a result file was written (whatever the cell's status, copied to
 * status), negative when none could be. */
int cellrun(const char *run_dir, int id, const struct cellrun_options *o, enum status *status);

#endif /* BENCHGEN_CELLRUN_H */
