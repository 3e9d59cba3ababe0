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
 * The typed node checks (integers, strings, enums, maps with known keys)
 * live in spec_node.c.
 */
#include "plan/spec.h"
#include "plan/catalog.h"
#include "plan/device.h"
#include "plan/spec_node.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

static const char *const sizes[] = {"tiny", "published", NULL};
static const char *const precisions[] = {"float32", "bfloat16", "mixed_bfloat16", "float16", NULL};
static const char *const methods[] = {"published", "corrected", NULL};

static const char *const top_keys[] = {"name",    "description",  "size",    "precision", "steps",
                                       "warmup",  "seed",         "timeout", "memory_limit",
                                       "repeats", "backends",     "envs",    "rows",      "log_limit", "resources",
                                       "method",  "device",       "ab_first", "ab_cap",   "ab_effect",
                                       NULL};
enum {
    K_NAME, K_DESCRIPTION, K_SIZE, K_PRECISION, K_STEPS, K_WARMUP, K_SEED, K_TIMEOUT,
    K_MEMORY_LIMIT, K_REPEATS, K_BACKENDS, K_ENVS, K_ROWS, K_LOG_LIMIT, K_RESOURCES, K_METHOD, K_DEVICE,
    K_AB_FIRST, K_AB_CAP, K_AB_EFFECT, K_NTOP
};

static const char *const row_keys[] = {"model",     "task",    "batch",    "steps",    "warmup",
                                       "precision", "timeout", "backends", "workload", "resources",
                                       "method",    "device",  NULL};
enum {
    R_MODEL, R_TASK, R_BATCH, R_STEPS, R_WARMUP, R_PRECISION, R_TIMEOUT, R_BACKENDS, R_WORKLOAD, R_RESOURCES,
    R_METHOD, R_DEVICE, R_NROW
};

/* ---- backends ------------------------------------------------------------ */

static bool in_list(char **list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

static int backend_known(const struct spec_ctx *c, const char *key, const yaml_node_t *n)
{
    char buf[96];
    const char *s = node_scalar(n);
    if (!s || !catalog_backend_find(s))
        return FAIL(c, n, "%s: unknown backend %s (backends: %s)", key, node_describe(n, buf, false),
                    catalog_backend_names());
    return 0;
}

/* A non-empty list of known backends without repeats; with within, each must
 * also be one of within (a row's backends against the spec's). */
static int get_backends(const struct spec_ctx *c, const char *key, const yaml_node_t *seq, char ***out,
                        size_t *nout, char **within, size_t nwithin)
{
    char buf[96];
    if (seq->type != YAML_SEQUENCE_NODE)
        return FAIL(c, seq, "%s: expected a list of backends, got %s", key, node_describe(seq, buf, true));
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n == 0)
        return FAIL(c, seq, "%s: must list at least one backend (backends: %s)", key,
                    catalog_backend_names());
    char **list = xcalloc(n, sizeof(*list));
    size_t got = 0;
    int err = 0;
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node(c->doc, *it);
        if ((err = backend_known(c, key, item)) < 0)
            goto done;
        const char *name = node_scalar(item);
        if (within && !in_list(within, nwithin, name)) {
            char spec_list[512];
            node_join(spec_list, sizeof(spec_list), (const char *const *)within, nwithin);
            err = FAIL(c, item, "%s: backend '%s' is not in the spec's backends (%s)", key, name, spec_list);
            goto done;
        }
        for (yaml_node_item_t *prev = seq->data.sequence.items.start; prev < it; prev++) {
            yaml_node_t *p = yaml_document_get_node(c->doc, *prev);
            if (strcmp(node_scalar(p), name) == 0) {
                err = FAIL(c, item, "%s: duplicate backend '%s' (first at line %zu, column %zu)", key, name,
                           p->start_mark.line + 1, p->start_mark.column + 1);
                goto done;
            }
        }
        list[got++] = xstrdup(name);
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

static int warmup_value(const struct spec_ctx *c, const char *key, const yaml_node_t *v, const char *backend,
                        void *arg)
{
    (void)arg;
    int w = 0, err = node_get_int(c, key, v, 0, &w);
    if (err < 0)
        return err;
    if (!backend)
        c->spec->warmup = w;
    return backend ? kvlist_addf(&c->spec->warmup_by_backend, backend, "%d", w) : 0;
}

/* warmup: N, or {default: N, <backend>: N, ...} */
static int get_warmup(const struct spec_ctx *c, const yaml_node_t *n)
{
    char buf[96];
    if (n->type == YAML_SCALAR_NODE)
        return node_get_int(c, "warmup", n, 0, &c->spec->warmup);
    if (n->type != YAML_MAPPING_NODE)
        return FAIL(c, n, "warmup: expected an integer or a map {default: N, <backend>: N}, got %s",
                    node_describe(n, buf, true));
    return node_each_backend(c, "warmup", n, warmup_value, NULL);
}

/* One method value: published | corrected, or a list of both ([published,
 * corrected]: every cell runs under each, in that order), kept as the
 * methods separated by a space (spec.h). */
static int get_method_value(const struct spec_ctx *c, const char *key, const yaml_node_t *n, char **out)
{
    char buf[96];
    if (n->type != YAML_SEQUENCE_NODE)
        return node_get_enum(c, key, n, methods, out);
    size_t len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len != 2)
        return FAIL(c, n, "%s: a list of methods names both, published and corrected, got %zu item%s", key, len,
                    len == 1 ? "" : "s");
    char *a = NULL, *b = NULL;
    int err = node_get_enum(c, key, yaml_document_get_node(c->doc, n->data.sequence.items.start[0]), methods, &a);
    const yaml_node_t *second = yaml_document_get_node(c->doc, n->data.sequence.items.start[1]);
    if (!err)
        err = node_get_enum(c, key, second, methods, &b);
    if (!err && strcmp(a, b) == 0)
        err = FAIL(c, second, "%s: duplicate method %s", key, node_describe(second, buf, false));
    if (!err) {
        free(*out);
        *out = xprintf("%s %s", a, b);
    }
    free(a);
    free(b);
    return err;
}

static int method_value(const struct spec_ctx *c, const char *key, const yaml_node_t *v, const char *backend,
                        void *arg)
{
    (void)arg;
    if (!backend)
        return get_method_value(c, key, v, &c->spec->method);
    char *m = NULL;
    int err = get_method_value(c, key, v, &m);
    if (err == 0)
        err = kvlist_add(&c->spec->method_by_backend, backend, m);
    free(m);
    return err;
}

/* method: M, or {default: M, <backend>: M, ...}, where M is published,
 * corrected or [published, corrected] */
static int get_method(const struct spec_ctx *c, const yaml_node_t *n)
{
    char buf[96];
    if (n->type == YAML_SCALAR_NODE || n->type == YAML_SEQUENCE_NODE)
        return get_method_value(c, "method", n, &c->spec->method);
    if (n->type != YAML_MAPPING_NODE)
        return FAIL(c, n, "method: expected published, corrected, [published, corrected] or a map "
                          "{default: M, <backend>: M}, got %s",
                    node_describe(n, buf, true));
    return node_each_backend(c, "method", n, method_value, NULL);
}

/* envs: {<backend>: <environment name>, ...} */
static int get_envs(const struct spec_ctx *c, const yaml_node_t *n)
{
    char buf[96], key[128];
    if (n->type != YAML_MAPPING_NODE)
        return FAIL(c, n, "envs: expected a map {<backend>: <environment>}, got %s",
                    node_describe(n, buf, true));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        char *env = NULL;
        int err;
        if ((err = backend_known(c, "envs", k)) < 0)
            return err;
        if ((err = node_unique_key(c, n, p)) < 0)
            return err;
        snprintf(key, sizeof(key), "envs.%s", node_scalar(k));
        err = node_get_safe_name(c, key, v, &env);
        if (err == 0)
            err = kvlist_add(&c->spec->env_by_backend, node_scalar(k), env);
        free(env);
        if (err < 0)
            return err;
    }
    return 0;
}

/* resources: {partition: P, gpus: N, ...}, with {default: {...}, <backend>: {...}}
 * as well (the warmup pattern); plan/resources.h */
static int get_resources(const struct spec_ctx *c, const yaml_node_t *n)
{
    char buf[96], key[128];
    struct spec *spec = c->spec;
    if (n->type != YAML_MAPPING_NODE)
        return FAIL(c, n, "resources: expected a map {partition: P, gpus: N, cpus: N, mem: SIZE, time: LIMIT, "
                          "<backend>: {...}}, got %s",
                    node_describe(n, buf, true));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, p->value);
        const char *name = node_scalar(k);
        int err;
        if ((err = node_unique_key(c, n, p)) < 0)
            return err;
        snprintf(key, sizeof(key), "resources.%s", name ? name : "?");
        if (resources_is_key(name)) {
            err = resources_set(c, &spec->resources, name, key, v);
        } else if (name && strcmp(name, "default") == 0) {
            err = resources_parse(c, v, key, &spec->resources);
        } else {
            if ((err = backend_known(c, "resources", k)) < 0)
                return err;
            struct spec_backend_res *more =
                xrealloc(spec->res_by_backend, (spec->nres_by_backend + 1) * sizeof(*more));
            spec->res_by_backend = more;
            struct spec_backend_res *b = &more[spec->nres_by_backend++];
            memset(&b->res, 0, sizeof(b->res));
            b->backend = xstrdup(name);
            err = resources_parse(c, v, key, &b->res);
        }
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

static int get_workload(const struct spec_ctx *c, const yaml_node_t *n, char **out)
{
    char *given = NULL, *joined = NULL;
    int err = node_get_string(c, "workload", n, &given);
    if (err < 0)
        return err;
    if (!ends_with(given, ".py") || strlen(given) == 3) {
        err = FAIL(c, n, "workload: expected a Python file (*.py), got '%s'", given);
        goto done;
    }
    joined = given[0] == '/' ? xstrdup(given) : xprintf("%s/%s", c->dir, given);
    const char *kind = util_file_kind(joined);
    if (!kind) {
        err = FAIL(c, n, "workload: no such file: %s", joined);
        goto done;
    }
    if (!util_is_file(joined)) {
        err = FAIL(c, n, "workload: %s is %s, not a regular file", joined, kind);
        goto done;
    }
    if (!(*out = realpath(joined, NULL)))
        err = FAIL(c, n, "workload: %s: %s", joined, strerror(errno));
done:
    free(given);
    free(joined);
    return err;
}

static int parse_row(const struct spec_ctx *c, const yaml_node_t *map, struct spec_row *row)
{
    static const int required[] = {R_MODEL, R_TASK, R_BATCH};
    struct node_field f[R_NROW];
    char buf[96], list[256];
    struct spec *spec = c->spec;
    int err;

    row->warmup = -1;
    row->line = (int)map->start_mark.line + 1;
    row->col = (int)map->start_mark.column + 1;
    if (map->type != YAML_MAPPING_NODE)
        return FAIL(c, map, "rows: each row must be a map like {model: bert, task: fit, batch: 8}, got %s",
                    node_describe(map, buf, true));
    if ((err = node_map_collect(c, map, "a row", row_keys, f)) < 0 ||
        (err = node_require(c, map, "row", row_keys, f, required, 3)) < 0)
        return err;

    if ((err = node_get_string(c, "model", f[R_MODEL].value, &row->model)) < 0 ||
        (err = node_get_string(c, "task", f[R_TASK].value, &row->task)) < 0 ||
        (err = node_get_int(c, "batch", f[R_BATCH].value, 1, &row->batch)) < 0)
        return err;
    if (f[R_STEPS].key && (err = node_get_int(c, "steps", f[R_STEPS].value, 1, &row->steps)) < 0)
        return err;
    if (f[R_WARMUP].key && (err = node_get_int(c, "warmup", f[R_WARMUP].value, 0, &row->warmup)) < 0)
        return err;
    if (f[R_PRECISION].key &&
        (err = node_get_enum(c, "precision", f[R_PRECISION].value, precisions, &row->precision)) < 0)
        return err;
    if (f[R_TIMEOUT].key && (err = node_get_seconds(c, "timeout", f[R_TIMEOUT].value, &row->timeout)) < 0)
        return err;
    if (f[R_BACKENDS].key && (err = get_backends(c, "backends", f[R_BACKENDS].value, &row->backends,
                                                 &row->nbackends, spec->backends, spec->nbackends)) < 0)
        return err;
    if (f[R_WORKLOAD].key && (err = get_workload(c, f[R_WORKLOAD].value, &row->workload)) < 0)
        return err;
    if (f[R_RESOURCES].key && (err = resources_parse(c, f[R_RESOURCES].value, "resources", &row->resources)) < 0)
        return err;
    if (f[R_METHOD].key && (err = get_method_value(c, "method", f[R_METHOD].value, &row->method)) < 0)
        return err;
    if (f[R_DEVICE].key && (err = device_parse_row(c, f[R_DEVICE].value, &row->device)) < 0)
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
    resources_free(&row->resources);
    free(row->model);
    free(row->task);
    free(row->precision);
    free(row->workload);
    free(row->method);
    free(row->device);
    for (size_t i = 0; i < row->nbackends; i++)
        free(row->backends[i]);
    free(row->backends);
}

static int get_rows(const struct spec_ctx *c, const yaml_node_t *seq)
{
    char buf[96];
    struct spec *spec = c->spec;
    if (seq->type != YAML_SEQUENCE_NODE)
        return FAIL(c, seq, "rows: expected a list of rows, got %s", node_describe(seq, buf, true));
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (n == 0)
        return FAIL(c, seq, "rows: must list at least one row");
    spec->rows = xcalloc(n, sizeof(*spec->rows));
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

static int parse_top(const struct spec_ctx *c, const yaml_node_t *root)
{
    static const int required[] = {K_NAME, K_BACKENDS, K_ROWS};
    struct node_field f[K_NTOP];
    struct spec *spec = c->spec;
    char buf[96];
    int err;

    if (!root)
        return node_fail_at(c, 0, 0, "empty spec: expected a map with at least name, backends and rows");
    if (root->type != YAML_MAPPING_NODE)
        return FAIL(c, root, "the spec must be a map with at least name, backends and rows, got %s",
                    node_describe(root, buf, true));
    if ((err = node_map_collect(c, root, "the spec", top_keys, f)) < 0 ||
        (err = node_require(c, root, "spec", top_keys, f, required, 3)) < 0)
        return err;

    if ((err = node_get_string(c, "name", f[K_NAME].value, &spec->name)) < 0)
        return err;
    if (!util_is_safe_name(spec->name))
        return FAIL(c, f[K_NAME].value,
                    "name: '%s' is not a valid run name (letters, digits and . _ + - only)", spec->name);
    if (f[K_DESCRIPTION].key && !node_is_null(f[K_DESCRIPTION].value) &&
        (err = node_get_string(c, "description", f[K_DESCRIPTION].value, &spec->description)) < 0)
        return err;
    if (f[K_SIZE].key && (err = node_get_enum(c, "size", f[K_SIZE].value, sizes, &spec->size)) < 0)
        return err;
    if (f[K_PRECISION].key &&
        (err = node_get_enum(c, "precision", f[K_PRECISION].value, precisions, &spec->precision)) < 0)
        return err;
    if (f[K_STEPS].key && (err = node_get_int(c, "steps", f[K_STEPS].value, 1, &spec->steps)) < 0)
        return err;
    if (f[K_WARMUP].key && (err = get_warmup(c, f[K_WARMUP].value)) < 0)
        return err;
    if (f[K_SEED].key && (err = node_get_u64(c, "seed", f[K_SEED].value, &spec->seed)) < 0)
        return err;
    if (f[K_TIMEOUT].key && (err = node_get_seconds(c, "timeout", f[K_TIMEOUT].value, &spec->timeout)) < 0)
        return err;
    if (f[K_MEMORY_LIMIT].key) {
        const yaml_node_t *v = f[K_MEMORY_LIMIT].value;
        int64_t bytes = node_scalar(v) ? spec_parse_bytes(node_scalar(v)) : -1;
        if (bytes < 0)
            return FAIL(c, v, "memory_limit: expected bytes like 8GiB, 512MiB, 2GB or 1000000, got %s",
                        node_describe(v, buf, true));
        spec->memory_limit = (uint64_t)bytes;
    }
    if (f[K_LOG_LIMIT].key) {
        const yaml_node_t *v = f[K_LOG_LIMIT].value;
        int64_t bytes = node_scalar(v) ? spec_parse_bytes(node_scalar(v)) : -1;
        if (bytes < 4096)
            return FAIL(c, v, "log_limit: expected bytes of at least 4KiB like 64MiB or 1GiB, got %s",
                        node_describe(v, buf, true));
        spec->log_limit = (uint64_t)bytes;
    }
    if (f[K_REPEATS].key && (err = node_get_int(c, "repeats", f[K_REPEATS].value, 1, &spec->repeats)) < 0)
        return err;
    spec->repeats_given = f[K_REPEATS].key != NULL;
    if (f[K_AB_FIRST].key && (err = node_get_int(c, "ab_first", f[K_AB_FIRST].value, 3, &spec->ab_first)) < 0)
        return err;
    if (f[K_AB_CAP].key && (err = node_get_int(c, "ab_cap", f[K_AB_CAP].value, 3, &spec->ab_cap)) < 0)
        return err;
    if (f[K_AB_EFFECT].key) { /* "5%" or 0.05 */
        const yaml_node_t *v = f[K_AB_EFFECT].value;
        const char *t = node_scalar(v);
        char *end = NULL;
        double x = t ? strtod(t, &end) : NAN;
        if (end && *end == '%' && end[1] == '\0')
            x /= 100.0;
        else if (!end || end == t || *end)
            x = NAN;
        if (!(x > 0.0 && x < 1.0))
            return FAIL(c, v, "ab_effect: expected a change like 5%% or 0.05 (more than 0, less than 100%%), got %s",
                        node_describe(v, buf, true));
        spec->ab_effect = x;
    }
    err = get_backends(c, "backends", f[K_BACKENDS].value, &spec->backends, &spec->nbackends, NULL, 0);
    if (err < 0)
        return err;
    if (f[K_RESOURCES].key && (err = get_resources(c, f[K_RESOURCES].value)) < 0)
        return err;
    if (f[K_ENVS].key && (err = get_envs(c, f[K_ENVS].value)) < 0)
        return err;
    if (f[K_METHOD].key && (err = get_method(c, f[K_METHOD].value)) < 0)
        return err;
    if (f[K_DEVICE].key &&
        (err = device_parse_spec(c, f[K_DEVICE].value, &spec->device, &spec->device_by_backend)) < 0)
        return err;
    return get_rows(c, f[K_ROWS].value);
}

/* First pass: syntax, aliases, exactly one document, and the bounds (nesting
 * depth, number of nodes) checked event by event, before the document API
 * builds anything: libyaml's scanner slows down with every open flow level
 * (100,000 nested '[' took over 30 s) and the document costs memory per node. */
static int prescan(const struct spec_ctx *c)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int err = 0, ndocs = 0, depth = 0;
    long nodes = 0;
    if (!yaml_parser_initialize(&parser))
        return error_set(BG_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)c->text, c->len);
    for (;;) {
        if (!yaml_parser_parse(&parser, &ev)) {
            err = node_syntax_error(c, &parser);
            break;
        }
        yaml_event_type_t type = ev.type;
        if (type == YAML_ALIAS_EVENT)
            err = node_fail_at(c, ev.start_mark.line, ev.start_mark.column,
                          "aliases (*%s) are not supported: write the value out",
                          (char *)ev.data.alias.anchor);
        else if (type == YAML_DOCUMENT_START_EVENT && ++ndocs > 1)
            err = node_fail_at(c, ev.start_mark.line, ev.start_mark.column,
                          "a spec is one YAML document, found a second one");
        else if ((type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) &&
                 ++depth > SPEC_MAX_DEPTH)
            err = node_fail_at(c, ev.start_mark.line, ev.start_mark.column, "nesting deeper than %d",
                               SPEC_MAX_DEPTH);
        else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT)
            depth--;
        if (!err && (type == YAML_SCALAR_EVENT || type == YAML_SEQUENCE_START_EVENT ||
                     type == YAML_MAPPING_START_EVENT) && ++nodes > SPEC_MAX_NODES)
            err = node_fail_at(c, ev.start_mark.line, ev.start_mark.column, "more than %d YAML nodes",
                               SPEC_MAX_NODES);
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
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

int spec_parse(struct spec **out, const char *path, const char *text, size_t len)
{
    struct spec_ctx c = {.path = path ? path : "<spec>", .text = text, .len = len};
    yaml_parser_t parser;
    yaml_document_t doc;
    bool have_parser = false, have_doc = false;
    int err = 0;

    *out = NULL;
    if (len > SPEC_MAX_BYTES)
        return error_set(BG_ESPEC, "%s: %zu bytes, larger than the %u MiB a spec may be", c.path, len,
                         SPEC_MAX_BYTES >> 20);
    struct spec *spec = xcalloc(1, sizeof(*spec));
    c.spec = spec;
    spec->steps = 100;
    spec->warmup = 1;
    spec->repeats = 1;
    spec->timeout = 600;
    spec->path = xstrdup(c.path);
    spec->size = xstrdup("tiny");
    spec->precision = xstrdup("float32");
    spec->method = xstrdup("corrected");
    spec->device = xstrdup("auto");
    spec->text = xmalloc(len + 1);
    c.dir = dir_of(c.path);
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
        err = node_syntax_error(&c, &parser);
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
    int err = util_read_regular(path, "spec", SPEC_MAX_BYTES, &text, &len);
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
    resources_free(&spec->resources);
    for (size_t i = 0; i < spec->nres_by_backend; i++) {
        free(spec->res_by_backend[i].backend);
        resources_free(&spec->res_by_backend[i].res);
    }
    free(spec->res_by_backend);
    kvlist_free(&spec->method_by_backend);
    free(spec->method);
    kvlist_free(&spec->device_by_backend);
    free(spec->device);
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
