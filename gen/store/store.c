/*
 * store.c - the run directory's database, run.db (see store.h for the schema
 * and the durability rule, docs/RUN-FORMAT.md for what each column means).
 *
 * Every write is one transaction: the whole plan at creation, each cell when
 * it finishes. WAL with synchronous=FULL makes each commit durable before
 * store_record() returns; cells last seconds to minutes, so the fsync per
 * cell costs nothing measurable and a power cut loses at most the cell that
 * was running.
 */
#include "store/store.h"
#include "plan/catalog.h"
#include "plan/status.h"
#include "base/error.h"
#include "base/version.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>


/* A writer waits this long for another connection's lock (a `show` of a live
 * run holds a read snapshot; WAL readers never block the writer, but a
 * checkpoint may briefly). */
#define STORE_BUSY_TIMEOUT_MS 10000

struct store {
    sqlite3 *db;
    char *dir;
    bool readonly;
    int lock_fd; /* DIR/run.lock, held by a writer for the store's life; -1 for readers */
};

static const char *const schema_sql =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);\n"
    "CREATE TABLE run(id INTEGER PRIMARY KEY CHECK (id = 1),\n"
    "  name TEXT NOT NULL, description TEXT, spec_path TEXT, spec_sha256 TEXT, spec_text TEXT,\n"
    "  size TEXT, precision TEXT, seed INTEGER, created_utc TEXT, started_utc TEXT,\n"
    "  finished_utc TEXT, command_line TEXT, benchgen_version TEXT, git_commit TEXT,\n"
    "  git_dirty INTEGER);\n"
    "CREATE TABLE cells(id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, model TEXT, task TEXT,\n"
    "  batch INTEGER, backend TEXT, size TEXT, precision TEXT, env TEXT, workload TEXT,\n"
    "  steps INTEGER, warmup INTEGER, repeat INTEGER, seed INTEGER, timeout_s REAL,\n"
    "  memory_limit INTEGER, status TEXT, detail TEXT, input_sha256 TEXT, input_bytes INTEGER,\n"
    "  started_utc TEXT, finished_utc TEXT, wall_s REAL, peak_rss INTEGER, exit_code INTEGER,\n"
    "  term_signal INTEGER, log_path TEXT, attempts INTEGER NOT NULL DEFAULT 0, method TEXT);\n"
    "CREATE TABLE samples(cell_id INTEGER NOT NULL REFERENCES cells(id),\n"
    "  phase TEXT NOT NULL CHECK (phase IN ('warmup','timed')), idx INTEGER NOT NULL,\n"
    "  ns INTEGER NOT NULL, PRIMARY KEY (cell_id, phase, idx)) WITHOUT ROWID;\n"
    "CREATE TABLE markers(cell_id INTEGER NOT NULL REFERENCES cells(id), name TEXT NOT NULL,\n"
    "  ns INTEGER NOT NULL);\n"
    "CREATE INDEX markers_cell ON markers(cell_id);\n"
    "CREATE TABLE facts(cell_id INTEGER NOT NULL REFERENCES cells(id), name TEXT NOT NULL,\n"
    "  value TEXT, PRIMARY KEY (cell_id, name));\n"
    "CREATE TABLE environment(cell_id INTEGER NOT NULL, key TEXT NOT NULL, value TEXT);\n"
    "CREATE INDEX environment_cell ON environment(cell_id);\n";

/* The attempt files merged so far (store_merge); created on first use, so
 * runs written before it existed stay readable and writable. */
static const char *const attempts_sql =
    "CREATE TABLE IF NOT EXISTS attempts(file TEXT NOT NULL, cell_id INTEGER NOT NULL REFERENCES cells(id),\n"
    "  tag TEXT NOT NULL, status TEXT, merged_utc TEXT, PRIMARY KEY (cell_id, file));\n";

/* Telemetry series (run/telemetry.h), added after schema_version 1 without
 * changing it: created by every writer, so a run made by an older benchgen
 * gains it when resumed, and readers that do not know it never look. */
static const char *const telemetry_sql =
    "CREATE TABLE IF NOT EXISTS telemetry(cell_id INTEGER NOT NULL REFERENCES cells(id),\n"
    "  name TEXT NOT NULL, t_ns INTEGER NOT NULL, value REAL,\n"
    "  PRIMARY KEY (cell_id, name, t_ns)) WITHOUT ROWID;\n";

/* ---- small helpers ------------------------------------------------------ */

static int db_error_(sqlite3 *db, const char *what)
{
    return error_set(BG_EDB, "run.db: %s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

static int exec_(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int err = error_set(BG_EDB, "run.db: %s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return err;
    }
    return 0;
}

static int prepare_(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return db_error_(db, "prepare");
    return 0;
}

/* Binds text, or NULL when s is NULL (or empty and empty_is_null). */
static int bind_text_(sqlite3_stmt *st, int i, const char *s, bool empty_is_null)
{
    if (!s || (empty_is_null && !*s))
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static int bind_time_(sqlite3_stmt *st, int i, time_t t)
{
    if (t <= 0)
        return sqlite3_bind_null(st, i);
    char buf[32];
    util_iso8601_utc(t, buf);
    return sqlite3_bind_text(st, i, buf, -1, SQLITE_TRANSIENT);
}

/* Runs a statement that returns no rows, then resets it for reuse. */
static int step_done_(sqlite3 *db, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    int err = rc == SQLITE_DONE ? 0 : db_error_(db, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return err;
}

static void rollback_(sqlite3 *db)
{
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

static char *db_path_(const char *dir)
{
    return util_printf("%s/%s", dir, STORE_DB_NAME);
}

static void store_free_(struct store *s)
{
    if (!s)
        return;
    sqlite3_close(s->db);
    rundir_unlock(s->lock_fd);
    free(s->dir);
    free(s);
}

/* Settings every writing connection needs; journal_mode=WAL is persistent in
 * the file, the others are per connection. */
static int configure_writer_(sqlite3 *db)
{
    int err;
    sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
    if ((err = exec_(db, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")) < 0)
        return err;
    return exec_(db, telemetry_sql);
}

/* ---- create ------------------------------------------------------------- */

static int insert_run_(sqlite3 *db, const struct spec *spec, const char *command_line)
{
    static const char *const sql =
        "INSERT INTO run(id, name, description, spec_path, spec_sha256, spec_text, size, precision,"
        " seed, created_utc, command_line, benchgen_version, git_commit, git_dirty)"
        " VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
    sqlite3_stmt *st = NULL;
    int err = prepare_(db, sql, &st);
    if (err < 0)
        return err;
    bind_text_(st, 1, spec->name ? spec->name : "", false);
    bind_text_(st, 2, spec->description, false);
    bind_text_(st, 3, spec->path, false);
    bind_text_(st, 4, spec->sha256, true);
    bind_text_(st, 5, spec->text, false);
    bind_text_(st, 6, spec->size, false);
    bind_text_(st, 7, spec->precision, false);
    /* SQLite integers are signed: a seed >= 2^63 is stored as its two's complement. */
    sqlite3_bind_int64(st, 8, (sqlite3_int64)spec->seed);
    bind_time_(st, 9, time(NULL));
    bind_text_(st, 10, command_line, false);
    bind_text_(st, 11, BENCHGEN_VERSION, false);
    bind_text_(st, 12, BENCHGEN_GIT_COMMIT, false);
    sqlite3_bind_int(st, 13, BENCHGEN_GIT_DIRTY ? 1 : 0);
    err = step_done_(db, st, "insert run");
    sqlite3_finalize(st);
    return err;
}

static int insert_plan_(sqlite3 *db, const struct matrix *plan)
{
    static const char *const sql =
        "INSERT INTO cells(id, key, model, task, batch, backend, size, precision, env, workload,"
        " steps, warmup, repeat, seed, timeout_s, memory_limit, method)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";
    sqlite3_stmt *st = NULL;
    int err = prepare_(db, sql, &st);
    for (size_t i = 0; !err && i < plan->ncells; i++) {
        const struct cell *c = &plan->cells[i];
        sqlite3_bind_int(st, 1, c->id);
        bind_text_(st, 2, c->key, false);
        bind_text_(st, 3, c->model, false);
        bind_text_(st, 4, c->task, false);
        sqlite3_bind_int(st, 5, c->batch);
        bind_text_(st, 6, c->backend, false);
        bind_text_(st, 7, c->size, false);
        bind_text_(st, 8, c->precision, false);
        bind_text_(st, 9, c->env, false);
        bind_text_(st, 10, c->workload, false);
        sqlite3_bind_int(st, 11, c->steps);
        sqlite3_bind_int(st, 12, c->warmup);
        sqlite3_bind_int(st, 13, c->repeat);
        sqlite3_bind_int64(st, 14, (sqlite3_int64)c->seed);
        sqlite3_bind_double(st, 15, c->timeout);
        sqlite3_bind_int64(st, 16, (sqlite3_int64)c->memory_limit);
        bind_text_(st, 17, c->method, false);
        err = step_done_(db, st, "insert plan cell");
        if (err)
            error_prefix(err, "cell %d (%s)", c->id, c->key ? c->key : "?");
    }
    sqlite3_finalize(st);
    return err;
}

static int insert_env_(sqlite3 *db, int cell_id, const struct kvlist *env)
{
    if (!env || env->n == 0)
        return 0;
    sqlite3_stmt *st = NULL;
    int err = prepare_(db, "INSERT INTO environment(cell_id, key, value) VALUES (?1, ?2, ?3)", &st);
    for (size_t i = 0; !err && i < env->n; i++) {
        sqlite3_bind_int(st, 1, cell_id);
        bind_text_(st, 2, env->items[i].key, false);
        bind_text_(st, 3, env->items[i].value, false);
        err = step_done_(db, st, "insert environment");
    }
    sqlite3_finalize(st);
    return err;
}

/* The schema, the run row, the plan and the run-wide environment, in one
 * transaction on a fresh database. */
static int write_plan_(sqlite3 *db, const struct spec *spec, const struct matrix *plan,
                       const struct kvlist *run_env, const char *command_line)
{
    char *meta_sql = util_printf("INSERT INTO meta(key, value) VALUES ('schema_version', '%d'),"
                                 " ('created_by', 'benchgen %s');",
                                 STORE_SCHEMA_VERSION, BENCHGEN_VERSION);
    int err = 0;
    if (!meta_sql)
        return error_set(BG_ENOMEM, "out of memory");
    if ((err = exec_(db, "PRAGMA journal_mode=WAL;")) < 0 || (err = configure_writer_(db)) < 0 ||
        (err = exec_(db, "BEGIN IMMEDIATE")) < 0)
        goto done;
    if ((err = exec_(db, schema_sql)) < 0 || (err = exec_(db, meta_sql)) < 0 ||
        (err = insert_run_(db, spec, command_line)) < 0 || (err = insert_plan_(db, plan)) < 0 ||
        (err = insert_env_(db, 0, run_env)) < 0)
        goto done;
    rundir_fault("plan-written");
    err = exec_(db, "COMMIT");
done:
    if (err < 0)
        rollback_(db);
    free(meta_sql);
    return err;
}

/* The run is built in a temporary directory beside DIR (rundir.h) and renamed
 * into place once its plan is committed, so DIR never exists half-made; the
 * lock taken there moves with it and is held until store_close(). */
int store_create(struct store **out, const char *dir, const struct spec *spec, const struct matrix *plan,
                 const struct kvlist *run_env, const char *command_line)
{
    struct store *s = NULL;
    sqlite3 *db = NULL;
    char *tmp = NULL, *path = NULL;
    bool published = false;
    int err = 0, lock = -1;

    *out = NULL;
    s = calloc(1, sizeof(*s));
    if (s)
        s->lock_fd = -1;
    if (!s || !(s->dir = strdup(dir))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = rundir_begin(&tmp, &lock, dir)) < 0)
        goto done;
    if (!(path = db_path_(tmp))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        err = db_error_(db, path);
        goto done;
    }
    if ((err = write_plan_(db, spec, plan, run_env, command_line)) < 0)
        goto done;
    /* Closed before the rename (SQLite keeps paths of its side files), so the
     * checkpoint leaves run.db alone and complete. */
    int rc = sqlite3_close(db);
    db = NULL;
    if (rc != SQLITE_OK) {
        err = error_set(BG_EDB, "run.db: closing %s failed (%s)", path, sqlite3_errstr(rc));
        goto done;
    }
    rundir_fault("committed");
    if ((err = rundir_publish(tmp, dir)) < 0)
        goto done;
    published = true;
    rundir_fault("published");
    free(path);
    if (!(path = db_path_(dir))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        err = db_error_(s->db, path);
        goto done;
    }
    if ((err = configure_writer_(s->db)) < 0)
        goto done;
    s->lock_fd = lock;
    lock = -1;
done:
    sqlite3_close(db);
    if (err < 0) {
        store_free_(s);
        /* Only what this process created, and only when it never became DIR. */
        if (tmp && !published)
            rundir_abandon(tmp);
    } else {
        *out = s;
    }
    rundir_unlock(lock);
    free(tmp);
    free(path);
    return err;
}

/* ---- open --------------------------------------------------------------- */

/* "file:" URI of path with everything outside the unreserved set escaped,
 * for the immutable=1 fallback below. */
static char *file_uri_(const char *path, const char *query)
{
    struct strbuf sb = {0};
    int err = strbuf_puts(&sb, "file:");
    for (const unsigned char *p = (const unsigned char *)path; !err && *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/-._~", *p))
            err = strbuf_append(&sb, (const char *)p, 1);
        else
            err = strbuf_printf(&sb, "%%%02X", *p);
    }
    if (!err)
        err = strbuf_puts(&sb, query);
    if (err) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

/* Reads meta.schema_version; 0 and *version set, or BG_EDB with the reason. */
static int check_schema_(sqlite3 *db, const char *path, int *sqlite_rc)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st, NULL);
    int err = 0;
    *sqlite_rc = rc;
    if (rc != SQLITE_OK) {
        int ext = sqlite3_extended_errcode(db);
        *sqlite_rc = ext;
        if ((ext & 0xff) == SQLITE_ERROR || ext == SQLITE_NOTADB)
            err = error_set(BG_EDB, "%s: not a benchgen run (%s)", path, sqlite3_errmsg(db));
        else
            err = db_error_(db, path);
        goto done;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE || (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_NULL)) {
        err = error_set(BG_EDB, "%s: not a benchgen run (no schema_version)", path);
        goto done;
    }
    if (rc != SQLITE_ROW) {
        *sqlite_rc = sqlite3_extended_errcode(db);
        err = db_error_(db, path);
        goto done;
    }
    const char *v = (const char *)sqlite3_column_text(st, 0);
    char *end = NULL;
    long version = strtol(v ? v : "", &end, 10);
    if (!v || end == v || *end || version < 1)
        err = error_set(BG_EDB, "%s: not a benchgen run (schema_version '%s')", path, v ? v : "");
    else if (version > STORE_SCHEMA_VERSION)
        err = error_set(BG_EDB,
                        "%s: written by a newer benchgen (schema_version %ld; this benchgen " BENCHGEN_VERSION
                        " reads up to %d)",
                        path, version, STORE_SCHEMA_VERSION);
done:
    sqlite3_finalize(st);
    return err;
}

int store_open(struct store **out, const char *dir, bool readonly)
{
    struct store *s = NULL;
    char *path = NULL, *uri = NULL;
    int err = 0, rc = 0;

    *out = NULL;
    path = db_path_(dir);
    s = calloc(1, sizeof(*s));
    if (s)
        s->lock_fd = -1;
    if (!path || !s || !(s->dir = strdup(dir))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    s->readonly = readonly;
    if (!util_is_file(path)) {
        err = error_set(BG_ENOTFOUND, "%s: no run here (%s is missing)", dir, STORE_DB_NAME);
        goto done;
    }
    /* One writer per run: a second `run --resume` is refused, naming the first. */
    if (!readonly && (err = rundir_lock(&s->lock_fd, dir)) < 0)
        goto done;
    /* A reader that can write the directory opens read-write but query_only:
     * SQL cannot change anything through it, and as the last connection to
     * close it removes run.db-wal and run.db-shm, which a SQLITE_OPEN_READONLY
     * connection would leave behind after every `benchgen show`. */
    bool query_only = readonly && access(path, W_OK) == 0 && access(dir, W_OK) == 0;
    int flags = readonly && !query_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        err = db_error_(s->db, path);
        goto done;
    }
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    if (query_only && (err = exec_(s->db, "PRAGMA query_only=ON")) < 0)
        goto done;
    err = check_schema_(s->db, path, &rc);
    /* A WAL reader needs run.db-shm; in a directory it may not write (a run
     * copied from a read-only medium, someone else's run) that fails. Nobody
     * can be writing such a run either, so reading it as immutable is safe. */
    if (err && readonly && ((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY) &&
        access(dir, W_OK) != 0) {
        sqlite3_close(s->db);
        s->db = NULL;
        if (!(uri = file_uri_(path, "?immutable=1"))) {
            err = error_set(BG_ENOMEM, "out of memory");
            goto done;
        }
        if (sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
            err = db_error_(s->db, path);
            goto done;
        }
        err = check_schema_(s->db, path, &rc);
    }
    if (err < 0)
        goto done;
    if (!readonly)
        err = configure_writer_(s->db);
done:
    if (err < 0)
        store_free_(s);
    else
        *out = s;
    free(path);
    free(uri);
    return err;
}

/* ---- plan and status ---------------------------------------------------- */

static char *column_strdup_(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

int store_load_plan(struct store *s, struct matrix *out)
{
    /* Runs stored before the method key have no method column: NULL. */
    static const char *const sql =
        "SELECT id, key, model, task, batch, backend, size, precision, env, workload, steps, warmup,"
        " repeat, seed, timeout_s, memory_limit, method FROM cells ORDER BY id";
    static const char *const sql_before_method =
        "SELECT id, key, model, task, batch, backend, size, precision, env, workload, steps, warmup,"
        " repeat, seed, timeout_s, memory_limit, NULL FROM cells ORDER BY id";
    sqlite3_stmt *st = NULL;
    int err = 0, rc = SQLITE_DONE;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        err = prepare_(s->db, sql_before_method, &st);
    while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct cell c = {0};
        c.id = sqlite3_column_int(st, 0);
        c.key = column_strdup_(st, 1);
        c.model = column_strdup_(st, 2);
        c.task = column_strdup_(st, 3);
        c.batch = sqlite3_column_int(st, 4);
        c.backend = column_strdup_(st, 5);
        c.size = column_strdup_(st, 6);
        c.precision = column_strdup_(st, 7);
        c.env = column_strdup_(st, 8);
        c.workload = column_strdup_(st, 9);
        c.steps = sqlite3_column_int(st, 10);
        c.warmup = sqlite3_column_int(st, 11);
        c.repeat = sqlite3_column_int(st, 12);
        c.seed = (uint64_t)sqlite3_column_int64(st, 13);
        c.timeout = sqlite3_column_double(st, 14);
        c.memory_limit = (uint64_t)sqlite3_column_int64(st, 15);
        c.method = column_strdup_(st, 16);
        err = matrix_add(out, &c);
        free(c.key);
        free(c.model);
        free(c.task);
        free(c.backend);
        free(c.size);
        free(c.precision);
        free(c.env);
        free(c.workload);
        free(c.method);
    }
    if (!err && rc != SQLITE_DONE)
        err = db_error_(s->db, "load plan");
    sqlite3_finalize(st);
    return err;
}

int store_cell_status(struct store *s, int cell_id, enum status *status)
{
    sqlite3_stmt *st = NULL;
    int err = prepare_(s->db, "SELECT status FROM cells WHERE id = ?1", &st);
    *status = STATUS_NONE;
    if (err < 0)
        return err;
    sqlite3_bind_int(st, 1, cell_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        int v = status_parse(t);
        if (v < 0)
            err = error_set(BG_EDB, "run.db: cell %d has an unknown status '%s'", cell_id, t);
        else
            *status = (enum status)v;
    } else if (rc == SQLITE_DONE) {
        err = error_set(BG_ENOTFOUND, "run.db: no cell with id %d", cell_id);
    } else {
        err = db_error_(s->db, "cell status");
    }
    sqlite3_finalize(st);
    return err;
}

int store_spec_sha256(struct store *s, char sha256[65])
{
    sqlite3_stmt *st = NULL;
    int err = prepare_(s->db, "SELECT spec_sha256 FROM run", &st);
    sha256[0] = '\0';
    if (err < 0)
        return err;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        snprintf(sha256, 65, "%s", t ? t : "");
    } else {
        err = db_error_(s->db, "the run's spec hash");
    }
    sqlite3_finalize(st);
    return err;
}

/* ---- record ------------------------------------------------------------- */

static bool status_is_final_(enum status status)
{
    return status > STATUS_NONE && status < STATUS_COUNT;
}

static int update_cell_(sqlite3 *db, const struct cell *c, const struct result *r, const char *log_path,
                        int new_attempts)
{
    static const char *const sql =
        "UPDATE cells SET status = ?1, detail = ?2, input_sha256 = ?3, input_bytes = ?4,"
        " started_utc = ?5, finished_utc = ?6, wall_s = ?7, peak_rss = ?8, exit_code = ?9,"
        " term_signal = ?10, log_path = ?11, attempts = attempts + ?14"
        " WHERE id = ?12 AND key = ?13";
    sqlite3_stmt *st = NULL;
    int err = prepare_(db, sql, &st);
    if (err < 0)
        return err;
    bind_text_(st, 1, status_name(r->status), false);
    bind_text_(st, 2, r->detail, false);
    bind_text_(st, 3, r->input_sha256, true);
    sqlite3_bind_int64(st, 4, r->input_bytes);
    bind_time_(st, 5, r->started);
    bind_time_(st, 6, r->finished);
    sqlite3_bind_double(st, 7, r->wall_s);
    sqlite3_bind_int64(st, 8, r->peak_rss);
    sqlite3_bind_int(st, 9, r->exit_code);
    sqlite3_bind_int(st, 10, r->term_signal);
    bind_text_(st, 11, log_path, false);
    sqlite3_bind_int(st, 12, c->id);
    bind_text_(st, 13, c->key, false);
    sqlite3_bind_int(st, 14, new_attempts);
    if ((err = step_done_(db, st, "update cell")) == 0 && sqlite3_changes(db) != 1)
        err = error_set(BG_EDB, "run.db: cell %d (%s) is not in this run's plan", c->id, c->key);
    sqlite3_finalize(st);
    return err;
}

static int delete_cell_rows_(sqlite3 *db, int cell_id)
{
    static const char *const tables[] = {"samples", "markers", "facts", "environment", "telemetry"};
    int err = 0;
    for (size_t i = 0; !err && i < sizeof(tables) / sizeof(tables[0]); i++) {
        char sql[64];
        snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE cell_id = ?1", tables[i]);
        sqlite3_stmt *st = NULL;
        if ((err = prepare_(db, sql, &st)) < 0)
            break;
        sqlite3_bind_int(st, 1, cell_id);
        err = step_done_(db, st, "delete earlier attempt");
        sqlite3_finalize(st);
    }
    return err;
}

static int insert_samples_(sqlite3 *db, int cell_id, const struct result *r)
{
    sqlite3_stmt *st = NULL;
    int err = prepare_(db, "INSERT INTO samples(cell_id, phase, idx, ns) VALUES (?1, ?2, ?3, ?4)", &st);
    for (int timed = 0; !err && timed < 2; timed++) {
        const int64_t *ns = timed ? r->timed_ns : r->warmup_ns;
        size_t n = timed ? r->ntimed : r->nwarmup;
        for (size_t i = 0; !err && i < n; i++) {
            sqlite3_bind_int(st, 1, cell_id);
            sqlite3_bind_text(st, 2, timed ? "timed" : "warmup", -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
            sqlite3_bind_int64(st, 4, ns[i]);
            err = step_done_(db, st, "insert sample");
        }
    }
    sqlite3_finalize(st);
    return err;
}

static int insert_markers_(sqlite3 *db, int cell_id, const struct kvlist *phases)
{
    if (phases->n == 0)
        return 0;
    sqlite3_stmt *st = NULL;
    int err = prepare_(db, "INSERT INTO markers(cell_id, name, ns) VALUES (?1, ?2, ?3)", &st);
    for (size_t i = 0; !err && i < phases->n; i++) {
        const char *v = phases->items[i].value;
        char *end = NULL;
        errno = 0;
        long long ns = strtoll(v, &end, 10);
        if (end == v || *end || errno) {
            err = error_set(BG_EDB, "run.db: marker %s: '%s' is not a whole number of ns",
                            phases->items[i].key, v);
            break;
        }
        sqlite3_bind_int(st, 1, cell_id);
        bind_text_(st, 2, phases->items[i].key, false);
        sqlite3_bind_int64(st, 3, ns);
        err = step_done_(db, st, "insert marker");
    }
    sqlite3_finalize(st);
    return err;
}

static int insert_facts_(sqlite3 *db, int cell_id, const struct kvlist *facts)
{
    if (facts->n == 0)
        return 0;
    sqlite3_stmt *st = NULL;
    /* A fact named twice keeps its last value: facts are a map. */
    int err = prepare_(db, "INSERT OR REPLACE INTO facts(cell_id, name, value) VALUES (?1, ?2, ?3)", &st);
    for (size_t i = 0; !err && i < facts->n; i++) {
        sqlite3_bind_int(st, 1, cell_id);
        bind_text_(st, 2, facts->items[i].key, false);
        bind_text_(st, 3, facts->items[i].value, false);
        err = step_done_(db, st, "insert fact");
    }
    sqlite3_finalize(st);
    return err;
}

static int insert_telemetry_(sqlite3 *db, int cell_id, const struct series *ts)
{
    if (ts->n == 0)
        return 0;
    sqlite3_stmt *st = NULL;
    /* Two points of one series at the same ns (a clock that did not move)
     * keep the last: the series is a function of time. */
    int err = prepare_(db, "INSERT OR REPLACE INTO telemetry(cell_id, name, t_ns, value) VALUES (?1, ?2, ?3, ?4)",
                       &st);
    for (size_t i = 0; !err && i < ts->n; i++) {
        sqlite3_bind_int(st, 1, cell_id);
        bind_text_(st, 2, ts->rows[i].name, false);
        sqlite3_bind_int64(st, 3, ts->rows[i].t_ns);
        sqlite3_bind_double(st, 4, ts->rows[i].value);
        err = step_done_(db, st, "insert telemetry");
    }
    sqlite3_finalize(st);
    return err;
}

static int check_writable_(const struct store *s)
{
    if (s->readonly)
        return error_set(BG_EDB, "%s/%s: opened read-only", s->dir, STORE_DB_NAME);
    return 0;
}

/* Inserts the attempt files not merged before; *new_files and *new_tags
 * count the new files and the attempts (tags) not seen before. */
static int insert_attempts_(sqlite3 *db, int cell_id, const char *const *files, const char *const *tags,
                            const char *const *statuses, size_t n, int *new_files, int *new_tags)
{
    sqlite3_stmt *ins = NULL, *seen = NULL;
    int err = prepare_(db,
                       "INSERT OR IGNORE INTO attempts(file, cell_id, tag, status, merged_utc)"
                       " VALUES (?1, ?2, ?3, ?4, ?5)",
                       &ins);
    if (!err)
        err = prepare_(db, "SELECT count(*) FROM attempts WHERE cell_id = ?1 AND tag = ?2", &seen);
    *new_files = *new_tags = 0;
    for (size_t i = 0; !err && i < n; i++) {
        sqlite3_bind_int(seen, 1, cell_id);
        bind_text_(seen, 2, tags[i], false);
        bool known = sqlite3_step(seen) == SQLITE_ROW && sqlite3_column_int(seen, 0) > 0;
        sqlite3_reset(seen);
        sqlite3_clear_bindings(seen);
        bind_text_(ins, 1, files[i], false);
        sqlite3_bind_int(ins, 2, cell_id);
        bind_text_(ins, 3, tags[i], false);
        bind_text_(ins, 4, statuses[i], false);
        bind_time_(ins, 5, time(NULL));
        if ((err = step_done_(db, ins, "insert attempt")) == 0 && sqlite3_changes(db) == 1) {
            (*new_files)++;
            *new_tags += !known;
        }
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(seen);
    return err;
}

/* Writes the cell's result rows; attempts grows by new_attempts. */
static int write_cell_(struct store *s, const struct cell *c, const struct result *r, const char *log_path,
                       int new_attempts)
{
    int err;
    if ((err = update_cell_(s->db, c, r, log_path, new_attempts)) < 0 ||
        (err = delete_cell_rows_(s->db, c->id)) < 0 || (err = insert_samples_(s->db, c->id, r)) < 0 ||
        (err = insert_markers_(s->db, c->id, &r->phases)) < 0 ||
        (err = insert_facts_(s->db, c->id, &r->facts)) < 0 ||
        (err = insert_env_(s->db, c->id, &r->env)) < 0 ||
        (err = insert_telemetry_(s->db, c->id, &r->telemetry)) < 0)
        return err;
    return 0;
}

int store_merge(struct store *s, const struct cell *c, const struct result *r, const char *log_path,
                const char *const *files, const char *const *tags, const char *const *statuses, size_t n,
                int *merged)
{
    *merged = 0;
    if (check_writable_(s) < 0)
        return error_code();
    if (!status_is_final_(r->status))
        return error_set(BG_EDB, "run.db: cell %s: no final status (%d)", c->key, (int)r->status);
    int err = exec_(s->db, "BEGIN IMMEDIATE"), new_files = 0, new_tags = 0;
    if (err < 0)
        return error_prefix(err, "merge %s", c->key);
    if ((err = exec_(s->db, attempts_sql)) < 0 ||
        (err = insert_attempts_(s->db, c->id, files, tags, statuses, n, &new_files, &new_tags)) < 0 ||
        (new_files > 0 && (err = write_cell_(s, c, r, log_path, new_tags)) < 0) ||
        (err = exec_(s->db, new_files > 0 ? "COMMIT" : "ROLLBACK")) < 0) {
        rollback_(s->db);
        return error_prefix(err, "merge %s", c->key);
    }
    *merged = new_files;
    return 0;
}

int store_note_run(struct store *s, const char *key, const char *value)
{
    if (check_writable_(s) < 0)
        return error_code();
    struct kvlist kl = {0};
    int err = kvlist_add(&kl, key, value);
    if (!err)
        err = insert_env_(s->db, 0, &kl);
    kvlist_free(&kl);
    return err;
}

int store_run_notes(struct store *s, const char *prefix, struct kvlist *out)
{
    sqlite3_stmt *st = NULL;
    int err = prepare_(s->db,
                       "SELECT key, value FROM environment WHERE cell_id = 0 AND substr(key, 1, length(?1)) = ?1"
                       " ORDER BY rowid",
                       &st);
    if (err < 0)
        return err;
    bind_text_(st, 1, prefix, false);
    int rc;
    while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
        err = kvlist_add(out, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
    if (!err && rc != SQLITE_DONE)
        err = db_error_(s->db, "read run environment");
    sqlite3_finalize(st);
    return err;
}

int store_record(struct store *s, const struct cell *c, const struct result *r, const char *log_path)
{
    if (check_writable_(s) < 0)
        return error_code();
    if (!status_is_final_(r->status))
        return error_set(BG_EDB, "run.db: cell %s: no final status (%d)", c->key, (int)r->status);
    int err = exec_(s->db, "BEGIN IMMEDIATE");
    if (err < 0)
        return error_prefix(err, "record %s", c->key);
    if ((err = write_cell_(s, c, r, log_path, 1)) < 0 || (err = exec_(s->db, "COMMIT")) < 0) {
        rollback_(s->db);
        return error_prefix(err, "record %s", c->key);
    }
    return 0;
}

/* ---- run times ---------------------------------------------------------- */

static int set_run_time_(struct store *s, const char *sql, time_t t)
{
    sqlite3_stmt *st = NULL;
    int err = check_writable_(s);
    if (err < 0)
        return err;
    err = prepare_(s->db, sql, &st);
    if (err < 0)
        return err;
    bind_time_(st, 1, t);
    err = step_done_(s->db, st, "update run");
    sqlite3_finalize(st);
    return err;
}

/* A resumed run keeps the time it first started. */
int store_mark_started(struct store *s, time_t t)
{
    return set_run_time_(s, "UPDATE run SET started_utc = COALESCE(started_utc, ?1) WHERE id = 1", t);
}

int store_mark_finished(struct store *s, time_t t)
{
    return set_run_time_(s, "UPDATE run SET finished_utc = ?1 WHERE id = 1", t);
}

struct sqlite3 *store_db(struct store *s) { return s->db; }

const char *store_dir(const struct store *s) { return s->dir; }

void store_close(struct store *s) { store_free_(s); }
