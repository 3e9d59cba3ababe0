/*
 * cellfile.h - the files a run directory's cells travel through when they
 * run in other processes or on other machines (benchgen cell, the local
 * executor with --devices/--cpus-per-cell, the Slurm executor):
 *
 *   RUN_DIR/cells/plan.json        every cell of the plan, with all its
 *                                  settings and cluster resources, so a
 *                                  task never opens run.db (SQLite over
 *                                  NFS is not safe); written when the run
 *                                  is created
 *   RUN_DIR/cells/<id>/<tag>.json  one file per attempt of cell <id>: the
 *                                  full result (status, detail, samples,
 *                                  markers, facts, environment)
 *   RUN_DIR/cells/<id>/<tag>.slurm.json
 *                                  the submitting side's verdict on an
 *                                  attempt that Slurm ended (TIMEOUT, ...)
 *                                  before it could write one, or after it
 *                                  wrote `interrupted`
 *
 * Every file is written to a temporary name, fsynced and renamed, so a
 * reader sees a whole file or none. The attempt tag is "s<array job>_<task>
 * .<restart>" under Slurm and "l<ns>.<pid>" locally; the attempt a result
 * belongs to is the tag, so a verdict does not count as another attempt.
 *
 * Ownership: the caller owns what the loaders fill (matrix_free(),
 * cellfile_attempts_free(), result_free()).
 */
#ifndef BENCHGEN_CELLFILE_H
#define BENCHGEN_CELLFILE_H

#include <stddef.h>
#include <stdint.h>

#include "plan/matrix.h"
#include "store/result.h"
#include "store/store.h"

#define CELLFILE_PLAN_FORMAT "benchgen-plan/1"
#define CELLFILE_ATTEMPT_FORMAT "benchgen-attempt/1"

/* Writes RUN_DIR/cells/plan.json for plan. */
int cellfile_write_plan(const char *run_dir, const struct matrix *plan);

/* Writes RUN_DIR/cells/plan.json from run.db's plan unless it is there
 * (`run` writes it at creation, with each cell's cluster resources, which
 * run.db does not keep: an existing plan.json is the original). */
int cellfile_ensure_plan(const char *run_dir, struct store *st);

/* Loads RUN_DIR/cells/plan.json. */
int cellfile_read_plan(const char *run_dir, struct matrix *out);

/* Writes RUN_DIR/cells/<id>/<tag>.json (verdict: <tag>.slurm.json). The
 * result's finished time orders attempts; finished_ns (CLOCK_REALTIME) breaks
 * ties within a second. */
int cellfile_write_attempt(const char *run_dir, const struct cell *c, const char *tag, int verdict,
                           const struct result *r);

/* One stored attempt file, without its samples (cellfile_read_attempt). */
struct cellfile_attempt {
    char *name;   /* file name, "s12_3.0.json" */
    char *tag;    /* "s12_3.0" */
    enum status status;
    int verdict;  /* written by the submitting side */
    int64_t finished_ns;
};

struct cellfile_attempts {
    struct cellfile_attempt *v; /* oldest first (finished_ns, then name) */
    size_t n;
};

/* Lists cell id's attempt files (none is not an error). Files that cannot be
 * parsed are skipped with a warning on stderr (a half-copied directory). */
int cellfile_list_attempts(const char *run_dir, int id, struct cellfile_attempts *out);
void cellfile_attempts_free(struct cellfile_attempts *a);

/* Reads one attempt file of cell c in full; its key must be c's. */
int cellfile_read_attempt(const char *run_dir, const struct cell *c, const char *name, struct result *r);

/* RUN_DIR/cells, malloc'd. */
char *cellfile_dir(const char *run_dir);

#endif /* BENCHGEN_CELLFILE_H */
