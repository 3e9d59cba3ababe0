/*
 * rundata.h - a stored run loaded into memory for readers (show, report,
 * compare, bundle): the run row, every cell with its samples, markers,
 * facts, per-cell environment and summary statistics, and the run-wide
 * environment. Read-only: nothing here writes run.db.
 *
 * Cells come in id (plan) order. status is STATUS_NONE for a cell that has no final
 * status yet (never run, or in flight when the run was killed).
 *
 * Strings are never NULL unless marked "may be NULL" (absent text reads as
 * ""). Per cell, STATUS_NONE means every result field (detail .. attempts,
 * samples, markers, facts, environment) is empty or zero.
 *
 * Ownership: rundata_load() gives the caller a struct rundata that
 * rundata_free() releases with every string and array it points to.
 */
#ifndef BENCHGEN_RUNDATA_H
#define BENCHGEN_RUNDATA_H

#include <stddef.h>
#include <stdint.h>

#include "plan/status.h"
#include "stats/stats.h"
#include "base/util.h"

struct rd_cell {
    int id;
    char *key, *model, *task, *backend, *size, *precision, *env, *workload; /* workload may be NULL */
    char *method;          /* published | corrected as planned; NULL in runs stored before the key */
    int batch, steps, warmup, repeat;
    uint64_t seed;
    double timeout_s;
    int64_t memory_limit;
    enum status status;    /* STATUS_NONE: no final status */
    char *detail;          /* may be NULL */
    char *input_sha256;    /* may be NULL */
    int64_t input_bytes;
    char *started_utc, *finished_utc, *log_path; /* may be NULL */
    double wall_s;
    int64_t peak_rss;
    int exit_code, term_signal, attempts;
    int64_t *warmup_ns;    /* in idx order; [0] is the first call (compile time) */
    size_t nwarmup;
    int64_t *timed_ns;     /* in idx order */
    size_t ntimed;
    struct kvlist markers; /* name -> ns (decimal), in time order */
    struct kvlist facts;   /* name -> value, sorted by name */
    struct kvlist environment; /* per-cell environment: key -> value, sorted by key */
    struct stats st;       /* of timed_ns; st.n == 0 when there are none */
};

struct rundata {
    char *dir;
    char *name, *description, *spec_path, *spec_sha256, *spec_text, *size, *precision;
    char *created_utc, *started_utc, *finished_utc, *command_line; /* started/finished: may be NULL */
    char *benchgen_version, *git_commit;
    int git_dirty;
    uint64_t seed;
    struct kvlist env;     /* run-wide environment (cell_id 0), sorted by key */
    struct rd_cell *cells;
    size_t ncells;
};

/* BG_ENOTFOUND when RUN_DIR/run.db is missing; BG_EDB on a foreign or newer schema. */
int rundata_load(struct rundata **out, const char *run_dir);

/* Cell by key, borrowed; NULL when absent. */
const struct rd_cell *rundata_find(const struct rundata *rd, const char *key);

void rundata_free(struct rundata *rd);

#endif /* BENCHGEN_RUNDATA_H */
