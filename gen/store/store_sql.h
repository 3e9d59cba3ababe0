/*
 * store_sql.h - what the files of gen/store share about run.db and nothing
 * else may use: the store handle's fields (the SQLite connection stays
 * private to the store layer; commands and other layers go through store.h,
 * store_record.h and rundata.h) and small SQLite helpers that turn a failure
 * into one BG_EDB message.
 */
#ifndef BENCHGEN_STORE_SQL_H
#define BENCHGEN_STORE_SQL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <sqlite3.h>

#include "base/util.h"
#include "base/voice.h"
#include "plan/matrix.h"
#include "store/runinputs.h"

struct store {
    sqlite3 *db;
    char *dir;
    bool readonly;
    int lock_fd;    /* DIR/run.lock, held by a writer for the store's life; -1 for readers */
    uint32_t wal_id; /* page 1's user_version, the run's WAL id (store/store_wal.h); 0 until read */
    bool bound;      /* the open write transaction went through store_sql_begin() */
    char *snapshot;  /* a reader's private copy of run.db and its WAL (removed at close), or NULL */
    const struct voice *voice; /* who hears what is done with the run (store_set_voice()); borrowed */
};

/* Every write transaction of a writer starts here: BEGIN IMMEDIATE, then
 * page 1's user_version set to the run's WAL id, so each commit in
 * run.db-wal carries it and readers can tell the WAL is this run's
 * (store/store_wal.h). A write that did not start here is rolled back at
 * COMMIT (a commit hook; SQLite reports a failed constraint). */
int store_sql_begin(struct store *s);

/* BG_EDB, "run.db: WHAT: <SQLite's message>". */
int store_sql_error(sqlite3 *db, const char *what);

/* Runs SQL text (no rows); BG_EDB with SQLite's message. */
int store_sql_exec(sqlite3 *db, const char *sql);

int store_sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st);

/* Binds text, or NULL when s is NULL (or empty and empty_is_null). */
int store_sql_bind_text(sqlite3_stmt *st, int i, const char *s, bool empty_is_null);

/* Binds t as ISO 8601 UTC text, or NULL when t <= 0. */
int store_sql_bind_time(sqlite3_stmt *st, int i, time_t t);

/* Column i's text, malloc'd; NULL stays NULL unless required, then "". */
char *store_sql_column_text(sqlite3_stmt *st, int i, bool required);

/* The cells columns that hold the plan, in the order store_sql_read_cell()
 * reads them; runs stored before the method or device key have no such
 * column and select NULL in its place (store_sql_prepare_cells()). */
#define STORE_SQL_CELL_COLUMNS                                                                               \
    "id, key, model, task, batch, backend, size, precision, env, workload, steps, warmup, repeat, seed,"   \
    " timeout_s, memory_limit, method, device"
#define STORE_SQL_CELL_NCOLUMNS 18

/* Prepares "SELECT <the plan's columns><tail> FROM cells ORDER BY id" for
 * whichever columns this run.db has (NULL for method and device in runs
 * stored before them). tail: more columns (", status, ..."), or "". */
int store_sql_prepare_cells(sqlite3 *db, const char *tail, sqlite3_stmt **st);

/* Fills c (zeroed by the caller) from columns 0 .. STORE_SQL_CELL_NCOLUMNS - 1
 * of a row selected with STORE_SQL_CELL_COLUMNS. Text the plan requires comes
 * back as "" when NULL; workload, method and device stay NULL. c->res and
 * c->log_limit are not stored and stay zero. The caller frees c (cell_free). */
void store_sql_read_cell(sqlite3_stmt *st, struct cell *c);

/* Column i as written by store_sql_bind_time(): 0 when NULL; BG_EDB naming
 * cell_id and what for any other text than util_iso8601_utc() writes. */
int store_sql_column_time(sqlite3_stmt *st, int i, int cell_id, const char *what, time_t *out);

/* Runs a statement that returns no rows, then resets it for reuse. */
int store_sql_step_done(sqlite3 *db, sqlite3_stmt *st, const char *what);

/* Rolls back the open transaction, if there is one. */
void store_sql_rollback(sqlite3 *db);

/* Inserts env as environment rows of cell_id (0: run-wide). */
int store_sql_insert_env(sqlite3 *db, int cell_id, const struct kvlist *env);

/* The inputs table (store/runinputs.h): its CREATE statement, the rows of
 * a new run, and every row back (none in a run made before the table). */
extern const char *const store_sql_inputs_schema;
int store_sql_insert_inputs(sqlite3 *db, const struct run_inputs *l);
int store_sql_read_inputs(sqlite3 *db, struct run_inputs *out);

/* BG_EDB when s was opened read-only. */
int store_sql_writable(const struct store *s);

#endif /* BENCHGEN_STORE_SQL_H */
