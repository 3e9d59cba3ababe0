/*
 * spec_node.h - the YAML node checks the spec parser is built from (used by
 * spec.c only): typed scalars (integers, seconds, strings, one-of enums,
 * safe names), maps with known keys, and "FILE:LINE:COL: message" errors
 * that point at the offending node.
 *
 * Scalars are typed by their text, not by tags: an integer field takes a
 * plain (unquoted) decimal integer only, so "1.5", "true", "0x10" and "'3'"
 * are all rejected rather than coerced. Every node_get_* returns 0 or
 * BG_ESPEC/BG_ENOMEM with error_last() set.
 */
#ifndef BENCHGEN_SPEC_NODE_H
#define BENCHGEN_SPEC_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

struct spec; /* plan/spec.h; only spec.c looks inside */

/* One parse: the document and the spec being filled. */
struct spec_ctx {
    const char *path;
    const char *text;
    size_t len;
    yaml_document_t *doc;
    struct spec *spec;
    char *dir; /* where relative workload paths start */
};

/* A key and its value in a map with known keys. */
struct node_field {
    yaml_node_t *key, *value;
};

/* Sets "path:line:col: message" (0-based line0/col0) and returns BG_ESPEC. */
int node_fail_at(const struct spec_ctx *c, size_t line0, size_t col0, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define FAIL(c, node, ...) node_fail_at((c), (node)->start_mark.line, (node)->start_mark.column, __VA_ARGS__)

/* A libyaml parser error as a spec error at its own position. */
int node_syntax_error(const struct spec_ctx *c, const yaml_parser_t *p);

/* The text of a scalar node, or NULL. */
const char *node_scalar(const yaml_node_t *n);

/* How a node looks in a message: 'text' (cut short) for scalars, else its
 * kind. For type errors a quoted scalar says so. */
const char *node_describe(const yaml_node_t *n, char buf[96], bool type_error);

/* "a, b, c" from the first n names, or up to a NULL entry. */
const char *node_join(char *buf, size_t cap, const char *const *names, size_t n);

bool node_is_null(const yaml_node_t *n);

int node_get_int(const struct spec_ctx *c, const char *key, const yaml_node_t *n, int min, int *out);
int node_get_u64(const struct spec_ctx *c, const char *key, const yaml_node_t *n, uint64_t *out);
/* A positive number of seconds. */
int node_get_seconds(const struct spec_ctx *c, const char *key, const yaml_node_t *n, double *out);
/* Replaces *out with a copy of the scalar. */
int node_get_string(const struct spec_ctx *c, const char *key, const yaml_node_t *n, char **out);
/* One of the NULL-terminated allowed values. */
int node_get_enum(const struct spec_ctx *c, const char *key, const yaml_node_t *n, const char *const *allowed,
                  char **out);
/* Letters, digits and . _ + - only. */
int node_get_safe_name(const struct spec_ctx *c, const char *key, const yaml_node_t *n, char **out);

/* Files every pair of map under the allowed key it names (fields indexed like
 * allowed); rejects keys that are not scalars, unknown keys and keys given
 * twice. */
int node_map_collect(const struct spec_ctx *c, const yaml_node_t *map, const char *what,
                     const char *const *allowed, struct node_field *fields);

/* The first of required[] (indexes into names/fields) that is missing. */
int node_require(const struct spec_ctx *c, const yaml_node_t *map, const char *what, const char *const *names,
                 const struct node_field *fields, const int *required, size_t nrequired);

/* For maps whose keys are data (warmup, envs): 0, or a spec error naming the
 * earlier pair when one has the same key. */
int node_unique_key(const struct spec_ctx *c, const yaml_node_t *map, const yaml_node_pair_t *pair);

/* A key given once for every backend or as {default: V, <backend>: V, ...}
 * (warmup, method, device): walks the map, refusing a key that is neither
 * `default` nor a backend of the catalog and a key given twice, and calls
 * value(c, "WHAT.KEY", v, backend, arg) for each pair, backend NULL for
 * `default`. */
typedef int (*node_backend_value_fn)(const struct spec_ctx *c, const char *key, const yaml_node_t *v,
                                     const char *backend, void *arg);
int node_each_backend(const struct spec_ctx *c, const char *what, const yaml_node_t *map,
                      node_backend_value_fn value, void *arg);

#endif /* BENCHGEN_SPEC_NODE_H */
