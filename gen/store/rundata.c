/*
 * rundata.c - loads a stored run into memory for readers (see rundata.h).
 *
 * Everything is read inside one read transaction, so a run that is still
 * being written (`benchgen show` during a run) is seen as one consistent
 * snapshot: a cell is either fully recorded or still pending.
 *
 * Text columns the schema requires (names, keys, spec fields) come back as ""
 * when NULL so readers never test them; the ones rundata.h marks "may be
 * NULL" keep NULL, and so do the run's started_utc and finished_utc until
 * the run has started or finished.
 */
#include "store/rundata.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "store/store.h"
#include "store/store_sql.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* Column text, malloc'd: NULL stays NULL unless required, then "". */
static char *col_str(sqlite3_stmt *st, int i, bool required)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t && !required)
        return NULL;
    return xstrdup(t ? (const char *)t : "");
}

/* ---- run row and environment -------------------------------------------- */

static int load_run_(sqlite3 *db, struct rundata *rd)
{
    static const char *const sql =
        "SELECT name, description, spec_path, spec_sha256, spec_text, size, precision, seed,"
        " created_utc, started_utc, finished_utc, command_line, benchgen_version, git_commit,"
        " git_dirty FROM run WHERE id = 1";
    sqlite3_stmt *st = NULL;
    int err = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return store_sql_error(db, "load run");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        err = error_set(BG_EDB, "run.db: the run row is missing");
        goto done;
    }
    if (rc != SQLITE_ROW) {
        err = store_sql_error(db, "load run");
        goto done;
    }
    rd->name = col_str(st, 0, true);
    rd->description = col_str(st, 1, true);
    rd->spec_path = col_str(st, 2, true);
    rd->spec_sha256 = col_str(st, 3, true);
    rd->spec_text = col_str(st, 4, true);
    rd->size = col_str(st, 5, true);
    rd->precision = col_str(st, 6, true);
    rd->seed = (uint64_t)sqlite3_column_int64(st, 7);
    rd->created_utc = col_str(st, 8, true);
    rd->started_utc = col_str(st, 9, false);
    rd->finished_utc = col_str(st, 10, false);
    rd->command_line = col_str(st, 11, true);
    rd->benchgen_version = col_str(st, 12, true);
    rd->git_commit = col_str(st, 13, true);
    rd->git_dirty = sqlite3_column_int(st, 14);
done:
    sqlite3_finalize(st);
    return err;
}

/* Appends every (col0, col1) row of a prepared, bound statement to kl. */
static int load_pairs_(sqlite3 *db, sqlite3_stmt *st, struct kvlist *kl, const char *what)
{
    int rc, err = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        if ((err = kvlist_add(kl, k ? k : "", v ? v : "")) < 0)
            break;
    }
    if (!err && rc != SQLITE_DONE)
        err = store_sql_error(db, what);
    sqlite3_reset(st);
    return err;
}

/* ---- cells -------------------------------------------------------------- */

/* The per-cell queries, prepared once for the whole load. */
struct cell_queries {
    sqlite3_stmt *samples, *markers, *facts, *env;
};

static int load_samples_(sqlite3 *db, sqlite3_stmt *st, int cell_id, const char *phase, int64_t **out,
                         size_t *n)
{
    size_t cap = 0;
    int rc, err = 0;
    sqlite3_bind_int(st, 1, cell_id);
    sqlite3_bind_text(st, 2, phase, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            size_t c = cap ? cap * 2 : 128;
            *out = xrealloc(*out, c * sizeof(**out));
            cap = c;
        }
        (*out)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    if (!err && rc != SQLITE_DONE)
        err = store_sql_error(db, "load samples");
    sqlite3_reset(st);
    return err;
}

static int load_cell_details_(sqlite3 *db, struct cell_queries *q, struct rd_cell *c)
{
    int err;
    if ((err = load_samples_(db, q->samples, c->id, "warmup", &c->warmup_ns, &c->nwarmup)) < 0 ||
        (err = load_samples_(db, q->samples, c->id, "timed", &c->timed_ns, &c->ntimed)) < 0)
        return err;
    sqlite3_bind_int(q->markers, 1, c->id);
    sqlite3_bind_int(q->facts, 1, c->id);
    sqlite3_bind_int(q->env, 1, c->id);
    if ((err = load_pairs_(db, q->markers, &c->markers, "load markers")) < 0 ||
        (err = load_pairs_(db, q->facts, &c->facts, "load facts")) < 0 ||
        (err = load_pairs_(db, q->env, &c->environment, "load environment")) < 0)
        return err;
    return stats_compute(c->timed_ns, c->ntimed, &c->st);
}

static int read_cell_row_(sqlite3_stmt *st, struct rd_cell *c)
{
    c->id = sqlite3_column_int(st, 0);
    c->key = col_str(st, 1, true);
    c->model = col_str(st, 2, true);
    c->task = col_str(st, 3, true);
    c->batch = sqlite3_column_int(st, 4);
    c->backend = col_str(st, 5, true);
    c->size = col_str(st, 6, true);
    c->precision = col_str(st, 7, true);
    c->env = col_str(st, 8, true);
    c->workload = col_str(st, 9, false);
    c->steps = sqlite3_column_int(st, 10);
    c->warmup = sqlite3_column_int(st, 11);
    c->repeat = sqlite3_column_int(st, 12);
    c->seed = (uint64_t)sqlite3_column_int64(st, 13);
    c->timeout_s = sqlite3_column_double(st, 14);
    c->memory_limit = sqlite3_column_int64(st, 15);
    const char *status = (const char *)sqlite3_column_text(st, 16);
    int s = status_parse(status);
    if (s < 0)
        return error_set(BG_EDB, "run.db: cell %d has an unknown status '%s'", c->id, status);
    c->status = (enum status)s;
    c->detail = col_str(st, 17, false);
    c->input_sha256 = col_str(st, 18, false);
    c->input_bytes = sqlite3_column_int64(st, 19);
    c->started_utc = col_str(st, 20, false);
    c->finished_utc = col_str(st, 21, false);
    c->wall_s = sqlite3_column_double(st, 22);
    c->peak_rss = sqlite3_column_int64(st, 23);
    c->exit_code = sqlite3_column_int(st, 24);
    c->term_signal = sqlite3_column_int(st, 25);
    c->log_path = col_str(st, 26, false);
    c->attempts = sqlite3_column_int(st, 27);
    c->method = col_str(st, 28, false);
    return 0;
}

static int load_cells_(sqlite3 *db, struct rundata *rd)
{
    static const char *const sql =
        "SELECT id, key, model, task, batch, backend, size, precision, env, workload, steps, warmup,"
        " repeat, seed, timeout_s, memory_limit, status, detail, input_sha256, input_bytes,"
        " started_utc, finished_utc, wall_s, peak_rss, exit_code, term_signal, log_path, attempts, method"
        " FROM cells ORDER BY id";
    /* Runs stored before the method key have no method column: NULL. */
    static const char *const sql_before_method =
        "SELECT id, key, model, task, batch, backend, size, precision, env, workload, steps, warmup,"
        " repeat, seed, timeout_s, memory_limit, status, detail, input_sha256, input_bytes,"
        " started_utc, finished_utc, wall_s, peak_rss, exit_code, term_signal, log_path, attempts, NULL"
        " FROM cells ORDER BY id";
    struct cell_queries q = {0};
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    int rc = SQLITE_OK, err = 0;

    if ((sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK &&
         sqlite3_prepare_v2(db, sql_before_method, -1, &st, NULL) != SQLITE_OK) ||
        sqlite3_prepare_v2(db, "SELECT ns FROM samples WHERE cell_id = ?1 AND phase = ?2 ORDER BY idx", -1,
                           &q.samples, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT name, ns FROM markers WHERE cell_id = ?1 ORDER BY ns, rowid", -1,
                           &q.markers, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT name, value FROM facts WHERE cell_id = ?1 ORDER BY name", -1, &q.facts,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT key, value FROM environment WHERE cell_id = ?1 ORDER BY key, rowid",
                           -1, &q.env, NULL) != SQLITE_OK) {
        err = store_sql_error(db, "load cells");
        goto done;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (rd->ncells == cap) {
            size_t c = cap ? cap * 2 : 64;
            rd->cells = xrealloc(rd->cells, c * sizeof(*rd->cells));
            cap = c;
        }
        struct rd_cell *c = &rd->cells[rd->ncells];
        memset(c, 0, sizeof(*c));
        rd->ncells++; /* counted before filling, so rundata_free() releases a half-read cell */
        if ((err = read_cell_row_(st, c)) < 0 || (err = load_cell_details_(db, &q, c)) < 0)
            goto done;
    }
    if (rc != SQLITE_DONE)
        err = store_sql_error(db, "load cells");
done:
    sqlite3_finalize(st);
    sqlite3_finalize(q.samples);
    sqlite3_finalize(q.markers);
    sqlite3_finalize(q.facts);
    sqlite3_finalize(q.env);
    return err;
}

/* ---- public ------------------------------------------------------------- */

int rundata_load(struct rundata **out, const char *run_dir)
{
    struct store *s = NULL;
    struct rundata *rd = NULL;
    sqlite3_stmt *st = NULL;
    bool in_txn = false;
    int err = 0;

    *out = NULL;
    if ((err = store_open(&s, run_dir, true)) < 0)
        return err; /* its message already names the directory */
    sqlite3 *db = s->db;
    rd = xcalloc(1, sizeof(*rd));
    rd->dir = xstrdup(run_dir);
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        err = store_sql_error(db, "begin");
        goto done;
    }
    in_txn = true;
    if ((err = load_run_(db, rd)) < 0)
        goto done;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM environment WHERE cell_id = 0 ORDER BY key, rowid", -1,
                           &st, NULL) != SQLITE_OK) {
        err = store_sql_error(db, "load environment");
        goto done;
    }
    if ((err = load_pairs_(db, st, &rd->env, "load environment")) < 0 || (err = load_cells_(db, rd)) < 0)
        goto done;
done:
    sqlite3_finalize(st);
    if (in_txn)
        sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    store_close(s);
    if (err < 0) {
        error_prefix(err, "%s", run_dir);
        rundata_free(rd);
    } else {
        *out = rd;
    }
    return err;
}

const struct rd_cell *rundata_find(const struct rundata *rd, const char *key)
{
    for (size_t i = 0; i < rd->ncells; i++)
        if (strcmp(rd->cells[i].key, key) == 0)
            return &rd->cells[i];
    return NULL;
}

static void rd_cell_free_(struct rd_cell *c)
{
    free(c->key);
    free(c->model);
    free(c->task);
    free(c->backend);
    free(c->size);
    free(c->precision);
    free(c->env);
    free(c->workload);
    free(c->method);
    free(c->detail);
    free(c->input_sha256);
    free(c->started_utc);
    free(c->finished_utc);
    free(c->log_path);
    free(c->warmup_ns);
    free(c->timed_ns);
    kvlist_free(&c->markers);
    kvlist_free(&c->facts);
    kvlist_free(&c->environment);
}

void rundata_free(struct rundata *rd)
{
    if (!rd)
        return;
    for (size_t i = 0; i < rd->ncells; i++)
        rd_cell_free_(&rd->cells[i]);
    free(rd->cells);
    free(rd->dir);
    free(rd->name);
    free(rd->description);
    free(rd->spec_path);
    free(rd->spec_sha256);
    free(rd->spec_text);
    free(rd->size);
    free(rd->precision);
    free(rd->created_utc);
    free(rd->started_utc);
    free(rd->finished_utc);
    free(rd->command_line);
    free(rd->benchgen_version);
    free(rd->git_commit);
    kvlist_free(&rd->env);
    free(rd);
}
