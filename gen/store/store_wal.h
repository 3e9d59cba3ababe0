/*
 * store_wal.h - does run.db-wal belong to run.db? (private to gen/store)
 *
 * SQLite itself never asks: a run.db-wal placed beside a run.db is replayed
 * over it whatever database wrote it, and the last connection to close
 * checkpoints the mix into run.db for good. SQLite's WAL header carries no
 * link to its database, so benchgen makes one: every write transaction of
 * a run sets page 1's user_version to the run's WAL id, a random non-zero
 * 32-bit number chosen when the run is created (store_sql_begin(),
 * store_sql.h). Each commit in a run's WAL therefore holds a copy of page 1
 * with that id, and the id in run.db's own header is the same.
 *
 * The check reads the WAL as SQLite recovers it (header checksum, then
 * frames whose salts and running checksum are valid, up to the last commit
 * frame) and accepts it only when every committed transaction holds page 1
 * and every such page carries run.db's id. A run made before the id existed
 * (user_version 0) cannot be checked: its WAL is accepted only when no page
 * in it carries another id. Nothing is written; the files are opened
 * read-only, and a WAL that is not a regular file is refused unopened.
 */
#ifndef BENCHGEN_STORE_WAL_H
#define BENCHGEN_STORE_WAL_H

#include <stdbool.h>
#include <stdint.h>

/* Checks db_path's SQLite header (BG_EDAMAGED "not a SQLite database" when
 * it is not one) and db_path-wal against it. strict matters only for a run
 * made before the WAL id (id 0): a reader (strict) refuses a WAL with pages
 * that carry an id, a writer (not strict) accepts it: it is the WAL of a
 * resume that gave the old run its id and stopped before the checkpoint. *db_id: run.db's
 * WAL id (0 for a run made before it); *frames: whether the WAL holds any
 * committed transaction (false when it is absent or empty). BG_EDAMAGED,
 * naming both files and saying neither was changed, for a WAL that belongs
 * to another database; BG_EIO when a file cannot be read. */
int store_wal_check(const char *db_path, bool strict, uint32_t *db_id, bool *frames);

/* A reader's private snapshot: a fresh directory under $TMPDIR
 * (*dir_out, malloc'd, set as soon as it exists so the caller removes it
 * on any failure) holding copies of db_path and db_path-wal named db_name
 * and db_name-wal, which SQLite may replay and checkpoint freely. */
int store_wal_snapshot(char **dir_out, const char *db_path, const char *db_name);

#endif /* BENCHGEN_STORE_WAL_H */
