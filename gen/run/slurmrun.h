/*
 * slurmrun.h - a run submitted to Slurm, seen from the submitting side
 * after the fact: which array task each cell last went to (run.db's
 * slurm.job.<id> notes), what Slurm says of it now (squeue, scontrol), the
 * verdict on a task Slurm ended without a final result, and `benchgen
 * status` / `benchgen collect`.
 *
 * A cell is, in this order: final (run.db has a status other than
 * interrupted, or its newest attempt file does: "not collected"), running
 * (squeue: RUNNING, on which node), queued (squeue: PENDING and the like,
 * with Slurm's reason), ended by Slurm without a result (a verdict is due),
 * or pending (no status and no live task).
 */
#ifndef BENCHGEN_SLURMRUN_H
#define BENCHGEN_SLURMRUN_H

#include <stdbool.h>
#include <stdio.h>

#include "plan/matrix.h"
#include "run/slurm.h"
#include "store/store.h"

/* The standing attempt of cell c among its files that pass the checks
 * (run/collect.h): its tag and status ("" and STATUS_NONE when none). A
 * writer quarantines the files that fail; a reader only warns. */
int slurmrun_newest(struct store *st, const struct cell *c, bool writer, char tag[128], enum status *status);

/* true for a status that ends a cell (anything but STATUS_NONE and interrupted). */
bool slurmrun_status_final(enum status status);

/* Writes the submitting side's verdict on cell c, whose task job_<id> Slurm
 * ended (t; NULL when Slurm forgot it) without a final result: the status the
 * state means (slurm_state_status) and Slurm's reason and exit code
 * (scontrol) in the detail. newest_tag/newest_status: the cell's newest
 * attempt ("" if none); the verdict joins that attempt when it is this
 * task's, so it does not count as another one. */
int slurmrun_verdict(const char *run_dir, const struct cell *c, const char *job, const struct slurm_task *t,
                     const char *newest_tag, enum status newest_status);

/* `benchgen collect`: verdicts for tasks Slurm ended without a final result,
 * then every attempt file merged (collect_run). *still counts cells whose
 * task is queued or running, *quarantined the result files refused. */
int slurmrun_collect(struct store *st, const struct matrix *plan, int *verdicts, int *files, int *cells,
                     int *still, int *quarantined);

/* Marks in active[i] the cells of plan whose task is queued or running, and
 * returns how many there are in *n (for --resume, which must not submit a
 * cell twice). */
int slurmrun_active(struct store *st, const struct matrix *plan, unsigned char *active, size_t *n);

/* true when the run was ever submitted to Slurm. */
bool slurmrun_submitted(struct store *st);

/* `benchgen status`: one line per cell and a summary. */
int slurmrun_print_status(struct store *st, const struct matrix *plan, FILE *out);

#endif /* BENCHGEN_SLURMRUN_H */
