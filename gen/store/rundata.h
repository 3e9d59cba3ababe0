/*
 * rundata.h - a stored run loaded into memory for readers (show, report,
 * compare, bundle): the run row, every cell record and the run-wide
 * environment. Read-only: nothing here writes run.db.
 *
 * A cell record is one struct rd_cell, composed of the structs the writing
 * side already has, so a field has one name and one type from plan to report:
 *   cell    the plan's cell (plan/matrix.h) as stored in run.db;
 *   result  what the cell produced (store/result.h), as the store wrote it;
 *   st      the summary statistics (stats/stats.h) of result.timed_ns;
 * plus the two things only the store knows: where the cell's log is and how
 * many times it was recorded. Cells come in id (plan) order.
 *
 * result.status is STATUS_NONE for a cell that has no final status yet (never
 * run, or in flight when the run was killed); then every other result field
 * is empty or zero. Times are time_t (0: none); readers print them with
 * util_utc_or_null() (base/util.h), the form run.db stores.
 *
 * Strings are never NULL unless marked "may be NULL" here or in plan/matrix.h
 * and store/result.h (absent text reads as "").
 *
 * Ownership: rundata_load() gives the caller a struct rundata that
 * rundata_free() releases with every cell record and every string, array and
 * list they point to (cell_free() and result_free() of each cell, once).
 */
#ifndef BENCHGEN_RUNDATA_H
#define BENCHGEN_RUNDATA_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "plan/matrix.h"
#include "plan/status.h"
#include "stats/stats.h"
#include "store/result.h"
#include "store/runinputs.h"

struct rd_cell {
    struct cell cell;     /* the plan's cell as stored; cell.res and cell.log_limit are not stored: zero */
    struct result result; /* what it produced; result.telemetry is not loaded: empty */
    struct stats st;      /* of result.timed_ns; st.n == 0 when there are none */
    char *log_path;       /* the cell's log as the run recorded it; may be NULL */
    int attempts;         /* times the cell was recorded (run again, or attempt files merged) */
};

struct rundata {
    char *dir;
    char *name, *description, *spec_path, *spec_sha256, *spec_text, *size, *precision;
    char *created_utc, *started_utc, *finished_utc, *command_line; /* started/finished: may be NULL */
    char *benchgen_version, *git_commit;
    int git_dirty;
    uint64_t seed;
    struct kvlist env;     /* run-wide environment (cell_id 0), sorted by key */
    struct run_inputs inputs; /* the files the run depended on when created, by path; none in older runs */
    struct rd_cell *cells;
    size_t ncells;
};

/* BG_ENOTFOUND when RUN_DIR/run.db is missing; BG_EDB on a foreign or newer schema. */
int rundata_load(struct rundata **out, const char *run_dir);

/* Cell by key, borrowed; NULL when absent. */
const struct rd_cell *rundata_find(const struct rundata *rd, const char *key);

void rundata_free(struct rundata *rd);

#endif /* BENCHGEN_RUNDATA_H */
