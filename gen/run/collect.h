/*
 * collect.h - merging the attempt files under RUN_DIR/cells/ (cellfile.h)
 * into run.db. The submitting side is run.db's only writer: the waiting
 * `run`, `run --resume` (before it picks what is left) and `benchgen
 * collect` all merge through here, idempotently (store_merge()), so running
 * it twice, or after a crash half-way, records every attempt exactly once.
 *
 * Every file is checked first (run/cellcheck.h) against the plan and the
 * attempts issued in run.db; one that fails is quarantined: moved to
 * cells/<id>/quarantine/ (never deleted), noted with its reason in run.db's
 * quarantine table and to the store's voice (store_voice()), and never merged, while the other files
 * and cells still merge. A file merged before is never moved.
 *
 * A cell's stored result is that of its last attempt in the order the
 * submitting side issued them (run.db's issued.seq, then Slurm's restart
 * count), never by a time a file states. Within one attempt, a final result
 * of the task itself stands over a verdict of the submitting side, which
 * stands over the task's own `interrupted`.
 */
#ifndef BENCHGEN_COLLECT_H
#define BENCHGEN_COLLECT_H

#include <stdbool.h>

#include "plan/matrix.h"
#include "base/util.h"
#include "store/result.h"
#include "store/store.h"

/* Cell c's attempt files that pass the checks, as the scheduler merges them:
 * the standing attempt's result in full into *r and its tag into tag (""
 * and r->status STATUS_NONE when none), and every passing file with its
 * attempt tag and status name. writer: quarantine the files that fail (a
 * writer's store); otherwise only warn about them. *quarantined (may be
 * NULL) counts the files quarantined (or that would be). */
int collect_read(struct store *st, const struct cell *c, bool writer, struct result *r, char tag[128],
                 struct strlist *files, struct strlist *tags, struct strlist *statuses, int *quarantined);

/* Merges cell c's attempt files not merged yet; *merged counts them (0 when
 * there was nothing new), *quarantined the files refused. */
int collect_cell(struct store *st, const struct cell *c, int *merged, int *quarantined);

/* collect_cell() for every cell of plan (run.db's); *files counts the files
 * merged, *cells the cells they changed, *quarantined the files refused. */
int collect_run(struct store *st, const struct matrix *plan, int *files, int *cells, int *quarantined);

#endif /* BENCHGEN_COLLECT_H */
