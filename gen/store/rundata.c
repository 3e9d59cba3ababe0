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
 * the run has started or finished. A cell's plan columns are read as the
 * plan loader reads them (store_sql_read_cell); its result columns back into
 * a struct result: started_utc/finished_utc must be the exact form the store
 * writes (anything else is BG_EDB, never a silently different time), and an
 * input_sha256 longer than 64 characters is BG_EDB too.
 */
#include "store/rundata.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "store/store.h"
#include "store/store_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

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
    rd->name = store_sql_column_text(st, 0, true);
    rd->description = store_sql_column_text(st, 1, true);
    rd->spec_path = store_sql_column_text(st, 2, true);
    rd->spec_sha256 = store_sql_column_text(st, 3, true);
    rd->spec_text = store_sql_column_text(st, 4, true);
    rd->size = store_sql_column_text(st, 5, true);
    rd->precision = store_sql_column_text(st, 6, true);
    rd->seed = (uint64_t)sqlite3_column_int64(st, 7);
    rd->created_utc = store_sql_column_text(st, 8, true);
    rd->started_utc = store_sql_column_text(st, 9, false);
    rd->finished_utc = store_sql_column_text(st, 10, false);
    rd->command_line = store_sql_column_text(st, 11, true);
    rd->benchgen_version = store_sql_column_text(st, 12, true);
    rd->git_commit = store_sql_column_text(st, 13, true);
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

static int load_samples_(sqlite3 *db, sqlite3_stmt *st, struct result *r, int cell_id, int warmup)
{
    int rc;
    sqlite3_bind_int(st, 1, cell_id);
    sqlite3_bind_text(st, 2, warmup ? "warmup" : "timed", -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        result_add_sample(r, warmup, sqlite3_column_int64(st, 0));
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : store_sql_error(db, "load samples");
}

static int load_cell_details_(sqlite3 *db, struct cell_queries *q, struct rd_cell *c)
{
    struct result *r = &c->result;
    int id = c->cell.id, err;
    if ((err = load_samples_(db, q->samples, r, id, 1)) < 0 || (err = load_samples_(db, q->samples, r, id, 0)) < 0)
        return err;
    sqlite3_bind_int(q->markers, 1, id);
    sqlite3_bind_int(q->facts, 1, id);
    sqlite3_bind_int(q->env, 1, id);
    if ((err = load_pairs_(db, q->markers, &r->phases, "load markers")) < 0 ||
        (err = load_pairs_(db, q->facts, &r->facts, "load facts")) < 0 ||
        (err = load_pairs_(db, q->env, &r->env, "load environment")) < 0)
        return err;
    return stats_compute(r->timed_ns, r->ntimed, &c->st);
}

/* The result columns, after the plan's (STORE_SQL_CELL_COLUMNS). */
#define RESULT_COLUMNS                                                                                        \
    ", status, detail, input_sha256, input_bytes, started_utc, finished_utc, wall_s, peak_rss, exit_code,"   \
    " term_signal, log_path, attempts"

static int read_cell_row_(sqlite3_stmt *st, struct rd_cell *c)
{
    struct result *r = &c->result;
    const int k = STORE_SQL_CELL_NCOLUMNS;
    store_sql_read_cell(st, &c->cell);
    int id = c->cell.id, err;
    const char *status = (const char *)sqlite3_column_text(st, k);
    int s = status_parse(status);
    if (s < 0)
        return error_set(BG_EDB, "run.db: cell %d has an unknown status '%s'", id, status);
    r->status = (enum status)s;
    r->detail = store_sql_column_text(st, k + 1, false);
    const char *sha = (const char *)sqlite3_column_text(st, k + 2);
    if (sha && strlen(sha) >= sizeof(r->input_sha256))
        return error_set(BG_EDB, "run.db: cell %d: input_sha256 has %zu characters, not 64", id, strlen(sha));
    snprintf(r->input_sha256, sizeof(r->input_sha256), "%s", sha ? sha : "");
    r->input_bytes = sqlite3_column_int64(st, k + 3);
    if ((err = store_sql_column_time(st, k + 4, id, "started_utc", &r->started)) < 0 ||
        (err = store_sql_column_time(st, k + 5, id, "finished_utc", &r->finished)) < 0)
        return err;
    r->wall_s = sqlite3_column_double(st, k + 6);
    r->peak_rss = sqlite3_column_int64(st, k + 7);
    r->exit_code = sqlite3_column_int(st, k + 8);
    r->term_signal = sqlite3_column_int(st, k + 9);
    c->log_path = store_sql_column_text(st, k + 10, false);
    c->attempts = sqlite3_column_int(st, k + 11);
    return 0;
}

static int load_cells_(sqlite3 *db, struct rundata *rd)
{
    struct cell_queries q = {0};
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    int rc = SQLITE_OK, err = 0;

    if (store_sql_prepare_cells(db, RESULT_COLUMNS, &st) < 0 ||
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
    if ((err = load_pairs_(db, st, &rd->env, "load environment")) < 0 || (err = load_cells_(db, rd)) < 0 ||
        (err = store_sql_read_inputs(db, &rd->inputs)) < 0)
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
        if (strcmp(rd->cells[i].cell.key, key) == 0)
            return &rd->cells[i];
    return NULL;
}

void rundata_free(struct rundata *rd)
{
    if (!rd)
        return;
    for (size_t i = 0; i < rd->ncells; i++) {
        cell_free(&rd->cells[i].cell);
        result_free(&rd->cells[i].result);
        free(rd->cells[i].log_path);
    }
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
    run_inputs_free(&rd->inputs);
    free(rd);
}
