/*
 * runinputs.h - the files a run depends on beyond benchgen itself, as run.db
 * records them when the run is created: the spec, each custom workload and
 * the local modules it imports from its folder, the lock of each Python
 * environment the plan uses, or the package list of a registered
 * interpreter. Each is kept with its SHA-256, its size and (up to
 * RUNINPUT_MAX_CONTENT bytes) its bytes, so a bundle carries the files the
 * run started with, not the ones on disk when it is bundled.
 *
 * run.db table (added after schema_version 1 without changing it, like
 * telemetry: created with the plan, so a run made before it has none and
 * readers find an empty list):
 *   inputs(path TEXT PRIMARY KEY, kind TEXT NOT NULL, origin TEXT,
 *          sha256 TEXT NOT NULL, size INTEGER NOT NULL, content BLOB)
 * path is where the file goes in a bundle (inputs/... for the spec,
 * workloads and modules, envs/recorded/... for locks and package lists;
 * run/depends.h); kind is spec, workload, module, lock or packages; origin
 * is where it was read (a path on the machine that ran).
 *
 * Ownership: a struct run_inputs owns every string and buffer in it;
 * run_inputs_free() releases them.
 */
#ifndef BENCHGEN_RUNINPUTS_H
#define BENCHGEN_RUNINPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RUNINPUT_MAX_CONTENT (16u << 20) /* a larger file keeps its hash only */

struct run_input {
    char *path;             /* in a bundle: "inputs/my.yaml", "inputs/w/model.py", "envs/recorded/base.txt" */
    char *kind;             /* spec, workload, module, lock, packages */
    char *origin;           /* where it was read; may be NULL */
    char sha256[65];        /* as recorded: of the file's bytes when the run was created */
    uint64_t size;          /* as recorded */
    unsigned char *content; /* its bytes; NULL when over RUNINPUT_MAX_CONTENT */
    size_t len;             /* of content (read back from run.db: what it holds, whatever sha256 says) */
};

struct run_inputs {
    struct run_input *v;
    size_t n;
};

/* Adds data (len bytes) as path, hashing it; a path already there is kept
 * (0, nothing added). */
int run_inputs_add(struct run_inputs *l, const char *path, const char *kind, const char *origin,
                   const void *data, size_t len);

/* Adds a hash without content (a file over RUNINPUT_MAX_CONTENT). */
int run_inputs_add_hash(struct run_inputs *l, const char *path, const char *kind, const char *origin,
                        const char sha256[65], uint64_t size);

/* By path, borrowed; NULL when absent. */
const struct run_input *run_inputs_find(const struct run_inputs *l, const char *path);

/* Sorts by path (the order run.db and bundles list them). */
void run_inputs_sort(struct run_inputs *l);

void run_inputs_free(struct run_inputs *l);

#endif /* BENCHGEN_RUNINPUTS_H */
