/*
 * spec.c - loads and validates a matrix spec (see spec.h, docs/SPEC.md).
 *
 * Two passes over the text with libyaml: the event parser first, because it
 * reports syntax errors and aliases at their own position (the document API
 * resolves an alias to the node it names and forgets where the alias was),
 * then the document API, which gives every node its start mark so each check
 * can point at the exact key or value it rejects. Validation stops at the
 * first problem; a spec is all right or not loaded at all.
 *
 * Scalars are typed by their text, not by tags: an integer field takes a
 * plain (unquoted) decimal integer only, so "1.5", "true", "0x10" and "'3'"
 * are all rejected rather than coerced.
 */
#include "plan/spec.h"
#include "plan/catalog.h"
#include "base/error.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

static const char *const sizes[] = {"tiny", "published", NULL};
static const char *const precisions[] = {"float32", "bfloat16", "mixed_bfloat16", "float16", NULL};

static const char *const top_keys[] = {"name",    "description",  "size",    "precision", "steps",
                                       "warmup",  "seed",         "timeout", "memory_limit",
                                       "repeats", "backends",     "envs",    "rows",      NULL};
enum {
    K_NAME, K_DESCRIPTION, K_SIZE, K_PRECISION, K_STEPS, K_WARMUP, K_SEED, K_TIMEOUT,
    K_MEMORY_LIMIT, K_REPEATS, K_BACKENDS, K_ENVS, K_ROWS, K_NTOP
};

static const char *const row_keys[] = {"model",     "task",    "batch",    "steps",    "warmup",
                                       "precision", "timeout", "backends", "workload", NULL};
enum { R_MODEL, R_TASK, R_BATCH, R_STEPS, R_WARMUP, R_PRECISION, R_TIMEOUT, R_BACKENDS, R_WORKLOAD, R_NROW };

struct ctx {
    const char *path;
    const char *text;
    size_t len;
    yaml_document_t *doc;
    struct spec *spec;
    char *dir; /* where relative workload paths start */
};

/* ---- messages ------------------------------------------------------------ */

static int fail_at(const struct ctx *c, size_t line0, size_t col0, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail_at(const struct ctx *c, size_t line0, size_t col0, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return error_set(BG_ESPEC, "%s:%zu:%zu: %s", c->path, line0 + 1, col0 + 1, msg);
}

#define FAIL(c, node, ...) fail_at((c), (node)->start_mark.line, (node)->start_mark.column, __VA_ARGS__)

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* How a node looks in a message: 'text' (cut short) for scalars, else its
 * kind. For type errors a quoted scalar says so: "10" is why an integer
 * field refused what looks like 10. */
static const char *describe(const yaml_node_t *n, char buf[96], bool type_error)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    if (n->type == YAML_MAPPING_NODE)
        return "a map";
    const char *s = scalar(n);
    size_t len = n->data.scalar.length;
    char shown[64];
    size_t k = 0;
    for (size_t i = 0; i < len && k < 48; i++)
        shown[k++] = (s[i] == '\n' || s[i] == '\t') ? ' ' : s[i];
    shown[k] = '\0';
    if (!type_error || n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        snprintf(buf, 96, "'%s%s'", shown, k < len ? "..." : "");
    else
        snprintf(buf, 96, "the quoted string \"%s%s\"", shown, k < len ? "..." : "");
    return buf;
}

/* "a, b, c" from the first n names, or up to a NULL entry. */
static const char *join(char *buf, size_t cap, const char *const *names, size_t n)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && names[i]; i++)
        off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "%s%s", i ? ", " : "", names[i]);
    return buf;
}

/* libyaml counts lines and columns itself, except for reader (encoding)
 * errors, which only give a byte offset. */
static void offset_to_mark(const char *text, size_t len, size_t off, size_t *line, size_t *col)
{
    *line = *col = 0;
    for (size_t i = 0; i < off && i < len; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 0;
        } else {
            (*col)++;
        }
    }
}

static int syntax_error(const struct ctx *c, const yaml_parser_t *p)
{
    if (p->error == YAML_MEMORY_ERROR)
        return error_set(BG_ENOMEM, "out of memory");
    size_t line = p->problem_mark.line, col = p->problem_mark.column;
    if (p->error == YAML_READER_ERROR)
        offset_to_mark(c->text, c->len, p->problem_offset, &line, &col);
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->context)
        return fail_at(c, line, col, "YAML syntax error: %s (%s at line %zu, column %zu)", problem,
                       p->context, p->context_mark.line + 1, p->context_mark.column + 1);
    return fail_at(c, line, col, "YAML syntax error: %s", problem);
}

/* ---- scalars ------------------------------------------------------------- */

static bool is_plain(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* YAML 1.2 core-schema decimal integer: [-+]?[0-9]+ */
static bool looks_int(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* [-+]?(digits[.digits*] | .digits)([eE][-+]?digits)? - no inf, nan or hex. */
static bool looks_number(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    size_t digits = 0;
    while (*s >= '0' && *s <= '9')
        s++, digits++;
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9')
            s++, digits++;
    }
    if (!digits)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        if (*s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

static bool is_null(const yaml_node_t *n)
{
    const char *s = scalar(n);
    return is_plain(n) && (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
                           strcmp(s, "NULL") == 0);
}

static int get_int(const struct ctx *c, const char *key, const yaml_node_t *n, int min, int *out)
{
    char buf[96];
    const char *s = scalar(n);
    if (!s || !is_plain(n) || !looks_int(s))
        return FAIL(c, n, "%s: expected an integer, got %s", key, describe(n, buf, true));
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
        return FAIL(c, n, "%s: %s is out of range", key, s);
    if (v < min)
        return FAIL(c, n, "%s: must be >= %d, got %lld", key, min, v);
    *out = (int)v;
    return 0;
}

static int get_u64(const struct ctx *c, const char *key, const yaml_node_t *n, uint64_t *out)
{
    char buf[96];
    const char *s = scalar(n);
    if (!s || !is_plain(n) || !looks_int(s))
        return FAIL(c, n, "%s: expected an integer, got %s", key, describe(n, buf, true));
    if (*s == '-') {
        bool zero = strspn(s + 1, "0") == strlen(s + 1);
        if (!zero)
            return FAIL(c, n, "%s: must be >= 0, got %s", key, s);
    }
    errno = 0;
    unsigned long long v = strtoull(*s == '-' ? "0" : s, NULL, 10);
    if (errno == ERANGE)
        return FAIL(c, n, "%s: %s is out of range (largest is %llu)", key, s, (unsigned long long)UINT64_MAX);
    *out = (uint64_t)v;
    return 0;
}

/* A positive number of seconds. */
static int get_seconds(const struct ctx *c, const char *key, const yaml_node_t *n, double *out)
{
    char buf[96];
    const char *s = scalar(n);
    if (!s || !is_plain(n) || !looks_number(s))
        return FAIL(c, n, "%s: expected a number of seconds, got %s", key, describe(n, buf, true));
    double v = strtod(s, NULL);
    if (!isfinite(v))
        return FAIL(c, n, "%s: %s is out of range", key, s);
    if (v <= 0)
        return FAIL(c, n, "%s: must be > 0, got %s", key, s);
    *out = v;
    return 0;
}

static int get_string(const struct ctx *c, const char *key, const yaml_node_t *n, char **out)
{
    char buf[96];
    if (n->type != YAML_SCALAR_NODE || is_null(n))
        return FAIL(c, n, "%s: expected a string, got %s", key,
                    is_null(n) ? "nothing" : describe(n, buf, true));
    char *s = strdup(scalar(n));
    if (!s)
        return error_set(BG_ENOMEM, "out of memory");
    free(*out);
    *out = s;
    return 0;
}

static int get_enum(const struct ctx *c, const char *key, const yaml_node_t *n, const char *const *allowed,
                    char **out)
{
    char buf[96], list[256];
    const char *s = scalar(n);
    if (s && !is_null(n))
        for (size_t i = 0; allowed[i]; i++)
            if (strcmp(s, allowed[i]) == 0)
                return get_string(c, key, n, out);
    return FAIL(c, n, "%s: expected one of %s, got %s", key, join(list, sizeof(list), allowed, SIZE_MAX),
                is_null(n) ? "nothing" : describe(n, buf, false));
}

static int get_safe_name(const struct ctx *c, const char *key, const yaml_node_t *n, char **out)
{
    int err = get_string(c, key, n, out);
    if (err < 0)
        return err;
    if (!util_is_safe_name(*out)) {
        char buf[96];
        return FAIL(c, n, "%s: %s is not a valid name (letters, digits and . _ + - only)", key,
                    describe(n, buf, false));
    }
    return 0;
}

/* ---- maps ---------------------------------------------------------------- */

struct field {
    yaml_node_t *key, *value;
};

/* Files every pair of map under the allowed key it names; rejects keys that
 * are not scalars, unknown keys and keys given twice. */
static int map_collect(const struct ctx *c, const yaml_node_t *map, const char *what,
                       const char *const *allowed, struct field *fields)
{
    char buf[96], list[512];
    for (size_t i = 0; allowed[i]; i++)
        fields[i].key = fields[i].value = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        const char *name = scalar(k);
        if (!name)
            return FAIL(c, k, "%s: keys must be plain names, got %s", what, describe(k, buf, false));
        size_t i = 0;
        while (allowed[i] && strcmp(allowed[i], name) != 0)
            i++;
        if (!allowed[i])
            return FAIL(c, k, "unknown key '%s' in %s (allowed: %s)", name, what,
                        join(list, sizeof(list), allowed, SIZE_MAX));
        if (fields[i].key)
            return FAIL(c, k, "duplicate key '%s' (first at line %zu, column %zu)", name,
                        fields[i].key->start_mark.line + 1, fields[i].key->start_mark.column + 1);
        fields[i].key = k;
        fields[i].value = v;
    }
    return 0;
}

static int require(const struct ctx *c, const yaml_node_t *map, const char *what, const char *const *names,
                   const struct field *fields, const int *required, size_t nrequired)
{
    for (size_t i = 0; i < nrequired; i++)
        if (!fields[required[i]].key)
            return FAIL(c, map, "%s: missing required key '%s'", what, names[required[i]]);
    return 0;
}

/* For maps whose keys are data (warmup, envs): an earlier pair with the same key. */
static const yaml_node_t *earlier_key(const struct ctx *c, const yaml_node_t *map,
                                      const yaml_node_pair_t *pair)
{
    const char *name = scalar(yaml_document_get_node(c->doc, pair->key));
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < pair; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        if (scalar(k) && name && strcmp(scalar(k), name) == 0)
            return k;
    }
    return NULL;
}

/* ---- backends ------------------------------------------------------------ */

static bool in_list(char **list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

static int backend_known(const struct ctx *c, const char *key, const yaml_node_t *n)
{
    char buf[96];
    const char *s = scalar(n);
    if (!s || !catalog_backend_find(s))
        return FAIL(c, n, "%s: unknown backend %s (backends: %s)", key, describe(n, buf, false),
                    catalog_backend_names());
    return 0;
}

/* A non-empty list of known backends without repeats; with within, each must
 * also be one of within (a row's backends against the spec's). */
static int get_backends(const struct ctx *c, const char *key, const yaml_node_t *seq, char ***out,
                        size_t *nout, char **within, size_t nwithin)
{
    char buf[96];
    if (seq->type != YAML_SEQUENCE_NODE)
        return FAIL(c, seq, "%s: expected a list of backends, got %s", key, describe(seq, buf, true));
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n == 0)
        return FAIL(c, seq, "%s: must list at least one backend (backends: %s)", key,
                    catalog_backend_names());
    char **list = calloc(n, sizeof(*list));
    if (!list)
        return error_set(BG_ENOMEM, "out of memory");
    size_t got = 0;
    int err = 0;
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node(c->doc, *it);
        if ((err = backend_known(c, key, item)) < 0)
            goto done;
        const char *name = scalar(item);
        if (within && !in_list(within, nwithin, name)) {
            char spec_list[512];
            join(spec_list, sizeof(spec_list), (const char *const *)within, nwithin);
            err = FAIL(c, item, "%s: backend '%s' is not in the spec's backends (%s)", key, name, spec_list);
            goto done;
        }
        for (yaml_node_item_t *prev = seq->data.sequence.items.start; prev < it; prev++) {
            yaml_node_t *p = yaml_document_get_node(c->doc, *prev);
            if (strcmp(scalar(p), name) == 0) {
                err = FAIL(c, item, "%s: duplicate backend '%s' (first at line %zu, column %zu)", key, name,
                           p->start_mark.line + 1, p->start_mark.column + 1);
                goto done;
            }
        }
        if (!(list[got] = strdup(name))) {
            err = error_set(BG_ENOMEM, "out of memory");
            goto done;
        }
        got++;
    }
done:
    if (err < 0) {
        for (size_t i = 0; i < got; i++)
            free(list[i]);
        free(list);
        return err;
    }
    *out = list;
    *nout = n;
    return 0;
}

/* warmup: N, or {default: N, <backend>: N, ...} */
static int get_warmup(const struct ctx *c, const yaml_node_t *n)
{
    char buf[96], list[512];
    struct spec *spec = c->spec;
    if (n->type == YAML_SCALAR_NODE)
        return get_int(c, "warmup", n, 0, &spec->warmup);
    if (n->type != YAML_MAPPING_NODE)
        return FAIL(c, n, "warmup: expected an integer or a map {default: N, <backend>: N}, got %s",
                    describe(n, buf, true));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        const char *name = scalar(k);
        const yaml_node_t *dup;
        int w = 0, err;
        if (!name || (strcmp(name, "default") != 0 && !catalog_backend_find(name)))
            return FAIL(c, k, "warmup: unknown key %s (allowed: default, %s)", describe(k, buf, false),
                        catalog_backend_names());
        if ((dup = earlier_key(c, n, p)))
            return FAIL(c, k, "duplicate key '%s' (first at line %zu, column %zu)", name,
                        dup->start_mark.line + 1, dup->start_mark.column + 1);
        snprintf(list, sizeof(list), "warmup.%s", name);
        if ((err = get_int(c, list, v, 0, &w)) < 0)
            return err;
        if (strcmp(name, "default") == 0)
            spec->warmup = w;
        else if ((err = kvlist_addf(&spec->warmup_by_backend, name, "%d", w)) < 0)
            return err;
    }
    return 0;
}

/* envs: {<backend>: <environment name>, ...} */
static int get_envs(const struct ctx *c, const yaml_node_t *n)
{
    char buf[96], key[128];
    if (n->type != YAML_MAPPING_NODE)
        return FAIL(c, n, "envs: expected a map {<backend>: <environment>}, got %s",
                    describe(n, buf, true));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        const yaml_node_t *dup;
        char *env = NULL;
        int err;
        if ((err = backend_known(c, "envs", k)) < 0)
            return err;
        if ((dup = earlier_key(c, n, p)))
            return FAIL(c, k, "duplicate key '%s' (first at line %zu, column %zu)", scalar(k),
                        dup->start_mark.line + 1, dup->start_mark.column + 1);
        snprintf(key, sizeof(key), "envs.%s", scalar(k));
        err = get_safe_name(c, key, v, &env);
        if (err == 0)
            err = kvlist_add(&c->spec->env_by_backend, scalar(k), env);
        free(env);
        if (err < 0)
            return err;
    }
    return 0;
}

/* ---- rows ---------------------------------------------------------------- */

static void task_list(unsigned bits, char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; catalog_task_at(i); i++)
        if (bits & catalog_task_bit(catalog_task_at(i)))
            off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "%s%s", off ? ", " : "",
                                    catalog_task_at(i));
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int get_workload(const struct ctx *c, const yaml_node_t *n, char **out)
{
    char *given = NULL, *joined = NULL;
    int err = get_string(c, "workload", n, &given);
    if (err < 0)
        return err;
    if (!ends_with(given, ".py") || strlen(given) == 3) {
        err = FAIL(c, n, "workload: expected a Python file (*.py), got '%s'", given);
        goto done;
    }
    joined = given[0] == '/' ? strdup(given) : util_printf("%s/%s", c->dir, given);
    if (!joined) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (!util_is_file(joined)) {
        err = FAIL(c, n, "workload: no such file: %s", joined);
        goto done;
    }
    if (!(*out = realpath(joined, NULL)))
        err = FAIL(c, n, "workload: %s: %s", joined, strerror(errno));
done:
    free(given);
    free(joined);
    return err;
}

static int parse_row(const struct ctx *c, const yaml_node_t *map, struct spec_row *row)
{
    static const int required[] = {R_MODEL, R_TASK, R_BATCH};
    struct field f[R_NROW];
    char buf[96], list[256];
    struct spec *spec = c->spec;
    int err;

    row->warmup = -1;
    row->line = (int)map->start_mark.line + 1;
    row->col = (int)map->start_mark.column + 1;
    if (map->type != YAML_MAPPING_NODE)
        return FAIL(c, map, "rows: each row must be a map like {model: bert, task: fit, batch: 8}, got %s",
                    describe(map, buf, true));
    if ((err = map_collect(c, map, "a row", row_keys, f)) < 0 ||
        (err = require(c, map, "row", row_keys, f, required, 3)) < 0)
        return err;

    if ((err = get_string(c, "model", f[R_MODEL].value, &row->model)) < 0 ||
        (err = get_string(c, "task", f[R_TASK].value, &row->task)) < 0 ||
        (err = get_int(c, "batch", f[R_BATCH].value, 1, &row->batch)) < 0)
        return err;
    if (f[R_STEPS].key && (err = get_int(c, "steps", f[R_STEPS].value, 1, &row->steps)) < 0)
        return err;
    if (f[R_WARMUP].key && (err = get_int(c, "warmup", f[R_WARMUP].value, 0, &row->warmup)) < 0)
        return err;
    if (f[R_PRECISION].key &&
        (err = get_enum(c, "precision", f[R_PRECISION].value, precisions, &row->precision)) < 0)
        return err;
    if (f[R_TIMEOUT].key && (err = get_seconds(c, "timeout", f[R_TIMEOUT].value, &row->timeout)) < 0)
        return err;
    if (f[R_BACKENDS].key && (err = get_backends(c, "backends", f[R_BACKENDS].value, &row->backends,
                                                 &row->nbackends, spec->backends, spec->nbackends)) < 0)
        return err;
    if (f[R_WORKLOAD].key && (err = get_workload(c, f[R_WORKLOAD].value, &row->workload)) < 0)
        return err;

    unsigned task = catalog_task_bit(row->task);
    if (!task)
        return FAIL(c, f[R_TASK].value, "task: unknown task '%s' (tasks: %s)", row->task,
                    catalog_task_names());
    if (row->workload) {
        if (!util_is_safe_name(row->model))
            return FAIL(c, f[R_MODEL].value,
                        "model: '%s' is not a valid name for a custom workload "
                        "(letters, digits and . _ + - only)",
                        row->model);
    } else {
        const struct catalog_model *m = catalog_model_find(row->model);
        if (!m)
            return FAIL(c, f[R_MODEL].value,
                        "model: unknown model '%s' (models: %s; or give workload: to run your own)",
                        row->model, catalog_model_names());
        if (!(m->tasks & task)) {
            task_list(m->tasks, list, sizeof(list));
            return FAIL(c, f[R_TASK].value, "model %s has no task %s (tasks: %s)", row->model, row->task,
                        list);
        }
    }
    for (size_t i = 0; i < spec->nrows; i++) {
        const struct spec_row *o = &spec->rows[i];
        if (strcmp(o->model, row->model) == 0 && strcmp(o->task, row->task) == 0 && o->batch == row->batch)
            return FAIL(c, map, "duplicate row: same model, task and batch as line %d", o->line);
    }
    return 0;
}

static void row_free(struct spec_row *row)
{
    free(row->model);
    free(row->task);
    free(row->precision);
    free(row->workload);
    for (size_t i = 0; i < row->nbackends; i++)
        free(row->backends[i]);
    free(row->backends);
}

static int get_rows(const struct ctx *c, const yaml_node_t *seq)
{
    char buf[96];
    struct spec *spec = c->spec;
    if (seq->type != YAML_SEQUENCE_NODE)
        return FAIL(c, seq, "rows: expected a list of rows, got %s", describe(seq, buf, true));
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n == 0)
        return FAIL(c, seq, "rows: must list at least one row");
    if (!(spec->rows = calloc(n, sizeof(*spec->rows))))
        return error_set(BG_ENOMEM, "out of memory");
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
        struct spec_row row = {0};
        int err = parse_row(c, yaml_document_get_node(c->doc, *it), &row);
        if (err < 0) {
            row_free(&row);
            return err;
        }
        spec->rows[spec->nrows++] = row;
    }
    return 0;
}

/* ---- the document -------------------------------------------------------- */

static int parse_top(const struct ctx *c, const yaml_node_t *root)
{
    static const int required[] = {K_NAME, K_BACKENDS, K_ROWS};
    struct field f[K_NTOP];
    struct spec *spec = c->spec;
    char buf[96];
    int err;

    if (!root)
        return fail_at(c, 0, 0, "empty spec: expected a map with at least name, backends and rows");
    if (root->type != YAML_MAPPING_NODE)
        return FAIL(c, root, "the spec must be a map with at least name, backends and rows, got %s",
                    describe(root, buf, true));
    if ((err = map_collect(c, root, "the spec", top_keys, f)) < 0 ||
        (err = require(c, root, "spec", top_keys, f, required, 3)) < 0)
        return err;

    if ((err = get_string(c, "name", f[K_NAME].value, &spec->name)) < 0)
        return err;
    if (!util_is_safe_name(spec->name))
        return FAIL(c, f[K_NAME].value,
                    "name: '%s' is not a valid run name (letters, digits and . _ + - only)", spec->name);
    if (f[K_DESCRIPTION].key && !is_null(f[K_DESCRIPTION].value) &&
        (err = get_string(c, "description", f[K_DESCRIPTION].value, &spec->description)) < 0)
        return err;
    if (f[K_SIZE].key && (err = get_enum(c, "size", f[K_SIZE].value, sizes, &spec->size)) < 0)
        return err;
    if (f[K_PRECISION].key &&
        (err = get_enum(c, "precision", f[K_PRECISION].value, precisions, &spec->precision)) < 0)
        return err;
    if (f[K_STEPS].key && (err = get_int(c, "steps", f[K_STEPS].value, 1, &spec->steps)) < 0)
        return err;
    if (f[K_WARMUP].key && (err = get_warmup(c, f[K_WARMUP].value)) < 0)
        return err;
    if (f[K_SEED].key && (err = get_u64(c, "seed", f[K_SEED].value, &spec->seed)) < 0)
        return err;
    if (f[K_TIMEOUT].key && (err = get_seconds(c, "timeout", f[K_TIMEOUT].value, &spec->timeout)) < 0)
        return err;
    if (f[K_MEMORY_LIMIT].key) {
        const yaml_node_t *v = f[K_MEMORY_LIMIT].value;
        int64_t bytes = scalar(v) ? spec_parse_bytes(scalar(v)) : -1;
        if (bytes < 0)
            return FAIL(c, v, "memory_limit: expected bytes like 8GiB, 512MiB, 2GB or 1000000, got %s",
                        describe(v, buf, true));
        spec->memory_limit = (uint64_t)bytes;
    }
    if (f[K_REPEATS].key && (err = get_int(c, "repeats", f[K_REPEATS].value, 1, &spec->repeats)) < 0)
        return err;
    err = get_backends(c, "backends", f[K_BACKENDS].value, &spec->backends, &spec->nbackends, NULL, 0);
    if (err < 0)
        return err;
    if (f[K_ENVS].key && (err = get_envs(c, f[K_ENVS].value)) < 0)
        return err;
    return get_rows(c, f[K_ROWS].value);
}

/* First pass: syntax, aliases, and exactly one document. */
static int prescan(const struct ctx *c)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int err = 0, ndocs = 0;
    if (!yaml_parser_initialize(&parser))
        return error_set(BG_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)c->text, c->len);
    for (;;) {
        if (!yaml_parser_parse(&parser, &ev)) {
            err = syntax_error(c, &parser);
            break;
        }
        yaml_event_type_t type = ev.type;
        if (type == YAML_ALIAS_EVENT)
            err = fail_at(c, ev.start_mark.line, ev.start_mark.column,
                          "aliases (*%s) are not supported: write the value out",
                          (char *)ev.data.alias.anchor);
        else if (type == YAML_DOCUMENT_START_EVENT && ++ndocs > 1)
            err = fail_at(c, ev.start_mark.line, ev.start_mark.column,
                          "a spec is one YAML document, found a second one");
        yaml_event_delete(&ev);
        if (err < 0 || type == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&parser);
    return err;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

int spec_parse(struct spec **out, const char *path, const char *text, size_t len)
{
    struct ctx c = {.path = path ? path : "<spec>", .text = text, .len = len};
    yaml_parser_t parser;
    yaml_document_t doc;
    bool have_parser = false, have_doc = false;
    int err = 0;

    *out = NULL;
    struct spec *spec = calloc(1, sizeof(*spec));
    if (!spec)
        return error_set(BG_ENOMEM, "out of memory");
    c.spec = spec;
    spec->steps = 100;
    spec->warmup = 1;
    spec->repeats = 1;
    spec->timeout = 600;
    spec->path = strdup(c.path);
    spec->size = strdup("tiny");
    spec->precision = strdup("float32");
    spec->text = malloc(len + 1);
    c.dir = dir_of(c.path);
    if (!spec->path || !spec->size || !spec->precision || !spec->text || !c.dir) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    memcpy(spec->text, text, len);
    spec->text[len] = '\0';
    if ((err = sha256_hex(text, len, spec->sha256)) < 0)
        goto done;

    if ((err = prescan(&c)) < 0)
        goto done;
    if (!yaml_parser_initialize(&parser)) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    have_parser = true;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        err = syntax_error(&c, &parser);
        goto done;
    }
    have_doc = true;
    c.doc = &doc;
    err = parse_top(&c, yaml_document_get_root_node(&doc));
done:
    if (have_doc)
        yaml_document_delete(&doc);
    if (have_parser)
        yaml_parser_delete(&parser);
    free(c.dir);
    if (err < 0) {
        spec_free(spec);
        return err;
    }
    *out = spec;
    return 0;
}

int spec_load(struct spec **out, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    int err = util_read_file(path, &text, &len);
    if (err < 0)
        return err;
    err = spec_parse(out, path, text, len);
    free(text);
    return err;
}

void spec_free(struct spec *spec)
{
    if (!spec)
        return;
    free(spec->path);
    free(spec->name);
    free(spec->description);
    free(spec->size);
    free(spec->precision);
    for (size_t i = 0; i < spec->nbackends; i++)
        free(spec->backends[i]);
    free(spec->backends);
    kvlist_free(&spec->warmup_by_backend);
    kvlist_free(&spec->env_by_backend);
    for (size_t i = 0; i < spec->nrows; i++)
        row_free(&spec->rows[i]);
    free(spec->rows);
    free(spec->text);
    free(spec);
}

/* ---- byte sizes ---------------------------------------------------------- */

int64_t spec_parse_bytes(const char *s)
{
    static const struct {
        const char *suffix;
        uint64_t mult;
    } units[] = {
        {"", 1},
        {"B", 1},
        {"KiB", 1ull << 10},
        {"MiB", 1ull << 20},
        {"GiB", 1ull << 30},
        {"TiB", 1ull << 40},
        {"KB", 1000ull},
        {"MB", 1000000ull},
        {"GB", 1000000000ull},
        {"TB", 1000000000000ull},
    };
    if (!s || *s < '0' || *s > '9')
        return -1;
    uint64_t whole = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (whole > (UINT64_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    /* A fraction ("1.5GiB") is kept as text and scaled after the unit is known. */
    const char *frac = NULL;
    size_t nfrac = 0;
    if (*p == '.') {
        frac = ++p;
        while (*p >= '0' && *p <= '9')
            p++, nfrac++;
        if (nfrac == 0)
            return -1;
    }
    if (*p == ' ')
        p++;
    uint64_t mult = 0;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (strcmp(p, units[i].suffix) == 0)
            mult = units[i].mult;
    if (!mult || (p > s && p[-1] == ' ' && !*p))
        return -1;
    if (whole > (uint64_t)INT64_MAX / mult)
        return -1;
    uint64_t bytes = whole * mult;
    if (frac) {
        if (mult == 1)
            return -1; /* a fraction of a byte */
        long double f = 0, scale = 1;
        for (size_t i = 0; i < nfrac && i < 18; i++) {
            scale /= 10;
            f += (frac[i] - '0') * scale;
        }
        uint64_t extra = (uint64_t)(f * (long double)mult);
        if (extra > (uint64_t)INT64_MAX - bytes)
            return -1;
        bytes += extra;
    }
    return (int64_t)bytes;
}
