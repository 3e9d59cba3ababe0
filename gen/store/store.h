/*
 * store.h - the run directory's database, run.db (SQLite, WAL mode).
 *
 * Durability rule: the plan (every cell, status NULL) is written when the run
 * is created; each finished cell is written in exactly one transaction
 * (status, samples, facts, environment), so a SIGKILL loses at most the cell
 * in flight and a crash never leaves a half-recorded cell.
 *
 * Schema (schema_version 1; readers such as the report rely on it):
 *
 *   meta(key TEXT PRIMARY KEY, value TEXT)        -- schema_version, created_by
 *   run(id INTEGER PRIMARY KEY CHECK (id = 1),
 *       name, description, spec_path, spec_sha256, spec_text, size, precision,
 *       seed INTEGER, created_utc, started_utc, finished_utc, command_line,
 *       benchgen_version, git_commit, git_dirty INTEGER)
 *   cells(id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, model, task,
 *       batch INTEGER, backend, size, precision, env, workload, steps INTEGER,
 *       warmup INTEGER, repeat INTEGER, seed INTEGER, timeout_s REAL,
 *       memory_limit INTEGER,
 *       status TEXT,            -- NULL until final: ok|error|crash|timeout|oom|
 *                               -- unsupported|skipped|interrupted
 *       detail TEXT, input_sha256 TEXT, input_bytes INTEGER,
 *       started_utc, finished_utc, wall_s REAL, peak_rss INTEGER,
 *       exit_code INTEGER, term_signal INTEGER, log_path TEXT, attempts INTEGER,
 *       method TEXT,            -- published | corrected; absent in runs stored before it
 *       device TEXT)            -- gpu | cpu | auto (plan/device.h); absent in runs stored before it
 *   samples(cell_id INTEGER, phase TEXT CHECK (phase IN ('warmup','timed')),
 *       idx INTEGER, ns INTEGER, PRIMARY KEY (cell_id, phase, idx)) WITHOUT ROWID
 *   markers(cell_id INTEGER, name TEXT, ns INTEGER)          -- phase markers
 *   facts(cell_id INTEGER, name TEXT, value TEXT, PRIMARY KEY (cell_id, name))
 *   environment(cell_id INTEGER, key TEXT, value TEXT)       -- cell_id 0 = run-wide
 *   attempts(file TEXT, cell_id INTEGER, tag TEXT, status TEXT, merged_utc TEXT,
 *       PRIMARY KEY (cell_id, file))  -- result files merged (store_merge); only
 *                                     -- in runs whose cells ran elsewhere
 *   issued(cell_id INTEGER, seq INTEGER, tag TEXT, pubkey TEXT, issued_utc TEXT,
 *       PRIMARY KEY (cell_id, seq))    -- attempts the submitting side issued
 *                                      -- (store_issue; run/cellkey.h)
 *   quarantine(cell_id INTEGER, file TEXT, kept_as TEXT, reason TEXT,
 *       quarantined_utc TEXT)          -- result files merging refused
 *   (attempts, issued and quarantine are created when first written, without
 *   changing schema_version: older runs stay readable and gain them.)
 *   inputs(path TEXT PRIMARY KEY, kind, origin, sha256, size INTEGER,
 *       content BLOB)   -- the files the run depends on, as they were when it
 *                       -- was created (store/runinputs.h); absent in runs
 *                       -- stored before it, which readers take as none
 *
 * Writing a finished cell: store/store_record.h. Reading a whole run:
 * store/rundata.h. The SQLite connection is private to gen/store
 * (store/store_sql.h); nothing above this layer sees it.
 *
 * Ownership: store_create()/store_open() give the caller a handle that
 * store_close() releases.
 */
#ifndef BENCHGEN_STORE_H
#define BENCHGEN_STORE_H

#include <stdbool.h>
#include <time.h>

#include "plan/matrix.h"
#include "store/result.h"
#include "store/runinputs.h"
#include "store/rundir.h"
#include "plan/spec.h"
#include "base/util.h"
#include "base/voice.h"

#define STORE_SCHEMA_VERSION 1
#define STORE_DB_NAME RUNDIR_DB_NAME

struct store;

/* Creates DIR (and DIR/logs) and DIR/run.db with the run row, the plan,
 * the run-wide environment and the files the run depends on (inputs, may be
 * NULL; store/runinputs.h), built under a temporary name and renamed into
 * place once committed; the handle holds DIR/run.lock (store/rundir.h).
 * Refuses (BG_EUSAGE) a DIR that already holds run.db (suggesting --resume),
 * any other non-empty DIR, and a DIR another process is creating or writing,
 * so stored data is never overwritten. voice (borrowed for the handle's
 * life, may be NULL) hears the clean-up of dead creators' leftovers and
 * becomes the handle's voice (store_voice()). */
int store_create(struct store **out, const char *dir, const struct spec *spec, const struct matrix *plan,
                 const struct kvlist *run_env, const struct run_inputs *inputs, const char *command_line,
                 const struct voice *voice);

/* Opens an existing run; BG_ENOTFOUND when DIR/run.db is missing, BG_EDB when
 * it is not a benchgen run or its schema_version is newer. A writer (readonly
 * false) holds DIR/run.lock until store_close(): BG_EUSAGE, naming the
 * holder, when another process writes the run. */
int store_open(struct store **out, const char *dir, bool readonly);

/* Loads the plan back (every cell, in id order). */
int store_load_plan(struct store *s, struct matrix *out);

/* The SHA-256 of the spec the run was created from ("" when none). */
int store_spec_sha256(struct store *s, char sha256[65]);

/* Final status of a cell, STATUS_NONE when it has none yet; BG_EDB for a
 * status name run.db should not hold. */
int store_cell_status(struct store *s, int cell_id, enum status *status);

/* The files the run recorded when it was created (store/runinputs.h; none
 * for a run made before them), sorted by path, into out (empty on entry). */
int store_inputs(struct store *s, struct run_inputs *out);

/* Adds one run-wide environment row (cell_id 0), e.g. a Slurm submission. */
int store_note_run(struct store *s, const char *key, const char *value);

/* Removes from the plan the cells that never started (no status, no
 * attempt, nothing recorded): what a sequential `run --ab` decided it did
 * not need. Only rows this run planned; *dropped says how many. */
int store_drop_unstarted(struct store *s, size_t *dropped);

/* Appends the run-wide environment rows whose key starts with prefix, in
 * the order they were added. */
int store_run_notes(struct store *s, const char *prefix, struct kvlist *out);

int store_mark_started(struct store *s, time_t t);
int store_mark_finished(struct store *s, time_t t);

/* Copies run.db of RUN_DIR into the new file dst_path through SQLite's
 * backup API (a consistent snapshot even while the run is written), then
 * out of WAL mode and vacuumed, so the copy is one self-contained file whose
 * bytes depend on the run's content, not on its write history. */
int store_copy(const char *run_dir, const char *dst_path);
const char *store_dir(const struct store *s);

/* Who hears what is done with the run: the scheduler's progress, collect's
 * quarantines, an executor's warnings (base/voice.h). Borrowed; NULL (the
 * default of store_open()) is silence. */
void store_set_voice(struct store *s, const struct voice *voice);
const struct voice *store_voice(const struct store *s);

void store_close(struct store *s);

#endif /* BENCHGEN_STORE_H */
