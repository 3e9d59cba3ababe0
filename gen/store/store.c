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
#include "store/store_sql.h"
#include "store/store_wal.h"
#include "plan/catalog.h"
#include "plan/status.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/version.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <sqlite3.h>


/* A writer waits this long for another connection's lock (a `show` of a live
 * run holds a read snapshot; WAL readers never block the writer, but a
 * checkpoint may briefly). */
#define STORE_BUSY_TIMEOUT_MS 10000

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
    "  term_signal INTEGER, log_path TEXT, attempts INTEGER NOT NULL DEFAULT 0, method TEXT,\n"
    "  device TEXT);\n"
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

/* Telemetry series (machine/telemetry.h), added after schema_version 1 without
 * changing it: created by every writer, so a run made by an older benchgen
 * gains it when resumed, and readers that do not know it never look. */
static const char *const telemetry_sql =
    "CREATE TABLE IF NOT EXISTS telemetry(cell_id INTEGER NOT NULL REFERENCES cells(id),\n"
    "  name TEXT NOT NULL, t_ns INTEGER NOT NULL, value REAL,\n"
    "  PRIMARY KEY (cell_id, name, t_ns)) WITHOUT ROWID;\n";

static char *db_path_(const char *dir)
{
    return xprintf("%s/%s", dir, STORE_DB_NAME);
}

static void store_free_(struct store *s)
{
    if (!s)
        return;
    sqlite3_close(s->db);
    rundir_unlock(s->lock_fd);
    if (s->snapshot) /* the reader's private copy, made by this process */
        util_rm_rf(s->snapshot);
    free(s->snapshot);
    free(s->dir);
    free(s);
}

/* ---- the WAL id (store/store_wal.h) -------------------------------------- */

/* A random non-zero WAL id for a new run (or an old run's first resume). */
static uint32_t new_wal_id_(void)
{
    uint32_t id = 0;
    while (!id)
        if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
            id = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
    return id;
}

static int set_wal_id_(sqlite3 *db, uint32_t id)
{
    char sql[48];
    snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", (int)(int32_t)id);
    return store_sql_exec(db, sql);
}

int store_sql_begin(struct store *s)
{
    int err = store_sql_exec(s->db, "BEGIN IMMEDIATE");
    if (err < 0)
        return err;
    if (!s->wal_id) {
        sqlite3_stmt *st = NULL;
        if ((err = store_sql_prepare(s->db, "PRAGMA user_version", &st)) < 0)
            goto fail;
        s->wal_id = sqlite3_step(st) == SQLITE_ROW ? (uint32_t)sqlite3_column_int(st, 0) : 0;
        sqlite3_finalize(st);
        if (!s->wal_id) /* a run made before the WAL id: it gets one now */
            s->wal_id = new_wal_id_();
    }
    if ((err = set_wal_id_(s->db, s->wal_id)) < 0)
        goto fail;
    s->bound = true;
    return 0;
fail:
    store_sql_rollback(s->db);
    return err;
}

/* A commit that did not start with store_sql_begin() would put a
 * transaction without the WAL id into run.db-wal, and readers would refuse
 * the WAL: it is rolled back instead, a programming error in gen/store. */
static int commit_hook_(void *arg)
{
    struct store *s = arg;
    bool ok = s->bound;
    s->bound = false;
    return ok ? 0 : 1;
}

static void rollback_hook_(void *arg)
{
    ((struct store *)arg)->bound = false;
}

/* Settings every writing connection needs (journal_mode=WAL is persistent in
 * the file, the others are per connection), then one bound transaction:
 * the telemetry table, and the WAL id of a run made before it, which is
 * checkpointed into run.db at once so readers find it in the file. */
static int configure_writer_(struct store *s)
{
    int err;
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    if ((err = store_sql_exec(s->db, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")) < 0)
        return err;
    sqlite3_commit_hook(s->db, commit_hook_, s);
    sqlite3_rollback_hook(s->db, rollback_hook_, s);
    sqlite3_stmt *st = NULL;
    if ((err = store_sql_prepare(s->db, "PRAGMA user_version", &st)) < 0)
        return err;
    bool old = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0;
    sqlite3_finalize(st);
    if ((err = store_sql_begin(s)) < 0)
        return err;
    if ((err = store_sql_exec(s->db, telemetry_sql)) < 0 || (err = store_sql_exec(s->db, "COMMIT")) < 0) {
        store_sql_rollback(s->db);
        return err;
    }
    /* best effort: a reader holding the WAL leaves it for a later checkpoint */
    if (old)
        sqlite3_wal_checkpoint_v2(s->db, "main", SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    return 0;
}

/* ---- create ------------------------------------------------------------- */

static int insert_run_(sqlite3 *db, const struct spec *spec, const char *command_line)
{
    static const char *const sql =
        "INSERT INTO run(id, name, description, spec_path, spec_sha256, spec_text, size, precision,"
        " seed, created_utc, command_line, benchgen_version, git_commit, git_dirty)"
        " VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(db, sql, &st);
    if (err < 0)
        return err;
    store_sql_bind_text(st, 1, spec->name ? spec->name : "", false);
    store_sql_bind_text(st, 2, spec->description, false);
    store_sql_bind_text(st, 3, spec->path, false);
    store_sql_bind_text(st, 4, spec->sha256, true);
    store_sql_bind_text(st, 5, spec->text, false);
    store_sql_bind_text(st, 6, spec->size, false);
    store_sql_bind_text(st, 7, spec->precision, false);
    /* SQLite integers are signed: a seed >= 2^63 is stored as its two's complement. */
    sqlite3_bind_int64(st, 8, (sqlite3_int64)spec->seed);
    store_sql_bind_time(st, 9, time(NULL));
    store_sql_bind_text(st, 10, command_line, false);
    store_sql_bind_text(st, 11, BENCHGEN_VERSION, false);
    store_sql_bind_text(st, 12, BENCHGEN_GIT_COMMIT, false);
    sqlite3_bind_int(st, 13, BENCHGEN_GIT_DIRTY ? 1 : 0);
    err = store_sql_step_done(db, st, "insert run");
    sqlite3_finalize(st);
    return err;
}

static int insert_plan_(sqlite3 *db, const struct matrix *plan)
{
    static const char *const sql =
        "INSERT INTO cells(id, key, model, task, batch, backend, size, precision, env, workload,"
        " steps, warmup, repeat, seed, timeout_s, memory_limit, method, device)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(db, sql, &st);
    for (size_t i = 0; !err && i < plan->ncells; i++) {
        const struct cell *c = &plan->cells[i];
        sqlite3_bind_int(st, 1, c->id);
        store_sql_bind_text(st, 2, c->key, false);
        store_sql_bind_text(st, 3, c->model, false);
        store_sql_bind_text(st, 4, c->task, false);
        sqlite3_bind_int(st, 5, c->batch);
        store_sql_bind_text(st, 6, c->backend, false);
        store_sql_bind_text(st, 7, c->size, false);
        store_sql_bind_text(st, 8, c->precision, false);
        store_sql_bind_text(st, 9, c->env, false);
        store_sql_bind_text(st, 10, c->workload, false);
        sqlite3_bind_int(st, 11, c->steps);
        sqlite3_bind_int(st, 12, c->warmup);
        sqlite3_bind_int(st, 13, c->repeat);
        sqlite3_bind_int64(st, 14, (sqlite3_int64)c->seed);
        sqlite3_bind_double(st, 15, c->timeout);
        sqlite3_bind_int64(st, 16, (sqlite3_int64)c->memory_limit);
        store_sql_bind_text(st, 17, c->method, false);
        store_sql_bind_text(st, 18, c->device, false);
        err = store_sql_step_done(db, st, "insert plan cell");
        if (err)
            error_prefix(err, "cell %d (%s)", c->id, c->key ? c->key : "?");
    }
    sqlite3_finalize(st);
    return err;
}

/* The schema, the run row, the plan and the run-wide environment, in one
 * transaction on a fresh database. */
static int write_plan_(sqlite3 *db, const struct spec *spec, const struct matrix *plan,
                       const struct kvlist *run_env, const struct run_inputs *inputs, const char *command_line)
{
    char *meta_sql = xprintf("INSERT INTO meta(key, value) VALUES ('schema_version', '%d'),"
                                 " ('created_by', 'benchgen %s');",
                                 STORE_SCHEMA_VERSION, BENCHGEN_VERSION);
    int err = 0;
    if ((err = store_sql_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")) <
            0 ||
        (err = store_sql_exec(db, "BEGIN IMMEDIATE")) < 0)
        goto done;
    /* the run's WAL id (store/store_wal.h), in run.db's header from the start */
    if ((err = set_wal_id_(db, new_wal_id_())) < 0 || (err = store_sql_exec(db, schema_sql)) < 0 ||
        (err = store_sql_exec(db, telemetry_sql)) < 0 || (err = store_sql_exec(db, store_sql_inputs_schema)) < 0 ||
        (err = store_sql_exec(db, meta_sql)) < 0 || (err = store_sql_insert_inputs(db, inputs)) < 0 ||
        (err = insert_run_(db, spec, command_line)) < 0 || (err = insert_plan_(db, plan)) < 0 ||
        (err = store_sql_insert_env(db, 0, run_env)) < 0)
        goto done;
    rundir_fault("plan-written");
    err = store_sql_exec(db, "COMMIT");
done:
    if (err < 0)
        store_sql_rollback(db);
    free(meta_sql);
    return err;
}

/* The run is built in a temporary directory beside DIR (rundir.h) and renamed
 * into place once its plan is committed, so DIR never exists half-made; the
 * lock taken there moves with it and is held until store_close(). */
int store_create(struct store **out, const char *dir, const struct spec *spec, const struct matrix *plan,
                 const struct kvlist *run_env, const struct run_inputs *inputs, const char *command_line,
                 const struct voice *voice)
{
    struct store *s = NULL;
    sqlite3 *db = NULL;
    char *tmp = NULL, *path = NULL;
    bool published = false;
    int err = 0, lock = -1;

    *out = NULL;
    s = xcalloc(1, sizeof(*s));
    s->lock_fd = -1;
    s->dir = xstrdup(dir);
    s->voice = voice;
    if ((err = rundir_begin(&tmp, &lock, dir, voice)) < 0)
        goto done;
    path = db_path_(tmp);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        err = store_sql_error(db, path);
        goto done;
    }
    if ((err = write_plan_(db, spec, plan, run_env, inputs, command_line)) < 0)
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
    path = db_path_(dir);
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        err = store_sql_error(s->db, path);
        goto done;
    }
    if ((err = configure_writer_(s)) < 0)
        goto done;
    s->lock_fd = lock;
    lock = -1;
done:
    sqlite3_close(db);
    if (err < 0) {
        store_free_(s);
        /* Only what this process created, and only when it never became DIR. */
        if (tmp && !published)
            rundir_abandon(tmp, voice);
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
 * for a reader's mode=ro or immutable=1 below; NULL (the builder's error set) when it
 * could not be built. */
static char *file_uri_(const char *path, const char *query)
{
    struct strbuf sb = {0};
    strbuf_puts(&sb, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/-._~", *p))
            strbuf_append(&sb, (const char *)p, 1);
        else
            strbuf_printf(&sb, "%%%02X", *p);
    }
    strbuf_puts(&sb, query);
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
            err = error_set(BG_EDAMAGED, "%s: damaged, or not a benchgen run (%s)", path, sqlite3_errmsg(db));
        else
            err = store_sql_error(db, path);
        goto done;
    }
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE || (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_NULL)) {
        err = error_set(BG_EDAMAGED, "%s: not a benchgen run (no schema_version)", path);
        goto done;
    }
    if (rc != SQLITE_ROW) {
        *sqlite_rc = sqlite3_extended_errcode(db);
        err = store_sql_error(db, path);
        goto done;
    }
    const char *v = (const char *)sqlite3_column_text(st, 0);
    char *end = NULL;
    long version = strtol(v ? v : "", &end, 10);
    if (!v || end == v || *end || version < 1)
        err = error_set(BG_EDAMAGED, "%s: not a benchgen run (schema_version '%s')", path, v ? v : "");
    else if (version > STORE_SCHEMA_VERSION)
        err = error_set(BG_EDB,
                        "%s: written by a newer benchgen (schema_version %ld; this benchgen " BENCHGEN_VERSION
                        " reads up to %d)",
                        path, version, STORE_SCHEMA_VERSION);
done:
    sqlite3_finalize(st);
    return err;
}

/* A reader's private snapshot (store_wal_snapshot), opened read-write:
 * SQLite replays the WAL there and may checkpoint it there. */
static int snapshot_(struct store *s, const char *path)
{
    int err = store_wal_snapshot(&s->snapshot, path, STORE_DB_NAME);
    if (err < 0)
        return err;
    char *copy = xprintf("%s/%s", s->snapshot, STORE_DB_NAME);
    if (sqlite3_open_v2(copy, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        err = store_sql_error(s->db, path);
    free(copy);
    return err;
}

/* How a reader opens run.db. Readers never write the run: not run.db, not
 * its WAL, and they create no file beside it.
 *  - A live writer holds run.lock (status during a run, report while a run
 *    writes): SQLite's read-only mode (mode=ro) over the writer's own WAL
 *    and wal-index; a read-only connection cannot checkpoint.
 *  - Nobody writes and a WAL with committed transactions is there (a run
 *    killed before its last checkpoint): the WAL must carry this run's WAL
 *    id (store/store_wal.h); a foreign one is refused, BG_EDAMAGED, before
 *    SQLite sees it. This run's WAL is read from a private snapshot, as
 *    SQLite cannot read a WAL without writing its -shm beside it.
 *  - Otherwise (no WAL, or one SQLite would ignore): immutable=1, the file
 *    as it is, no lock, no -shm, no -wal created.
 * The ownership check runs in every case, also for a writer (resume,
 * collect), which would otherwise checkpoint a foreign WAL into run.db. */
static int open_db_(struct store *s, const char *path, int *rc)
{
    uint32_t id = 0;
    bool frames = false, live = false;
    char *uri = NULL;
    int err = store_wal_check(path, s->readonly, &id, &frames);
    if (err < 0)
        return err;
    if (!s->readonly) {
        if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
            err = store_sql_error(s->db, path);
    } else if (!(live = rundir_held(s->dir)) && frames) {
        err = snapshot_(s, path);
    } else {
        const char *how = live ? "?mode=ro" : "?immutable=1";
        if (!(uri = file_uri_(path, how)))
            return error_code();
        if (sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK)
            err = store_sql_error(s->db, path);
    }
    free(uri);
    if (err < 0)
        return err;
    sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
    if (s->readonly && (err = store_sql_exec(s->db, "PRAGMA query_only=ON")) < 0)
        return err;
    return check_schema_(s->db, path, rc);
}

int store_open(struct store **out, const char *dir, bool readonly)
{
    struct store *s = NULL;
    char *path = NULL;
    int err = 0, rc = 0;

    *out = NULL;
    path = db_path_(dir);
    s = xcalloc(1, sizeof(*s));
    s->lock_fd = -1;
    s->dir = xstrdup(dir);
    s->readonly = readonly;
    if (!util_is_file(path)) {
        err = error_set(BG_ENOTFOUND, "%s: no run here (%s is missing)", dir, STORE_DB_NAME);
        goto done;
    }
    /* One writer per run: a second `run --resume` is refused, naming the first. */
    if (!readonly && (err = rundir_lock(&s->lock_fd, dir)) < 0)
        goto done;
    if ((err = open_db_(s, path, &rc)) < 0)
        goto done;
    if (!readonly)
        err = configure_writer_(s);
done:
    if (err < 0)
        store_free_(s);
    else
        *out = s;
    free(path);
    return err;
}

/* ---- plan and status ---------------------------------------------------- */

int store_load_plan(struct store *s, struct matrix *out)
{
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare_cells(s->db, "", &st), rc = SQLITE_DONE;
    while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct cell c = {0};
        store_sql_read_cell(st, &c);
        err = matrix_add(out, &c);
        cell_free(&c);
    }
    if (!err && rc != SQLITE_DONE)
        err = store_sql_error(s->db, "load plan");
    sqlite3_finalize(st);
    return err;
}

int store_cell_status(struct store *s, int cell_id, enum status *status)
{
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(s->db, "SELECT status FROM cells WHERE id = ?1", &st);
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
        err = store_sql_error(s->db, "cell status");
    }
    sqlite3_finalize(st);
    return err;
}

int store_spec_sha256(struct store *s, char sha256[65])
{
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(s->db, "SELECT spec_sha256 FROM run", &st);
    sha256[0] = '\0';
    if (err < 0)
        return err;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        snprintf(sha256, 65, "%s", t ? t : "");
    } else {
        err = store_sql_error(s->db, "the run's spec hash");
    }
    sqlite3_finalize(st);
    return err;
}

int store_inputs(struct store *s, struct run_inputs *out)
{
    return store_sql_read_inputs(s->db, out);
}

int store_note_run(struct store *s, const char *key, const char *value)
{
    if (store_sql_writable(s) < 0)
        return error_code();
    struct kvlist kl = {0};
    int err = kvlist_add(&kl, key, value);
    if (!err && (err = store_sql_begin(s)) == 0 &&
        ((err = store_sql_insert_env(s->db, 0, &kl)) < 0 || (err = store_sql_exec(s->db, "COMMIT")) < 0))
        store_sql_rollback(s->db);
    kvlist_free(&kl);
    return err;
}

int store_drop_unstarted(struct store *s, size_t *dropped)
{
    if (store_sql_writable(s) < 0)
        return error_code();
    int err = store_sql_begin(s);
    *dropped = 0;
    if (err == 0) {
        /* never started: no status, no attempt, nothing recorded for it */
        err = store_sql_exec(s->db, "DELETE FROM cells WHERE status IS NULL AND attempts = 0"
                                    " AND id NOT IN (SELECT cell_id FROM samples)"
                                    " AND id NOT IN (SELECT cell_id FROM facts)"
                                    " AND id NOT IN (SELECT cell_id FROM markers)"
                                    " AND id NOT IN (SELECT cell_id FROM telemetry)"
                                    " AND id NOT IN (SELECT cell_id FROM environment)");
        if (err == 0)
            *dropped = (size_t)sqlite3_changes(s->db);
        if (err < 0 || (err = store_sql_exec(s->db, "COMMIT")) < 0)
            store_sql_rollback(s->db);
    }
    return err;
}

int store_run_notes(struct store *s, const char *prefix, struct kvlist *out)
{
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(s->db,
                       "SELECT key, value FROM environment WHERE cell_id = 0 AND substr(key, 1, length(?1)) = ?1"
                       " ORDER BY rowid",
                       &st);
    if (err < 0)
        return err;
    store_sql_bind_text(st, 1, prefix, false);
    int rc;
    while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
        err = kvlist_add(out, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
    if (!err && rc != SQLITE_DONE)
        err = store_sql_error(s->db, "read run environment");
    sqlite3_finalize(st);
    return err;
}

/* ---- run times ---------------------------------------------------------- */

static int set_run_time_(struct store *s, const char *sql, time_t t)
{
    sqlite3_stmt *st = NULL;
    int err = store_sql_writable(s);
    if (err < 0)
        return err;
    if ((err = store_sql_begin(s)) < 0)
        return err;
    if ((err = store_sql_prepare(s->db, sql, &st)) == 0) {
        store_sql_bind_time(st, 1, t);
        err = store_sql_step_done(s->db, st, "update run");
    }
    sqlite3_finalize(st);
    if (err < 0 || (err = store_sql_exec(s->db, "COMMIT")) < 0)
        store_sql_rollback(s->db);
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


/* ---- copy --------------------------------------------------------------- */

int store_copy(const char *run_dir, const char *dst_path)
{
    struct store *st = NULL;
    sqlite3 *dst = NULL;
    int err = store_open(&st, run_dir, true);
    if (err)
        return err;
    if (sqlite3_open_v2(dst_path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        err = error_set(BG_EDB, "%s: %s", dst_path, dst ? sqlite3_errmsg(dst) : "cannot open");
        goto done;
    }
    sqlite3_backup *b = sqlite3_backup_init(dst, "main", st->db, "main");
    if (!b) {
        err = error_set(BG_EDB, "copying run.db: %s", sqlite3_errmsg(dst));
        goto done;
    }
    int rc = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        err = error_set(BG_EDB, "copying run.db: %s", sqlite3_errstr(rc));
        goto done;
    }
    /* The copied header still says WAL; a fresh connection reads it, so the
     * switch to DELETE below really rewrites it. */
    sqlite3_close(dst);
    dst = NULL;
    if (sqlite3_open_v2(dst_path, &dst, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(dst, "PRAGMA journal_mode=DELETE; VACUUM;", NULL, NULL, NULL) != SQLITE_OK)
        err =
            error_set(BG_EDB, "preparing the copy of run.db: %s", dst ? sqlite3_errmsg(dst) : "cannot open");
done:
    if (dst)
        sqlite3_close(dst);
    store_close(st);
    return err;
}

const char *store_dir(const struct store *s) { return s->dir; }

void store_set_voice(struct store *s, const struct voice *voice) { s->voice = voice; }

const struct voice *store_voice(const struct store *s) { return s ? s->voice : NULL; }

void store_close(struct store *s) { store_free_(s); }
