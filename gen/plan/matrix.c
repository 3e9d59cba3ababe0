/*
 * matrix.c - expands a loaded spec into the ordered plan of cells (see matrix.h).
 *
 * Every inherited setting is resolved here, once, so the runner, the store
 * and the reports all see the same numbers for a cell and never re-derive
 * them from the spec.
 */
#include "plan/matrix.h"
#include "plan/catalog.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const only_keys[] = {"model", "task", "backend", "batch", "env", "method", "key", NULL};

/* ---- --only -------------------------------------------------------------- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* Splits "KEY=VAL[,KEY=VAL...]" into filters (key -> value, in order). */
static int only_parse(struct kvlist *filters, const char *only)
{
    char *copy = xstrdup(only), *rest = copy, *term;
    int err = 0;
    /* strsep, not strtok: "model=bert," has an empty term, which is a typo. */
    while ((term = strsep(&rest, ","))) {
        char *eq = strchr(term, '=');
        if (!eq) {
            err = error_set(BG_EUSAGE,
                            "--only: expected KEY=VALUE, got '%s' (keys: model, task, backend, "
                            "batch, env, method, key)",
                            trim(term));
            goto done;
        }
        *eq = '\0';
        char *key = trim(term), *value = trim(eq + 1);
        size_t i = 0;
        while (only_keys[i] && strcmp(only_keys[i], key) != 0)
            i++;
        if (!only_keys[i]) {
            err = error_set(BG_EUSAGE,
                            "--only: unknown key '%s' (keys: model, task, backend, batch, env, method, key)", key);
            goto done;
        }
        if (!*value) {
            err = error_set(BG_EUSAGE, "--only: %s= needs a value", key);
            goto done;
        }
        if (strcmp(key, "batch") == 0) {
            char *end;
            errno = 0;
            long b = strtol(value, &end, 10);
            if (errno || *end || b < 1) {
                err = error_set(BG_EUSAGE, "--only: batch must be a positive integer, got '%s'", value);
                goto done;
            }
        }
        if ((err = kvlist_add(filters, key, value)) < 0)
            goto done;
    }
done:
    free(copy);
    return err;
}

/* A value without '#' names a cell in every repeat ("bert/fit/b1/numpy"
 * matches "bert/fit/b1/numpy#r2" too); with "#r<k>", exactly one, and "#r1"
 * names the first repeat although its key has no suffix. Likewise a value
 * without "@<method>" names both methods of a cell that runs both. */
static bool key_matches(const char *cell_key, const char *value)
{
    const char *vhash = strchr(value, '#'), *chash = strchr(cell_key, '#');
    size_t vbase = vhash ? (size_t)(vhash - value) : strlen(value);
    size_t cbase = chash ? (size_t)(chash - cell_key) : strlen(cell_key);
    const char *cat = memchr(cell_key, '@', cbase);
    if (cat && !memchr(value, '@', vbase))
        cbase = (size_t)(cat - cell_key); /* no "@<method>": every method */
    if (vbase != cbase || strncmp(cell_key, value, cbase) != 0)
        return false;
    if (!vhash)
        return true;
    return chash ? strcmp(vhash, chash) == 0 : strcmp(vhash, "#r1") == 0;
}

static bool field_matches(const struct cell *c, const char *key, const char *value)
{
    if (strcmp(key, "model") == 0)
        return strcmp(c->model, value) == 0;
    if (strcmp(key, "task") == 0)
        return strcmp(c->task, value) == 0;
    if (strcmp(key, "backend") == 0)
        return strcmp(c->backend, value) == 0;
    if (strcmp(key, "env") == 0)
        return strcmp(c->env, value) == 0;
    if (strcmp(key, "method") == 0)
        return c->method && strcmp(c->method, value) == 0;
    if (strcmp(key, "batch") == 0)
        return strtol(value, NULL, 10) == c->batch;
    return key_matches(c->key, value);
}

/* Same key OR'd, different keys AND'd. */
static bool only_matches(const struct kvlist *filters, const struct cell *c)
{
    for (size_t k = 0; only_keys[k]; k++) {
        bool constrained = false, hit = false;
        for (size_t i = 0; i < filters->n; i++) {
            if (strcmp(filters->items[i].key, only_keys[k]) != 0)
                continue;
            constrained = true;
            if (field_matches(c, only_keys[k], filters->items[i].value))
                hit = true;
        }
        if (constrained && !hit)
            return false;
    }
    return true;
}

/* ---- expansion ----------------------------------------------------------- */

static int physical_memory_limit(uint64_t *out)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return error_set(BG_EGENERIC, "cannot read the physical memory size: set memory_limit in the spec");
    /* 80%: leaves the parent, the OS and page cache room while a cell runs. */
    *out = (uint64_t)pages * (uint64_t)page / 5 * 4;
    return 0;
}

static bool row_has_backend(const struct spec_row *row, const char *backend)
{
    if (!row->backends)
        return true;
    for (size_t i = 0; i < row->nbackends; i++)
        if (strcmp(row->backends[i], backend) == 0)
            return true;
    return false;
}

/* Row, then the spec's per-backend value, then the spec's. */
static const char *resolve_method(const struct spec *spec, const struct spec_row *row, const char *backend)
{
    if (row->method)
        return row->method;
    const char *m = kvlist_get(&spec->method_by_backend, backend);
    return m ? m : spec->method;
}

/* Row, then the spec's per-backend value, then the spec's (plan/device.h). */
static const char *resolve_device(const struct spec *spec, const struct spec_row *row, const char *backend)
{
    if (row->device)
        return row->device;
    const char *d = kvlist_get(&spec->device_by_backend, backend);
    return d ? d : spec->device;
}

/* Row, then the spec's per-backend value, then the method's count for the
 * backend (the published native PyTorch scripts warmed up twice), then the
 * catalog's default for the backend (torch-compiled needs two), then the
 * spec's. */
static int resolve_warmup(const struct spec *spec, const struct spec_row *row,
                          const struct catalog_backend *cb, const char *method)
{
    if (row->warmup >= 0)
        return row->warmup;
    const char *w = kvlist_get(&spec->warmup_by_backend, cb->name);
    if (w)
        return (int)strtol(w, NULL, 10);
    if (method && strcmp(method, "published") == 0 && strcmp(cb->family, "torch") == 0)
        return 2;
    if (cb->default_warmup >= 0)
        return cb->default_warmup;
    return spec->warmup;
}

/* The cell's cluster resources: the spec's, then its backend's, then its row's. */
static int cell_resources(const struct spec *spec, const struct spec_row *row, const char *backend,
                          struct resources *out)
{
    memset(out, 0, sizeof(*out));
    int err = resources_overlay(out, &spec->resources);
    for (size_t i = 0; !err && i < spec->nres_by_backend; i++)
        if (strcmp(spec->res_by_backend[i].backend, backend) == 0)
            err = resources_overlay(out, &spec->res_by_backend[i].res);
    if (!err)
        err = resources_overlay(out, &row->resources);
    return err;
}

/* The i-th method of a method value ("published", or "published corrected"
 * for both, spec.h) into out; the number of methods it names. */
static int method_at(const char *methods, int i, char out[16])
{
    const char *space = strchr(methods, ' ');
    if (i == 0)
        snprintf(out, 16, "%.*s", space ? (int)(space - methods) : (int)strlen(methods), methods);
    else
        snprintf(out, 16, "%s", space ? space + 1 : "");
    return space ? 2 : 1;
}

/* Appends the cells of one row and backend in repeat r: one per method
 * (key "...@<method>" when the row runs both), when they match the filters. */
static int expand_position(struct matrix *m, const struct spec *spec, const struct spec_row *row,
                           const struct catalog_backend *cb, int r, uint64_t memory_limit,
                           const struct kvlist *filters, size_t *total)
{
    const char *backend = cb->name;
    const char *env = kvlist_get(&spec->env_by_backend, backend);
    const char *methods = resolve_method(spec, row, backend);
    char method[16];
    int err = 0, nmethods = method_at(methods, 0, method);
    for (int mi = 0; mi < nmethods && !err; mi++) {
        method_at(methods, mi, method);
        char rep[16] = "", at[20] = "";
        if (r >= 2)
            snprintf(rep, sizeof(rep), "#r%d", r);
        if (nmethods > 1)
            snprintf(at, sizeof(at), "@%s", method);
        char *key = xprintf("%s/%s/b%d/%s%s%s", row->model, row->task, row->batch, backend, at, rep);
        /* Borrowed strings: matrix_add() copies what is kept. */
        struct cell c = {
            .id = (int)m->ncells + 1,
            .key = key,
            .model = row->model,
            .task = row->task,
            .backend = (char *)backend,
            .size = spec->size,
            .precision = row->precision ? row->precision : spec->precision,
            .env = (char *)(env ? env : cb->env),
            .workload = row->workload,
            .method = method,
            .device = (char *)resolve_device(spec, row, backend),
            .batch = row->batch,
            .steps = row->steps > 0 ? row->steps : spec->steps,
            .warmup = resolve_warmup(spec, row, cb, method),
            .repeat = r,
            .seed = spec->seed,
            .timeout = row->timeout > 0 ? row->timeout : spec->timeout,
            .memory_limit = memory_limit,
            .log_limit = spec->log_limit,
        };
        (*total)++;
        err = cell_resources(spec, row, backend, &c.res);
        if (!err && (!filters || only_matches(filters, &c)))
            err = matrix_add(m, &c);
        resources_free(&c.res);
        free(key);
    }
    return err;
}

int matrix_expand(struct matrix *out, const struct spec *spec, const char *only)
{
    struct kvlist filters = {0};
    struct matrix m = {0};
    uint64_t memory_limit = spec->memory_limit;
    int err = 0;

    out->cells = NULL;
    out->ncells = 0;
    out->cap = 0;
    if (only && (err = only_parse(&filters, only)) < 0)
        goto done;
    if (!memory_limit && (err = physical_memory_limit(&memory_limit)) < 0)
        goto done;

    size_t total = 0;
    for (int r = 1; r <= spec->repeats; r++) {
        for (size_t i = 0; i < spec->nrows; i++) {
            const struct spec_row *row = &spec->rows[i];
            for (size_t b = 0; b < spec->nbackends; b++) {
                const char *backend = spec->backends[b];
                if (!row_has_backend(row, backend))
                    continue;
                const struct catalog_backend *cb = catalog_backend_find(backend);
                if (!cb) {
                    err = error_set(BG_ESPEC, "%s: unknown backend '%s' (backends: %s)", spec->path, backend,
                                    catalog_backend_names());
                    goto done;
                }
                if ((err = expand_position(&m, spec, row, cb, r, memory_limit, only ? &filters : NULL, &total)) < 0)
                    goto done;
            }
        }
    }
    if (only && m.ncells == 0)
        err = error_set(BG_EUSAGE, "--only '%s' matches none of the %zu cells of %s", only, total,
                        spec->name ? spec->name : spec->path);
done:
    kvlist_free(&filters);
    if (err < 0) {
        matrix_free(&m);
        return err;
    }
    *out = m;
    return 0;
}

/* ---- the cell array ------------------------------------------------------ */

void cell_free(struct cell *c)
{
    resources_free(&c->res);
    free(c->key);
    free(c->model);
    free(c->task);
    free(c->backend);
    free(c->size);
    free(c->precision);
    free(c->env);
    free(c->workload);
    free(c->method);
    free(c->device);
}

void matrix_filter(struct matrix *m, const unsigned char *keep)
{
    size_t kept = 0;
    for (size_t i = 0; i < m->ncells; i++) {
        if (keep[i])
            m->cells[kept++] = m->cells[i];
        else
            cell_free(&m->cells[i]);
    }
    m->ncells = kept;
}

static int ensure_room(struct matrix *m)
{
    if (m->ncells < m->cap)
        return 0;
    size_t cap = m->cap < 8 ? 8 : m->cap * 2;
    m->cells = xrealloc(m->cells, cap * sizeof(*m->cells));
    m->cap = cap;
    return 0;
}

static int dup_str(char **dst, const char *src)
{
    if (!src)
        return 0;
    *dst = xstrdup(src);
    return 0;
}

int matrix_add(struct matrix *m, const struct cell *c)
{
    int err = ensure_room(m);
    if (err < 0)
        return err;
    /* Numbers from c; every string is copied, so start with none. */
    struct cell copy = *c;
    copy.key = copy.model = copy.task = copy.backend = NULL;
    copy.size = copy.precision = copy.env = copy.workload = copy.method = copy.device = NULL;
    memset(&copy.res, 0, sizeof(copy.res));
    if ((err = dup_str(&copy.key, c->key)) < 0 || (err = dup_str(&copy.model, c->model)) < 0 ||
        (err = dup_str(&copy.task, c->task)) < 0 || (err = dup_str(&copy.backend, c->backend)) < 0 ||
        (err = dup_str(&copy.size, c->size)) < 0 || (err = dup_str(&copy.precision, c->precision)) < 0 ||
        (err = dup_str(&copy.env, c->env)) < 0 || (err = dup_str(&copy.workload, c->workload)) < 0 ||
        (err = dup_str(&copy.method, c->method)) < 0 || (err = dup_str(&copy.device, c->device)) < 0 ||
        (err = resources_overlay(&copy.res, &c->res)) < 0) {
        cell_free(&copy);
        return err;
    }
    m->cells[m->ncells++] = copy;
    return 0;
}

void matrix_free(struct matrix *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->ncells; i++)
        cell_free(&m->cells[i]);
    free(m->cells);
    m->cells = NULL;
    m->ncells = 0;
    m->cap = 0;
}

char *matrix_key_filename(const char *key)
{
    char *s = xstrdup(key);
    for (char *p = s; *p; p++)
        if (*p == '/' || *p == '#')
            *p = '_';
    return s;
}
