/*
 * store_record.h - writing a finished cell into run.db, in exactly one
 * transaction (store.h's durability rule): the cell row's result columns,
 * its samples, markers, facts, environment and telemetry; and merging the
 * attempt files of cells that ran elsewhere (run/cellfile.h).
 */
#ifndef BENCHGEN_STORE_RECORD_H
#define BENCHGEN_STORE_RECORD_H

#include <stddef.h>

#include "plan/matrix.h"
#include "store/result.h"
#include "store/store.h"

/* Records a finished cell in one transaction (replacing any earlier attempt
 * of the same cell: its samples, markers, facts and environment). BG_EDB for
 * a result without a final status, a cell not in the plan, or a read-only
 * store. */
int store_record(struct store *s, const struct cell *c, const struct result *r, const char *log_path);

/* Merges a result that came back through attempt files (run/cellfile.h):
 * files[i] is a file name, tags[i] the attempt it belongs to, statuses[i]
 * its status name. In one transaction, the files not merged before are noted
 * and, if there was any, the cell gets result r (the newest attempt's) and
 * attempts grows by the number of attempts (tags) not seen before. Merging
 * the same files again changes nothing (*merged = 0), so a crashed or
 * repeated collect is harmless. */
int store_merge(struct store *s, const struct cell *c, const struct result *r, const char *log_path,
                const char *const *files, const char *const *tags, const char *const *statuses, size_t n,
                int *merged);

#endif /* BENCHGEN_STORE_RECORD_H */
