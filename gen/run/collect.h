/*
 * collect.h - merging the attempt files under RUN_DIR/cells/ (cellfile.h)
 * into run.db. The submitting side is run.db's only writer: the waiting
 * `run`, `run --resume` (before it picks what is left) and `benchgen
 * collect` all merge through here, idempotently (store_merge()), so running
 * it twice, or after a crash half-way, records every attempt exactly once.
 *
 * A cell's stored result is its newest attempt's (a verdict written by the
 * submitting side counts as part of the attempt it judges).
 */
#ifndef BENCHGEN_COLLECT_H
#define BENCHGEN_COLLECT_H

#include "plan/matrix.h"
#include "base/util.h"
#include "store/result.h"
#include "store/store.h"

/* Cell c's attempt files as the scheduler merges them: the newest attempt's
 * result in full into *r, and every file with its attempt tag and status
 * name. 0 with nothing filled (r->status STATUS_NONE) when the cell has no
 * attempt file. */
int collect_read(const char *run_dir, const struct cell *c, struct result *r, struct strlist *files,
                 struct strlist *tags, struct strlist *statuses);

/* Merges cell c's attempt files not merged yet; *merged counts them (0 when
 * there was nothing new). */
int collect_cell(struct store *st, const struct cell *c, int *merged);

/* collect_cell() for every cell of plan; *files counts the files merged,
 * *cells the cells they changed. */
int collect_run(struct store *st, const struct matrix *plan, int *files, int *cells);

#endif /* BENCHGEN_COLLECT_H */
