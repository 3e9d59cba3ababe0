/*
 * cellcheck.h - whether a result file could have come from the plan: the
 * checks every attempt file (run/cellfile.h) passes before it is merged into
 * run.db (run/collect.h), against the plan as run.db stores it and the
 * attempts run.db says were issued (store/store_record.h). Never against
 * cells/plan.json or anything else a cell can write.
 *
 * A cell's own result must be signed with the key issued for its attempt
 * (run/cellkey.h), name that attempt's cell and tag, say it ran with the
 * plan's settings, and hold what the worker could have produced: a final
 * status; exactly warm-up + steps samples for `ok`, no more than those
 * (warm-up first) otherwise and none for unsupported/skipped; each sample a
 * positive integer no longer than the cell's timeout, all of them together
 * no longer either; detail, markers, facts and environment no larger than
 * the worker channel lets through (runners/channel.h). A verdict (written by
 * the submitting side on a Slurm task that left no final result) is not
 * signed and may only say the cell failed: a failing status, no samples,
 * no markers, no facts.
 */
#ifndef BENCHGEN_CELLCHECK_H
#define BENCHGEN_CELLCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "plan/matrix.h"
#include "store/result.h"
#include "store/store_record.h"

/* The format of a result file this benchgen writes and merges. */
#define CELLCHECK_FORMAT "benchgen-attempt/2"

/* Name/value pairs per list (markers, facts, environment) and telemetry
 * points per result. */
#define CELLCHECK_MAX_PAIRS 10000
#define CELLCHECK_MAX_POINTS 1000000

/* One result file that passed. */
struct cellcheck_attempt {
    char *tag;
    bool verdict;
    int seq;      /* the issue it belongs to (store_issued) */
    long restart; /* Slurm's restart count; 0 for a local attempt, -1 for a verdict on a forgotten task */
    struct result r;
};

/* Checks doc, read from cells/<c->id>/name, for plan cell c (as run.db holds
 * it) against the attempts issued for it. 0 and *out filled, or 1 with the
 * reason in why (the file is to be quarantined). */
int cellcheck_attempt(const json_t *doc, const char *name, const struct cell *c,
                      const struct store_issued_list *issued, struct cellcheck_attempt *out, char *why,
                      size_t nwhy);

void cellcheck_attempt_free(struct cellcheck_attempt *a);

/* The text a result file's signature covers: doc without its "signature",
 * compact with sorted keys; malloc'd, NULL when jansson cannot dump it. */
char *cellcheck_signed_text(const json_t *doc);

/* The plan settings a cell ran with, as its result file states them. */
json_t *cellcheck_plan_json(const struct cell *c);

#endif /* BENCHGEN_CELLCHECK_H */
