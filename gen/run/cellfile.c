/*
 * cellfile.c - the plan and per-attempt result files under RUN_DIR/cells/
 * (see cellfile.h). JSON through jansson; integers that may exceed 2^63
 * (seeds, memory limits) travel as decimal strings.
 */
#include "run/cellfile.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

char *cellfile_dir(const char *run_dir)
{
    return xprintf("%s/cells", run_dir);
}

/* jansson's own failure: it returns NULL for a document it cannot build
 * (its allocator failed, or a text is not UTF-8); a library boundary, so a
 * plain error rather than the x-family's exit. */
static int json_failed(const char *path)
{
    return error_set(BG_EGENERIC, "%s: cannot build the JSON document (jansson: out of memory or text not UTF-8)",
                     path);
}

/* Writes a JSON document atomically and syncs the directory, so the rename
 * survives a crash of the node. */
static int write_json(const char *dir, const char *path, json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    if (!text)
        return json_failed(path);
    int err = util_mkdir_p(dir, 0755);
    if (!err)
        err = util_write_file_atomic(path, text, strlen(text));
    free(text);
    int fd = err ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    return err;
}

static json_t *load_json(const char *path)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc)
        error_set(access(path, F_OK) == 0 ? BG_EIO : BG_ENOTFOUND, "%s:%d: %s", path, je.line, je.text);
    return doc;
}

static const char *jtext(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s;
}

static int64_t jint(const json_t *o, const char *k)
{
    return (int64_t)json_integer_value(json_object_get(o, k));
}

static uint64_t jdec(const json_t *o, const char *k)
{
    const char *s = jtext(o, k);
    return s ? strtoull(s, NULL, 10) : 0;
}

static json_t *jstr_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* ---- plan ---------------------------------------------------------------- */

static json_t *resources_json(const struct resources *r)
{
    return json_pack("{s:o, s:i, s:i, s:o, s:o}", "partition", jstr_or_null(r->partition), "gpus", r->gpus, "cpus",
                     r->cpus, "mem", jstr_or_null(r->mem), "time", jstr_or_null(r->time));
}

static int resources_load(const json_t *j, struct resources *r)
{
    memset(r, 0, sizeof(*r));
    const char *p = jtext(j, "partition"), *m = jtext(j, "mem"), *t = jtext(j, "time");
    r->gpus = (int)jint(j, "gpus");
    r->cpus = (int)jint(j, "cpus");
    r->partition = p ? xstrdup(p) : NULL;
    r->mem = m ? xstrdup(m) : NULL;
    r->time = t ? xstrdup(t) : NULL;
    return 0;
}

static json_t *cell_json(const struct cell *c)
{
    char seed[32], mem[32];
    snprintf(seed, sizeof(seed), "%" PRIu64, c->seed);
    snprintf(mem, sizeof(mem), "%" PRIu64, c->memory_limit);
    return json_pack("{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:i, s:i, s:i, s:i, s:s, s:f, s:s, s:I, s:o}",
                     "id", c->id, "key", c->key, "model", c->model, "task", c->task, "backend", c->backend, "size",
                     c->size ? c->size : "", "precision", c->precision ? c->precision : "", "env", c->env,
                     "workload", jstr_or_null(c->workload), "method", jstr_or_null(c->method),
                     "device", jstr_or_null(c->device), "batch", c->batch,
                     "steps", c->steps, "warmup", c->warmup, "repeat", c->repeat, "seed", seed, "timeout_s",
                     c->timeout, "memory_limit", mem, "log_limit", (json_int_t)c->log_limit, "resources",
                     resources_json(&c->res));
}

int cellfile_write_plan(const char *run_dir, const struct matrix *plan)
{
    char *dir = cellfile_dir(run_dir);
    char *path = xprintf("%s/plan.json", dir);
    json_t *cells = json_array(), *doc = NULL;
    int err = 0;
    if (!cells) {
        err = json_failed(path);
        goto done;
    }
    for (size_t i = 0; i < plan->ncells; i++)
        if (json_array_append_new(cells, cell_json(&plan->cells[i])) < 0) {
            err = json_failed(path);
            goto done;
        }
    doc = json_pack("{s:s, s:O}", "format", CELLFILE_PLAN_FORMAT, "cells", cells);
    err = write_json(dir, path, doc);
done:
    json_decref(cells);
    json_decref(doc);
    free(path);
    free(dir);
    return err;
}

int cellfile_ensure_plan(const char *run_dir, struct store *st)
{
    char *path = xprintf("%s/cells/plan.json", run_dir);
    bool have = util_is_file(path);
    free(path);
    if (have)
        return 0;
    struct matrix plan = {0};
    int err = store_load_plan(st, &plan);
    if (!err)
        err = cellfile_write_plan(run_dir, &plan);
    matrix_free(&plan);
    return err;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

int cellfile_read_plan(const char *run_dir, struct matrix *out)
{
    char *path = xprintf("%s/cells/plan.json", run_dir);
    json_t *doc = load_json(path);
    int err = 0;
    if (!doc) {
        err = error_prefix(error_code(), "%s: the plan of cells run elsewhere", run_dir);
        goto done;
    }
    const char *fmt = jtext(doc, "format");
    json_t *cells = json_object_get(doc, "cells");
    if (!fmt || strcmp(fmt, CELLFILE_PLAN_FORMAT) || !json_is_array(cells)) {
        err = error_set(BG_EIO, "%s: not a %s document", path, CELLFILE_PLAN_FORMAT);
        goto done;
    }
    size_t i;
    json_t *j;
    json_array_foreach(cells, i, j)
    {
        struct cell c = {0};
        c.id = (int)jint(j, "id");
        c.key = (char *)jtext(j, "key");
        c.model = (char *)jtext(j, "model");
        c.task = (char *)jtext(j, "task");
        c.backend = (char *)jtext(j, "backend");
        c.size = (char *)jtext(j, "size");
        c.precision = (char *)jtext(j, "precision");
        c.env = (char *)jtext(j, "env");
        c.workload = (char *)jtext(j, "workload");
        c.method = (char *)jtext(j, "method");
        c.device = (char *)jtext(j, "device");
        c.batch = (int)jint(j, "batch");
        c.steps = (int)jint(j, "steps");
        c.warmup = (int)jint(j, "warmup");
        c.repeat = (int)jint(j, "repeat");
        c.seed = jdec(j, "seed");
        c.timeout = json_number_value(json_object_get(j, "timeout_s"));
        c.memory_limit = jdec(j, "memory_limit");
        c.log_limit = (uint64_t)jint(j, "log_limit");
        if (c.id < 1 || !c.key || !c.model || !c.task || !c.backend || !c.env) {
            err = error_set(BG_EIO, "%s: cell %zu is incomplete", path, i);
            goto done;
        }
        if ((err = resources_load(json_object_get(j, "resources"), &c.res)) < 0)
            goto done;
        err = matrix_add(out, &c);
        resources_free(&c.res);
        if (err < 0)
            goto done;
    }
done:
    json_decref(doc);
    free(path);
    return err;
}

/* ---- attempts ------------------------------------------------------------ */

static json_t *pairs_json(const struct kvlist *kl)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < kl->n; i++)
        if (json_array_append_new(a, json_pack("[s,s]", kl->items[i].key, kl->items[i].value)) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static json_t *samples_json(const int64_t *ns, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, json_integer((json_int_t)ns[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* [[name, t_ns, value], ...]: the telemetry series (run/telemetry.h). */
static json_t *series_json(const struct tseries *s)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < s->n; i++)
        if (json_array_append_new(a, json_pack("[s, I, f]", s->rows[i].name, (json_int_t)s->rows[i].t_ns,
                                               s->rows[i].value)) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static int series_load(const json_t *a, struct tseries *s)
{
    size_t i;
    json_t *p;
    json_array_foreach(a, i, p)
    {
        const char *name = json_string_value(json_array_get(p, 0));
        if (name && tseries_add(s, name, (int64_t)json_integer_value(json_array_get(p, 1)),
                               json_number_value(json_array_get(p, 2))) < 0)
            return error_code();
    }
    return 0;
}

static char *attempt_path(const char *run_dir, int id, const char *name)
{
    return xprintf("%s/cells/%d/%s", run_dir, id, name);
}

int cellfile_write_attempt(const char *run_dir, const struct cell *c, const char *tag, int verdict,
                           const struct result *r)
{
    if (!util_is_safe_name(tag))
        return error_set(BG_EUSAGE, "attempt tag '%s' is not a plain file name", tag);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char *name = xprintf("%s%s.json", tag, verdict ? ".slurm" : "");
    char *dir = xprintf("%s/cells/%d", run_dir, c->id);
    char *path = attempt_path(run_dir, c->id, name);
    json_t *doc = json_pack(
        "{s:s, s:i, s:s, s:s, s:b, s:s, s:o, s:s, s:I, s:I, s:I, s:I, s:f, s:I, s:i, s:i, s:o, s:o, s:o, s:o, s:o, "
        "s:o}",
        "format", CELLFILE_ATTEMPT_FORMAT, "id", c->id, "key", c->key, "tag", tag, "verdict", verdict, "status",
        status_name(r->status), "detail", jstr_or_null(r->detail), "input_sha256", r->input_sha256, "input_bytes",
        (json_int_t)r->input_bytes, "started", (json_int_t)r->started, "finished", (json_int_t)r->finished,
        "finished_ns", (json_int_t)now.tv_sec * 1000000000 + now.tv_nsec, "wall_s", r->wall_s, "peak_rss",
        (json_int_t)r->peak_rss, "exit_code", r->exit_code, "term_signal", r->term_signal, "warmup_ns",
        samples_json(r->warmup_ns, r->nwarmup), "timed_ns", samples_json(r->timed_ns, r->ntimed), "phases",
        pairs_json(&r->phases), "facts", pairs_json(&r->facts), "env", pairs_json(&r->env), "telemetry",
        series_json(&r->telemetry));
    int err = write_json(dir, path, doc);
    json_decref(doc);
    free(path);
    free(dir);
    free(name);
    return err;
}

static int pairs_load(const json_t *a, struct kvlist *kl)
{
    size_t i;
    json_t *p;
    json_array_foreach(a, i, p)
    {
        const char *k = json_string_value(json_array_get(p, 0)), *v = json_string_value(json_array_get(p, 1));
        if (k && v && kvlist_add(kl, k, v) < 0)
            return error_code();
    }
    return 0;
}

static int samples_load(const json_t *a, struct result *r, int warmup)
{
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (result_add_sample(r, warmup, (int64_t)json_integer_value(v)) < 0)
            return error_code();
    }
    return 0;
}

int cellfile_read_attempt(const char *run_dir, const struct cell *c, const char *name, struct result *r)
{
    char *path = attempt_path(run_dir, c->id, name);
    json_t *doc = load_json(path);
    int err = 0;
    if (!doc) {
        err = error_code();
        goto done;
    }
    const char *fmt = jtext(doc, "format"), *key = jtext(doc, "key"), *status = jtext(doc, "status");
    if (!fmt || strcmp(fmt, CELLFILE_ATTEMPT_FORMAT) || !key || !status) {
        err = error_set(BG_EIO, "%s: not a %s document", path, CELLFILE_ATTEMPT_FORMAT);
        goto done;
    }
    if (strcmp(key, c->key) != 0) {
        err = error_set(BG_EIO, "%s: holds cell '%s', not '%s'", path, key, c->key);
        goto done;
    }
    int s = status_parse(status);
    if (s <= STATUS_NONE) {
        err = error_set(BG_EIO, "%s: unknown status '%s'", path, status);
        goto done;
    }
    r->status = (enum status)s;
    r->detail = dup_or_null(jtext(doc, "detail"));
    snprintf(r->input_sha256, sizeof(r->input_sha256), "%s", jtext(doc, "input_sha256") ? jtext(doc, "input_sha256") : "");
    r->input_bytes = jint(doc, "input_bytes");
    r->started = (time_t)jint(doc, "started");
    r->finished = (time_t)jint(doc, "finished");
    r->wall_s = json_number_value(json_object_get(doc, "wall_s"));
    r->peak_rss = jint(doc, "peak_rss");
    r->exit_code = (int)jint(doc, "exit_code");
    r->term_signal = (int)jint(doc, "term_signal");
    if ((err = samples_load(json_object_get(doc, "warmup_ns"), r, 1)) < 0 ||
        (err = samples_load(json_object_get(doc, "timed_ns"), r, 0)) < 0 ||
        (err = pairs_load(json_object_get(doc, "phases"), &r->phases)) < 0 ||
        (err = pairs_load(json_object_get(doc, "facts"), &r->facts)) < 0 ||
        (err = pairs_load(json_object_get(doc, "env"), &r->env)) < 0 ||
        (err = series_load(json_object_get(doc, "telemetry"), &r->telemetry)) < 0)
        goto done;
done:
    json_decref(doc);
    free(path);
    return err;
}

static int attempt_cmp(const void *a, const void *b)
{
    const struct cellfile_attempt *x = a, *y = b;
    if (x->finished_ns != y->finished_ns)
        return x->finished_ns < y->finished_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int cellfile_list_attempts(const char *run_dir, int id, struct cellfile_attempts *out)
{
    memset(out, 0, sizeof(*out));
    char *dir = xprintf("%s/cells/%d", run_dir, id);
    DIR *d = opendir(dir);
    int err = 0;
    size_t cap = 0;
    struct dirent *e;
    while (d && !err && (e = readdir(d))) {
        /* Temporary files of a write in progress end in .tmp.<pid>. */
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".json"))
            continue;
        char *path = attempt_path(run_dir, id, e->d_name);
        json_t *doc = load_json(path);
        const char *tag = doc ? jtext(doc, "tag") : NULL, *status = doc ? jtext(doc, "status") : NULL;
        int s = status ? status_parse(status) : -1;
        if (!tag || s <= STATUS_NONE || jint(doc, "id") != id) {
            fprintf(stderr, "benchgen: warning: skipping %s: %s\n", path,
                    !doc ? error_last() : status && s <= STATUS_NONE ? "unknown status" : "not an attempt of this cell");
        } else {
            if (out->n == cap) {
                cap = cap ? cap * 2 : 4;
                out->v = xrealloc(out->v, cap * sizeof(*out->v));
            }
            struct cellfile_attempt *a = &out->v[out->n++];
            memset(a, 0, sizeof(*a));
            a->name = xstrdup(e->d_name);
            a->tag = xstrdup(tag);
            a->status = (enum status)s;
            a->verdict = json_is_true(json_object_get(doc, "verdict"));
            a->finished_ns = jint(doc, "finished_ns");
        }
        json_decref(doc);
        free(path);
    }
    if (d)
        closedir(d);
    else if (errno != ENOENT)
        err = error_set(BG_EIO, "%s: %s", dir, strerror(errno));
    free(dir);
    if (err)
        cellfile_attempts_free(out);
    else if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), attempt_cmp);
    return err;
}

void cellfile_attempts_free(struct cellfile_attempts *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->v[i].name);
        free(a->v[i].tag);
    }
    free(a->v);
    memset(a, 0, sizeof(*a));
}
