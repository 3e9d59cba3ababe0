/*
 * store_record.c - writing a finished cell into run.db (see store_record.h):
 * its status and result row, samples, markers, facts, environment and
 * telemetry, in one transaction, and the attempt files merged so far.
 */
#include "store/store_record.h"
#include "base/error.h"
#include "store/store_sql.h"
#include "base/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The attempt files merged so far (store_merge); created on first use, so
 * runs written before it existed stay readable and writable. */
static const char *const attempts_sql =
    "CREATE TABLE IF NOT EXISTS attempts(file TEXT NOT NULL, cell_id INTEGER NOT NULL REFERENCES cells(id),\n"
    "  tag TEXT NOT NULL, status TEXT, merged_utc TEXT, PRIMARY KEY (cell_id, file));\n";

/* The attempts the submitting side issued and the result files merging
 * refused (store_issue, store_quarantine); created on first use like
 * attempts, so older runs stay readable and gain them when written. */
static const char *const issued_sql =
    "CREATE TABLE IF NOT EXISTS issued(cell_id INTEGER NOT NULL REFERENCES cells(id), seq INTEGER NOT NULL,\n"
    "  tag TEXT NOT NULL, pubkey TEXT NOT NULL, issued_utc TEXT, PRIMARY KEY (cell_id, seq));\n"
    "CREATE TABLE IF NOT EXISTS quarantine(cell_id INTEGER NOT NULL, file TEXT NOT NULL, kept_as TEXT,\n"
    "  reason TEXT NOT NULL, quarantined_utc TEXT);\n";

static bool status_is_final(enum status status)
{
    return status > STATUS_NONE && status < STATUS_COUNT;
}

static int update_cell(sqlite3 *db, const struct cell *c, const struct result *r, const char *log_path,
                        int new_attempts)
{
    static const char *const sql =
        "UPDATE cells SET status = ?1, detail = ?2, input_sha256 = ?3, input_bytes = ?4,"
        " started_utc = ?5, finished_utc = ?6, wall_s = ?7, peak_rss = ?8, exit_code = ?9,"
        " term_signal = ?10, log_path = ?11, attempts = attempts + ?14"
        " WHERE id = ?12 AND key = ?13";
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(db, sql, &st);
    if (err < 0)
        return err;
    store_sql_bind_text(st, 1, status_name(r->status), false);
    store_sql_bind_text(st, 2, r->detail, false);
    store_sql_bind_text(st, 3, r->input_sha256, true);
    sqlite3_bind_int64(st, 4, r->input_bytes);
    store_sql_bind_time(st, 5, r->started);
    store_sql_bind_time(st, 6, r->finished);
    sqlite3_bind_double(st, 7, r->wall_s);
    sqlite3_bind_int64(st, 8, r->peak_rss);
    sqlite3_bind_int(st, 9, r->exit_code);
    sqlite3_bind_int(st, 10, r->term_signal);
    store_sql_bind_text(st, 11, log_path, false);
    sqlite3_bind_int(st, 12, c->id);
    store_sql_bind_text(st, 13, c->key, false);
    sqlite3_bind_int(st, 14, new_attempts);
    if ((err = store_sql_step_done(db, st, "update cell")) == 0 && sqlite3_changes(db) != 1)
        err = error_set(BG_EDB, "run.db: cell %d (%s) is not in this run's plan", c->id, c->key);
    sqlite3_finalize(st);
    return err;
}

static int delete_cell_rows(sqlite3 *db, int cell_id)
{
    static const char *const tables[] = {"samples", "markers", "facts", "environment", "telemetry"};
    int err = 0;
    for (size_t i = 0; !err && i < sizeof(tables) / sizeof(tables[0]); i++) {
        char sql[64];
        snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE cell_id = ?1", tables[i]);
        sqlite3_stmt *st = NULL;
        if ((err = store_sql_prepare(db, sql, &st)) < 0)
            break;
        sqlite3_bind_int(st, 1, cell_id);
        err = store_sql_step_done(db, st, "delete earlier attempt");
        sqlite3_finalize(st);
    }
    return err;
}

static int insert_samples(sqlite3 *db, int cell_id, const struct result *r)
{
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(db, "INSERT INTO samples(cell_id, phase, idx, ns) VALUES (?1, ?2, ?3, ?4)", &st);
    for (int timed = 0; !err && timed < 2; timed++) {
        const int64_t *ns = timed ? r->timed_ns : r->warmup_ns;
        size_t n = timed ? r->ntimed : r->nwarmup;
        for (size_t i = 0; !err && i < n; i++) {
            sqlite3_bind_int(st, 1, cell_id);
            sqlite3_bind_text(st, 2, timed ? "timed" : "warmup", -1, SQLITE_STATIC);
            sqlite3_bind_int64(st, 3, (sqlite3_int64)i);
            sqlite3_bind_int64(st, 4, ns[i]);
            err = store_sql_step_done(db, st, "insert sample");
        }
    }
    sqlite3_finalize(st);
    return err;
}

static int insert_markers(sqlite3 *db, int cell_id, const struct kvlist *phases)
{
    if (phases->n == 0)
        return 0;
    sqlite3_stmt *st = NULL;
    int err = store_sql_prepare(db, "INSERT INTO markers(cell_id, name, ns) VALUES (?1, ?2, ?3)", &st);
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
        store_sql_bind_text(st, 2, phases->items[i].key, false);
        sqlite3_bind_int64(st, 3, ns);
        err = store_sql_step_done(db, st, "insert marker");
    }
    sqlite3_finalize(st);
    return err;
}

static int insert_facts(sqlite3 *db, int cell_id, const struct kvlist *facts)
{
    if (facts->n == 0)
        return 0;
    sqlite3_stmt *st = NULL;
    /* A fact named twice keeps its last value: facts are a map. */
    int err = store_sql_prepare(db, "INSERT OR REPLACE INTO facts(cell_id, name, value) VALUES (?1, ?2, ?3)", &st);
    for (size_t i = 0; !err && i < facts->n; i++) {
        sqlite3_bind_int(st, 1, cell_id);
        store_sql_bind_text(st, 2, facts->items[i].key, false);
        store_sql_bind_text(st, 3, facts->items[i].value, false);
        err = store_sql_step_done(db, st, "insert fact");
    }
    sqlite3_finalize(st);
    return err;
}

static int insert_telemetry(sqlite3 *db, int cell_id, const struct tseries *ts)
{
    if (ts->n == 0)
        return 0;
    sqlite3_stmt *st = NULL;
    /* Two points of one series at the same ns (a clock that did not move)
     * keep the last: the series is a function of time. */
    int err = store_sql_prepare(db, "INSERT OR REPLACE INTO telemetry(cell_id, name, t_ns, value) VALUES (?1, ?2, ?3, ?4)",
                       &st);
    for (size_t i = 0; !err && i < ts->n; i++) {
        sqlite3_bind_int(st, 1, cell_id);
        store_sql_bind_text(st, 2, ts->rows[i].name, false);
        sqlite3_bind_int64(st, 3, ts->rows[i].t_ns);
        sqlite3_bind_double(st, 4, ts->rows[i].value);
        err = store_sql_step_done(db, st, "insert telemetry");
    }
    sqlite3_finalize(st);
    return err;
}

/* Inserts the attempt files not merged before; *new_files and *new_tags
 * count the new files and the attempts (tags) not seen before. */
static int insert_attempts(sqlite3 *db, int cell_id, const char *const *files, const char *const *tags,
                            const char *const *statuses, size_t n, int *new_files, int *new_tags)
{
    sqlite3_stmt *ins = NULL, *seen = NULL;
    int err = store_sql_prepare(db,
                       "INSERT OR IGNORE INTO attempts(file, cell_id, tag, status, merged_utc)"
                       " VALUES (?1, ?2, ?3, ?4, ?5)",
                       &ins);
    if (!err)
        err = store_sql_prepare(db, "SELECT count(*) FROM attempts WHERE cell_id = ?1 AND tag = ?2", &seen);
    *new_files = *new_tags = 0;
    for (size_t i = 0; !err && i < n; i++) {
        sqlite3_bind_int(seen, 1, cell_id);
        store_sql_bind_text(seen, 2, tags[i], false);
        bool known = sqlite3_step(seen) == SQLITE_ROW && sqlite3_column_int(seen, 0) > 0;
        sqlite3_reset(seen);
        sqlite3_clear_bindings(seen);
        store_sql_bind_text(ins, 1, files[i], false);
        sqlite3_bind_int(ins, 2, cell_id);
        store_sql_bind_text(ins, 3, tags[i], false);
        store_sql_bind_text(ins, 4, statuses[i], false);
        store_sql_bind_time(ins, 5, time(NULL));
        if ((err = store_sql_step_done(db, ins, "insert attempt")) == 0 && sqlite3_changes(db) == 1) {
            (*new_files)++;
            *new_tags += !known;
        }
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(seen);
    return err;
}

/* Writes the cell's result rows; attempts grows by new_attempts. */
static int write_cell(struct store *s, const struct cell *c, const struct result *r, const char *log_path,
                       int new_attempts)
{
    int err;
    if ((err = update_cell(s->db, c, r, log_path, new_attempts)) < 0 ||
        (err = delete_cell_rows(s->db, c->id)) < 0 || (err = insert_samples(s->db, c->id, r)) < 0 ||
        (err = insert_markers(s->db, c->id, &r->phases)) < 0 ||
        (err = insert_facts(s->db, c->id, &r->facts)) < 0 ||
        (err = store_sql_insert_env(s->db, c->id, &r->env)) < 0 ||
        (err = insert_telemetry(s->db, c->id, &r->telemetry)) < 0)
        return err;
    return 0;
}

int store_merge(struct store *s, const struct cell *c, const struct result *r, const char *log_path,
                const char *const *files, const char *const *tags, const char *const *statuses, size_t n,
                int *merged)
{
    *merged = 0;
    if (store_sql_writable(s) < 0)
        return error_code();
    if (!status_is_final(r->status))
        return error_set(BG_EDB, "run.db: cell %s: no final status (%d)", c->key, (int)r->status);
    int err = store_sql_begin(s), new_files = 0, new_tags = 0;
    if (err < 0)
        return error_prefix(err, "merge %s", c->key);
    if ((err = store_sql_exec(s->db, attempts_sql)) < 0 ||
        (err = insert_attempts(s->db, c->id, files, tags, statuses, n, &new_files, &new_tags)) < 0 ||
        (new_files > 0 && (err = write_cell(s, c, r, log_path, new_tags)) < 0) ||
        (err = store_sql_exec(s->db, new_files > 0 ? "COMMIT" : "ROLLBACK")) < 0) {
        store_sql_rollback(s->db);
        return error_prefix(err, "merge %s", c->key);
    }
    *merged = new_files;
    return 0;
}

int store_record(struct store *s, const struct cell *c, const struct result *r, const char *log_path)
{
    if (store_sql_writable(s) < 0)
        return error_code();
    if (!status_is_final(r->status))
        return error_set(BG_EDB, "run.db: cell %s: no final status (%d)", c->key, (int)r->status);
    int err = store_sql_begin(s);
    if (err < 0)
        return error_prefix(err, "record %s", c->key);
    if ((err = write_cell(s, c, r, log_path, 1)) < 0 || (err = store_sql_exec(s->db, "COMMIT")) < 0) {
        store_sql_rollback(s->db);
        return error_prefix(err, "record %s", c->key);
    }
    return 0;
}

/* A writer's statement on the issued or quarantine table (created first),
 * inside a bound transaction (store_sql_begin: the WAL id) that
 * finish_issued() commits. */
static int prepare_issued(struct store *s, const char *sql, sqlite3_stmt **st)
{
    *st = NULL;
    if (store_sql_writable(s) < 0)
        return error_code();
    int err = store_sql_begin(s);
    if (err < 0)
        return err;
    if ((err = store_sql_exec(s->db, issued_sql)) < 0 || (err = store_sql_prepare(s->db, sql, st)) < 0)
        store_sql_rollback(s->db);
    return err;
}

static int finish_issued(struct store *s, sqlite3_stmt *st, int err)
{
    if (!st)
        return err; /* prepare_issued failed and rolled back */
    sqlite3_finalize(st);
    if (err >= 0 && (err = store_sql_exec(s->db, "COMMIT")) >= 0)
        return 0;
    store_sql_rollback(s->db);
    return err;
}

int store_issue(struct store *s, int cell_id, const char *tag, const char *pub)
{
    sqlite3_stmt *st;
    int err = prepare_issued(s,
                             "INSERT INTO issued(cell_id, seq, tag, pubkey, issued_utc) SELECT ?1,"
                             " COALESCE(MAX(seq), 0) + 1, ?2, ?3, ?4 FROM issued WHERE cell_id = ?1",
                             &st);
    if (!err) {
        sqlite3_bind_int(st, 1, cell_id);
        store_sql_bind_text(st, 2, tag, false);
        store_sql_bind_text(st, 3, pub, false);
        store_sql_bind_time(st, 4, time(NULL));
        err = store_sql_step_done(s->db, st, "issue an attempt");
    }
    err = finish_issued(s, st, err);
    return err < 0 ? error_prefix(err, "cell %d, attempt %s", cell_id, tag) : 0;
}

int store_issued(struct store *s, int cell_id, struct store_issued_list *out)
{
    memset(out, 0, sizeof(*out));
    sqlite3_stmt *st = NULL;
    /* No table: a run from before attempts were issued. */
    if (sqlite3_prepare_v2(s->db, "SELECT seq, tag, pubkey FROM issued WHERE cell_id = ?1 ORDER BY seq", -1, &st,
                           NULL) != SQLITE_OK) {
        bool missing = strstr(sqlite3_errmsg(s->db), "no such table") != NULL;
        sqlite3_finalize(st);
        return missing ? 0 : store_sql_error(s->db, "issued attempts");
    }
    sqlite3_bind_int(st, 1, cell_id);
    int rc, err = 0;
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 4;
            out->v = xrealloc(out->v, cap * sizeof(*out->v));
        }
        struct store_issued *i = &out->v[out->n++];
        i->seq = sqlite3_column_int(st, 0);
        i->tag = store_sql_column_text(st, 1, true);
        i->pub = store_sql_column_text(st, 2, true);
    }
    if (rc != SQLITE_DONE)
        err = store_sql_error(s->db, "issued attempts");
    sqlite3_finalize(st);
    if (err)
        store_issued_free(out);
    return err;
}

int store_merged_files(struct store *s, int cell_id, struct strlist *out)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT file FROM attempts WHERE cell_id = ?1", -1, &st, NULL) != SQLITE_OK) {
        bool missing = strstr(sqlite3_errmsg(s->db), "no such table") != NULL;
        sqlite3_finalize(st);
        return missing ? 0 : store_sql_error(s->db, "merged result files");
    }
    sqlite3_bind_int(st, 1, cell_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        strlist_add(out, (const char *)sqlite3_column_text(st, 0));
    int err = rc == SQLITE_DONE ? 0 : store_sql_error(s->db, "merged result files");
    sqlite3_finalize(st);
    return err;
}

void store_issued_free(struct store_issued_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].tag);
        free(l->v[i].pub);
    }
    free(l->v);
    memset(l, 0, sizeof(*l));
}

int store_quarantine(struct store *s, int cell_id, const char *file, const char *kept_as, const char *reason)
{
    sqlite3_stmt *st;
    int err = prepare_issued(s,
                             "INSERT INTO quarantine(cell_id, file, kept_as, reason, quarantined_utc)"
                             " VALUES (?1, ?2, ?3, ?4, ?5)",
                             &st);
    if (!err) {
        sqlite3_bind_int(st, 1, cell_id);
        store_sql_bind_text(st, 2, file, false);
        store_sql_bind_text(st, 3, kept_as, false);
        store_sql_bind_text(st, 4, reason, false);
        store_sql_bind_time(st, 5, time(NULL));
        err = store_sql_step_done(s->db, st, "note a quarantined result file");
    }
    return finish_issued(s, st, err);
}
