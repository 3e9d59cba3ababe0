/*
 * resources.h - what a cell asks of a cluster scheduler: partition, GPUs,
 * CPUs, memory, time limit. The spec gives them spec-wide, per backend and
 * per row (`resources:`, docs/SPEC.md); a cell gets the row's, then its
 * backend's, then the spec-wide ones, each field on its own; the Slurm
 * executor fills what is still unset from the command line
 * (--partition, --gpus-per-cell, ...). Local executors ignore them.
 *
 * A zeroed struct resources is "nothing set". Ownership: it owns its
 * strings (resources_free()).
 */
#ifndef BENCHGEN_RESOURCES_H
#define BENCHGEN_RESOURCES_H

#include <stdbool.h>

struct spec_ctx;   /* plan/spec_node.h */
struct yaml_node_s; /* yaml_node_t */

struct resources {
    char *partition; /* NULL: unset */
    int gpus;        /* 0: unset; RESOURCES_NO_GPU: `gpus: 0`, none */
    int cpus;        /* 0: unset */
    char *mem;       /* "64G"; NULL: unset */
    char *time;      /* Slurm time limit "2:00:00"; NULL: unset */
};

#define RESOURCES_NO_GPU (-1)
#define RESOURCES_UNSET {0}

/* Keys of a resources map, NULL-terminated. */
extern const char *const resources_keys[];

/* true when name is one of resources_keys. */
bool resources_is_key(const char *name);

/* NULL when value is valid for the text field key (partition, mem, time),
 * else why not ("is not a Slurm memory size (e.g. 64G, 512M)"): the one
 * check for the spec's values and the command line's (--partition, --mem,
 * --time). Static text. */
const char *resources_check(const char *key, const char *value);

/* Sets one field from a YAML value: key is a resources_keys entry, what
 * names the place for messages ("resources.mem", "rows[3].resources.gpus"). */
int resources_set(const struct spec_ctx *c, struct resources *r, const char *key, const char *what,
                  const struct yaml_node_s *v);

/* Parses a map {partition: P, gpus: N, ...} into r. */
int resources_parse(const struct spec_ctx *c, const struct yaml_node_s *map, const char *what, struct resources *r);

/* Fields set in over replace those of *into (deep copies). */
int resources_overlay(struct resources *into, const struct resources *over);

bool resources_equal(const struct resources *a, const struct resources *b);

void resources_free(struct resources *r);

#endif /* BENCHGEN_RESOURCES_H */
