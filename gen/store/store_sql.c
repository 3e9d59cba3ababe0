/*
 * store_sql.c - SQLite helpers shared by the files of gen/store (see
 * store_sql.h).
 */
#include "store/store_sql.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "store/rundir.h"

#include <stdlib.h>
#include <string.h>

/* A damaged file is bad input (BG_EDAMAGED, exit 2), not a failed operation. */
static int code_of(sqlite3 *db)
{
    int rc = db ? sqlite3_errcode(db) : SQLITE_NOMEM;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB ? BG_EDAMAGED : BG_EDB;
}

int store_sql_error(sqlite3 *db, const char *what)
{
    return error_set(code_of(db), "run.db: %s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

int store_sql_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int err = error_set(code_of(db), "run.db: %s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return err;
    }
    return 0;
}

int store_sql_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return store_sql_error(db, "prepare");
    return 0;
}

int store_sql_bind_text(sqlite3_stmt *st, int i, const char *s, bool empty_is_null)
{
    if (!s || (empty_is_null && !*s))
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

int store_sql_bind_time(sqlite3_stmt *st, int i, time_t t)
{
    char buf[32];
    const char *text = util_utc_or_null(buf, t);
    return text ? sqlite3_bind_text(st, i, text, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

int store_sql_column_time(sqlite3_stmt *st, int i, int cell_id, const char *what, time_t *out)
{
    const char *text = (const char *)sqlite3_column_text(st, i);
    *out = 0;
    if (!text)
        return 0;
    if (util_utc_parse(out, text) < 0)
        return error_set(BG_EDB, "run.db: cell %d: %s '%s' is not a UTC time like 2026-11-30T15:21:00Z", cell_id,
                         what, text);
    return 0;
}

char *store_sql_column_text(sqlite3_stmt *st, int i, bool required)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t && !required)
        return NULL;
    return xstrdup(t ? (const char *)t : "");
}

void store_sql_read_cell(sqlite3_stmt *st, struct cell *c)
{
    c->id = sqlite3_column_int(st, 0);
    c->key = store_sql_column_text(st, 1, true);
    c->model = store_sql_column_text(st, 2, true);
    c->task = store_sql_column_text(st, 3, true);
    c->batch = sqlite3_column_int(st, 4);
    c->backend = store_sql_column_text(st, 5, true);
    c->size = store_sql_column_text(st, 6, true);
    c->precision = store_sql_column_text(st, 7, true);
    c->env = store_sql_column_text(st, 8, true);
    c->workload = store_sql_column_text(st, 9, false);
    c->steps = sqlite3_column_int(st, 10);
    c->warmup = sqlite3_column_int(st, 11);
    c->repeat = sqlite3_column_int(st, 12);
    c->seed = (uint64_t)sqlite3_column_int64(st, 13);
    c->timeout = sqlite3_column_double(st, 14);
    c->memory_limit = (uint64_t)sqlite3_column_int64(st, 15);
    c->method = store_sql_column_text(st, 16, false);
    c->device = store_sql_column_text(st, 17, false);
}

int store_sql_prepare_cells(sqlite3 *db, const char *tail, sqlite3_stmt **st)
{
    /* Newest first: a run from before the device key, then from before the method key. */
    static const char *const forms[] = {
        STORE_SQL_CELL_COLUMNS,
        "id, key, model, task, batch, backend, size, precision, env, workload, steps, warmup, repeat, seed,"
        " timeout_s, memory_limit, method, NULL",
        "id, key, model, task, batch, backend, size, precision, env, workload, steps, warmup, repeat, seed,"
        " timeout_s, memory_limit, NULL, NULL"};
    int err = 0;
    *st = NULL;
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        char *sql = xprintf("SELECT %s%s FROM cells ORDER BY id", forms[i], tail);
        int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
        free(sql);
        if (rc == SQLITE_OK)
            return 0;
        err = store_sql_error(db, "load plan");
        sqlite3_finalize(*st);
        *st = NULL;
    }
    return err;
}

int store_sql_step_done(sqlite3 *db, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    int err = rc == SQLITE_DONE ? 0 : store_sql_error(db, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return err;
}

void store_sql_rollback(sqlite3 *db)
{
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

int store_sql_insert_env(sqlite3 *db, int cell_id, const struct kvlist *env)
{
    if (!env || env->n == 0)
        return 0;
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(db, "INSERT INTO environment(cell_id, key, value) VALUES (?1, ?2, ?3)", &st);
    for (size_t i = 0; !err && i < env->n; i++) {
        sqlite3_bind_int(st, 1, cell_id);
        store_sql_bind_text(st, 2, env->items[i].key, false);
        store_sql_bind_text(st, 3, env->items[i].value, false);
        err = store_sql_step_done(db, st, "insert environment");
    }
    sqlite3_finalize(st);
    return err;
}

int store_sql_writable(const struct store *s)
{
    if (s->readonly)
        return error_set(BG_EDB, "%s/%s: opened read-only", s->dir, RUNDIR_DB_NAME);
    return 0;
}

/* ---- the inputs table (store/runinputs.h) --------------------------------------------------------------- */

const char *const store_sql_inputs_schema =
    "CREATE TABLE IF NOT EXISTS inputs(path TEXT PRIMARY KEY, kind TEXT NOT NULL, origin TEXT,\n"
    "  sha256 TEXT NOT NULL, size INTEGER NOT NULL, content BLOB);\n";

int store_sql_insert_inputs(sqlite3 *db, const struct run_inputs *l)
{
    if (!l || !l->n)
        return 0;
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(
        db, "INSERT INTO inputs(path, kind, origin, sha256, size, content) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &st);
    for (size_t i = 0; !err && i < l->n; i++) {
        const struct run_input *in = &l->v[i];
        store_sql_bind_text(st, 1, in->path, false);
        store_sql_bind_text(st, 2, in->kind, false);
        store_sql_bind_text(st, 3, in->origin, false);
        store_sql_bind_text(st, 4, in->sha256, false);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)in->size);
        if (in->content)
            sqlite3_bind_blob64(st, 6, in->content, in->len, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 6);
        err = store_sql_step_done(db, st, "insert inputs");
        if (err)
            error_prefix(err, "input %s", in->path);
    }
    sqlite3_finalize(st);
    return err;
}

int store_sql_read_inputs(sqlite3 *db, struct run_inputs *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'inputs'", -1,
                                &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_error(db, "load inputs");
    bool have = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!have) /* a run made before the table: it recorded none */
        return 0;
    int err = store_sql_prepare(db, "SELECT path, kind, origin, sha256, size, content FROM inputs ORDER BY path",
                                &st);
    while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        const char *kind = (const char *)sqlite3_column_text(st, 1);
        const char *origin = (const char *)sqlite3_column_text(st, 2);
        const char *sha = (const char *)sqlite3_column_text(st, 3);
        sqlite3_int64 size = sqlite3_column_int64(st, 4);
        const void *blob = sqlite3_column_blob(st, 5);
        int blen = sqlite3_column_bytes(st, 5);
        if (!path || !kind || !sha || strlen(sha) != 64 || size < 0) {
            err = error_set(BG_EDB, "run.db: an inputs row lacks its path, kind, sha256 or size");
            break;
        }
        if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
            if ((err = run_inputs_add(out, path, kind, origin, blob ? blob : "", (size_t)blen)) < 0)
                break;
            /* the row's hash and size as run.db states them (verify holds the bytes to them) */
            struct run_input *in = &out->v[out->n - 1];
            memcpy(in->sha256, sha, 65);
            in->size = (uint64_t)size;
        } else {
            err = run_inputs_add_hash(out, path, kind, origin, sha, (uint64_t)size);
        }
    }
    if (!err && rc != SQLITE_DONE)
        err = store_sql_error(db, "load inputs");
    sqlite3_finalize(st);
    return err;
}
