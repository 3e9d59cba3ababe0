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

/* The attempts the submitting side issued (run/cellkey.h), in run.db's
 * `issued` table: seq counts a cell's issues from 1 in the order they were
 * made, which is the order its results merge in (never a time a result file
 * states). tag is an attempt's exact tag ("l<ns>.<slot>") or, for a Slurm
 * submission, the prefix its tasks' tags start with ("s<job>_<id>."); pub
 * the public key (hex) its results are signed with. */
struct store_issued {
    int seq;
    char *tag;
    char *pub;
};
struct store_issued_list {
    struct store_issued *v;
    size_t n;
};

/* Records an issued attempt of cell_id (a writer's store). */
int store_issue(struct store *s, int cell_id, const char *tag, const char *pub);

/* The attempts issued for cell_id, by seq; none (not an error) in runs
 * stored before attempts were issued. Works on a read-only store. */
int store_issued(struct store *s, int cell_id, struct store_issued_list *out);
void store_issued_free(struct store_issued_list *l);

/* The result files of cell_id merged so far (their names under
 * cells/<id>/), appended to out; none in runs whose cells never ran
 * elsewhere. Works on a read-only store. */
int store_merged_files(struct store *s, int cell_id, struct strlist *out);

/* Notes a result file that merging refused (run.db's `quarantine` table):
 * its name as it was under cells/<id>/, where it is kept now, and why. */
int store_quarantine(struct store *s, int cell_id, const char *file, const char *kept_as, const char *reason);

#endif /* BENCHGEN_STORE_RECORD_H */
