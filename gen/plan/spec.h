/*
 * spec.h - matrix specs: the YAML file that says what to run (data/matrix/).
 *
 * spec_load() parses with libyaml, checks every key, type and value, and on
 * the first problem returns BG_ESPEC with error_last() set to
 * "FILE:LINE:COL: message" (1-based, pointing at the offending node). Nothing
 * is run from a spec that failed to load. The full list of keys is in the
 * README ("Matrix spec").
 *
 * Ownership: spec_load() gives the caller a struct spec that spec_free()
 * releases with everything it points to.
 */
#ifndef BENCHGEN_SPEC_H
#define BENCHGEN_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "plan/resources.h"

struct spec_backend_res {
    char *backend;
    struct resources res;
};

struct spec_row {
    char *model;          /* catalog model, or any safe name when workload is set */
    char *task;           /* fit | predict | generate */
    int batch;            /* >= 1 */
    int steps;            /* 0: inherit the spec's */
    int warmup;           /* -1: inherit */
    char *precision;      /* NULL: inherit */
    char *workload;       /* absolute path of a user workload (.py), or NULL for built-in */
    char *method;         /* published | corrected, or both ("published corrected"); NULL: inherit */
    char *device;         /* gpu | cpu | auto (plan/device.h); NULL: inherit */
    double timeout;       /* 0: inherit */
    char **backends;      /* NULL: the spec's backends */
    size_t nbackends;
    struct resources resources; /* cluster resources of the row's cells (plan/resources.h) */
    int line, col;        /* where the row starts, for later messages */
};

struct spec {
    char *path;           /* as given on the command line */
    char *name;           /* run name: [A-Za-z0-9._+-]+ */
    char *description;    /* may be NULL */
    char *size;           /* tiny | published */
    char *precision;      /* float32 | bfloat16 | mixed_bfloat16 | float16 */
    int steps;            /* timed steps per cell, default 100 */
    int warmup;           /* untimed steps before them, default 1 */
    int repeats;          /* processes per cell, default 1 */
    int repeats_given;    /* 1 when the spec has a repeats: key */
    int ab_first, ab_cap; /* run --ab, sequential: first batch and cap a side; 0 when not given */
    double ab_effect;     /* ... the smallest change of interest (fraction); 0 when not given */
    uint64_t seed;        /* default 0 */
    double timeout;       /* seconds per cell, default 600 */
    uint64_t memory_limit;/* bytes per cell; 0 = 80% of physical memory */
    uint64_t log_limit;   /* bytes of cell log kept (head + tail); 0 = 64 MiB */
    char **backends;      /* required, non-empty, no duplicates */
    size_t nbackends;
    struct kvlist warmup_by_backend; /* backend -> warm-up steps (decimal text) */
    struct kvlist env_by_backend;    /* backend -> Python environment name */
    struct resources resources;      /* spec-wide cluster resources (`resources:`) */
    struct spec_backend_res *res_by_backend; /* per backend (`resources: {<backend>: {...}}`) */
    size_t nres_by_backend;
    char *method;         /* published | corrected, default corrected (docs/METHOD.md); or both, in
                           * run order, separated by a space ("published corrected"): every cell
                           * then runs under each method */
    struct kvlist method_by_backend; /* backend -> a method value as above */
    char *device;         /* gpu | cpu | auto, default auto (plan/device.h) */
    struct kvlist device_by_backend; /* backend -> a device value */
    struct spec_row *rows;
    size_t nrows;
    char *text;           /* the file's bytes, stored in run.db */
    char sha256[65];      /* of text */
};

/* The bounds of a spec (docs/SPEC.md, "Limits"): its size in bytes, how
 * deep its maps and lists nest, and how many YAML nodes (scalars, maps,
 * lists) it holds. A real spec is a few KiB, 4 levels deep. */
#define SPEC_MAX_BYTES (16u << 20)
#define SPEC_MAX_DEPTH 64
#define SPEC_MAX_NODES 100000

/* Parses and validates path. 0, BG_ESPEC (message "file:line:col: ..."),
 * BG_ENOTFOUND, BG_EUSAGE for a path that is not a regular file or is over
 * SPEC_MAX_BYTES ("file: message"), or BG_ENOMEM. *out is NULL on failure. */
int spec_load(struct spec **out, const char *path);

/* Same, from memory; path is only used in messages and to resolve relative
 * workload paths (against its directory). */
int spec_parse(struct spec **out, const char *path, const char *text, size_t len);

void spec_free(struct spec *spec);

/* Parses "8GiB", "512MiB", "2GB", "1000000" into bytes; -1 on error. */
int64_t spec_parse_bytes(const char *s);

#endif /* BENCHGEN_SPEC_H */
