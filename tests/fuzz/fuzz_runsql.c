/*
 * fuzz_runsql.c - the run reader on a run.db changed at the SQL level: a
 * structure-aware mutator. The input is a list of operations applied with
 * SQLite to a copy of tests/fixtures/runs/tricky/run.db (a valid run), so
 * every file stays a database and the mutations land on rows and types:
 *
 *   op 0  set one column of the r-th row of a table to a value
 *   op 1  duplicate the r-th row, then set one of its columns
 *   op 2  delete the r-th row
 *   op 3  set one column of every row
 *   op 4  insert a row holding only one column
 *   op 5  run the next bytes as SQL (schema changes, triggers, anything)
 *
 * Values: NULL, integers (edge ones too), any double bit pattern (NaN, inf),
 * text from the input, a 1 MiB text, a blob, text with a NUL, numbers as
 * text. Tables and columns are those of the fixture, in name order. Then
 * the run is read as show, compare and report read it (fuzz_run.h).
 */
#include "fuzz_run.h"

#include <sqlite3.h>

#define MAX_TABLES 32
#define MAX_COLS 32
#define HUGE_TEXT (1u << 20)

static char *base;
static size_t base_len;
static char tables[MAX_TABLES][64];
static char cols[MAX_TABLES][MAX_COLS][64];
static int ntables, ncols[MAX_TABLES];
static char *huge;

struct in {
    const uint8_t *p, *end;
};

static unsigned byte(struct in *in)
{
    return in->p < in->end ? *in->p++ : 0;
}

static uint64_t u64(struct in *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | byte(in);
    return v;
}

/* Binds parameter i of st to the value the input describes. */
static void bind_value(sqlite3_stmt *st, int i, struct in *in)
{
    static const char *numbers[] = {"1e999", "-0", "NaN", "-1", "9223372036854775808", "0x10", " 7", "1.5"};
    unsigned kind = byte(in) % 11;
    switch (kind) {
    case 0: sqlite3_bind_null(st, i); break;
    case 1: sqlite3_bind_int64(st, i, (int64_t)u64(in)); break;
    case 2: sqlite3_bind_int64(st, i, (int64_t[]){INT64_MIN, INT64_MAX, -1, 0, 1, INT32_MAX + 1LL}[byte(in) % 6]); break;
    case 3: {
        uint64_t b = u64(in);
        double d;
        memcpy(&d, &b, sizeof(d));
        sqlite3_bind_double(st, i, d);
        break;
    }
    case 4:
    case 5: {
        size_t n = byte(in);
        if (n > (size_t)(in->end - in->p))
            n = (size_t)(in->end - in->p);
        sqlite3_bind_text(st, i, (const char *)in->p, (int)n, SQLITE_TRANSIENT);
        in->p += n;
        break;
    }
    case 6: sqlite3_bind_text(st, i, huge, (int)HUGE_TEXT - (int)byte(in), SQLITE_STATIC); break;
    case 7: {
        size_t n = byte(in) % 64;
        if (n > (size_t)(in->end - in->p))
            n = (size_t)(in->end - in->p);
        sqlite3_bind_blob(st, i, in->p, (int)n, SQLITE_TRANSIENT);
        in->p += n;
        break;
    }
    case 8: sqlite3_bind_text(st, i, "a\0b", 3, SQLITE_STATIC); break;
    case 9: sqlite3_bind_text(st, i, numbers[byte(in) % 8], -1, SQLITE_STATIC); break;
    default: sqlite3_bind_text(st, i, "", 0, SQLITE_STATIC); break;
    }
}

static void run_sql(sqlite3 *db, const char *sql, struct in *in, int nvalues)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && st) {
        for (int i = 1; i <= nvalues; i++)
            bind_value(st, i, in);
        while (sqlite3_step(st) == SQLITE_ROW)
            ;
    }
    sqlite3_finalize(st);
}

static void apply(sqlite3 *db, struct in *in)
{
    for (int ops = 0; ops < 64 && in->p < in->end; ops++) {
        unsigned op = byte(in) % 6;
        int t = (int)(byte(in) % (unsigned)ntables);
        int c = ncols[t] ? (int)(byte(in) % (unsigned)ncols[t]) : 0;
        unsigned r = byte(in);
        char sql[512];
        switch (op) {
        case 0:
            snprintf(sql, sizeof(sql), "UPDATE \"%s\" SET \"%s\" = ?1 WHERE rowid = (SELECT rowid FROM \"%s\" LIMIT 1 OFFSET %u)",
                     tables[t], cols[t][c], tables[t], r);
            run_sql(db, sql, in, 1);
            break;
        case 1:
            snprintf(sql, sizeof(sql), "INSERT INTO \"%s\" SELECT * FROM \"%s\" LIMIT 1 OFFSET %u", tables[t], tables[t], r);
            run_sql(db, sql, in, 0);
            snprintf(sql, sizeof(sql), "UPDATE \"%s\" SET \"%s\" = ?1 WHERE rowid = last_insert_rowid()", tables[t],
                     cols[t][c]);
            run_sql(db, sql, in, 1);
            break;
        case 2:
            snprintf(sql, sizeof(sql), "DELETE FROM \"%s\" WHERE rowid = (SELECT rowid FROM \"%s\" LIMIT 1 OFFSET %u)",
                     tables[t], tables[t], r);
            run_sql(db, sql, in, 0);
            break;
        case 3:
            snprintf(sql, sizeof(sql), "UPDATE \"%s\" SET \"%s\" = ?1", tables[t], cols[t][c]);
            run_sql(db, sql, in, 1);
            break;
        case 4:
            snprintf(sql, sizeof(sql), "INSERT INTO \"%s\"(\"%s\") VALUES (?1)", tables[t], cols[t][c]);
            run_sql(db, sql, in, 1);
            break;
        default: {
            size_t n = r;
            if (n > (size_t)(in->end - in->p))
                n = (size_t)(in->end - in->p);
            char *text = strndup((const char *)in->p, n);
            in->p += n;
            sqlite3_exec(db, text, NULL, NULL, NULL);
            free(text);
        }
        }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    base = fuzz_read(BENCHGEN_SOURCE_DIR "/tests/fixtures/runs/tricky/run.db", &base_len);
    huge = malloc(HUGE_TEXT);
    memset(huge, 'x', HUGE_TEXT);
    sqlite3 *db;
    sqlite3_stmt *st;
    if (sqlite3_open_v2("file:" BENCHGEN_SOURCE_DIR "/tests/fixtures/runs/tricky/run.db?immutable=1", &db,
                        SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, NULL))
        abort();
    while (ntables < MAX_TABLES && sqlite3_step(st) == SQLITE_ROW)
        snprintf(tables[ntables++], 64, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    for (int t = 0; t < ntables; t++) {
        char sql[128];
        snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('%s') ORDER BY cid", tables[t]);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
            abort();
        while (ncols[t] < MAX_COLS && sqlite3_step(st) == SQLITE_ROW)
            snprintf(cols[t][ncols[t]++], 64, "%s", (const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    if (ntables == 0)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[400];
    const char *dir = fuzz_run_dir(path, sizeof(path));
    fuzz_write(path, base, base_len);
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        abort();
    struct in in = {data, data + size};
    apply(db, &in);
    sqlite3_close(db);
    fuzz_read_run(dir);
    return 0;
}
