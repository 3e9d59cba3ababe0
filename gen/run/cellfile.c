/*
 * cellfile.c - the plan and per-attempt result files under RUN_DIR/cells/
 * (see cellfile.h). JSON through jansson; integers that may exceed 2^63
 * (seeds, memory limits) travel as decimal strings.
 */
#include "run/cellfile.h"
#include "run/cellcheck.h"
#include "run/cellkey.h"
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

/* The largest plan.json read (every cell of a plan, with its settings). */
#define PLAN_MAX_BYTES (256u << 20)

int cellfile_load(int dirfd, const char *name, const char *shown, size_t max, json_t **out)
{
    *out = NULL;
    /* Regular files only: a FIFO, device, directory or link is refused by
     * what it is, without blocking on it (O_NONBLOCK) or following it. */
    int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return error_set(errno == ENOENT ? BG_ENOTFOUND : BG_EIO, "%s: %s", shown,
                         errno == ELOOP ? "a symbolic link, not a file" : strerror(errno));
    struct stat sb;
    int err = 0;
    char *buf = NULL;
    if (fstat(fd, &sb) < 0) {
        err = error_set(BG_EIO, "%s: %s", shown, strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        err = error_set(BG_EIO, "%s: not a regular file (%s)", shown,
                        S_ISFIFO(sb.st_mode)  ? "a FIFO"
                        : S_ISDIR(sb.st_mode) ? "a directory"
                        : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
                        : S_ISSOCK(sb.st_mode) ? "a socket"
                                               : "not a file");
    } else if ((uint64_t)sb.st_size > max) {
        err = error_set(BG_EIO, "%s: %lld bytes, more than a result file can be (%zu)", shown,
                        (long long)sb.st_size, max);
    } else {
        size_t n = (size_t)sb.st_size, got = 0;
        buf = xmalloc(n + 1);
        while (got < n) {
            ssize_t k = read(fd, buf + got, n - got);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            got += (size_t)k;
        }
        json_error_t je;
        if (got != n)
            err = error_set(BG_EIO, "%s: changed while it was read", shown);
        else if (!(*out = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je)))
            err = error_set(BG_EIO, "%s:%d:%d: %s", shown, je.line, je.column, je.text);
    }
    free(buf);
    close(fd);
    return err;
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

int cellfile_read_plan(const char *run_dir, struct matrix *out)
{
    char *path = xprintf("%s/cells/plan.json", run_dir);
    json_t *doc = NULL;
    int err = cellfile_load(AT_FDCWD, path, path, PLAN_MAX_BYTES, &doc);
    if (err < 0) {
        err = error_prefix(err, "%s: the plan of cells run elsewhere", run_dir);
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

/* [[name, t_ns, value], ...]: the telemetry series (machine/telemetry.h). */
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

static char *attempt_path(const char *run_dir, int id, const char *name)
{
    return xprintf("%s/cells/%d/%s", run_dir, id, name);
}

int cellfile_write_attempt(const char *run_dir, const struct cell *c, const char *tag, int verdict,
                           const struct result *r, const char *key)
{
    if (!util_is_safe_name(tag))
        return error_set(BG_EUSAGE, "attempt tag '%s' is not a plain file name", tag);
    char *name = xprintf("%s%s.json", tag, verdict ? ".slurm" : "");
    char *dir = xprintf("%s/cells/%d", run_dir, c->id);
    char *path = attempt_path(run_dir, c->id, name);
    char *msg = NULL;
    int err = 0;
    json_t *doc = json_pack(
        "{s:s, s:i, s:s, s:s, s:b, s:s, s:o, s:s, s:I, s:I, s:I, s:f, s:I, s:i, s:i, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o}",
        "format", CELLFILE_ATTEMPT_FORMAT, "id", c->id, "key", c->key, "tag", tag, "verdict", verdict, "status",
        status_name(r->status), "detail", jstr_or_null(r->detail), "input_sha256", r->input_sha256, "input_bytes",
        (json_int_t)r->input_bytes, "started", (json_int_t)r->started, "finished", (json_int_t)r->finished,
        "wall_s", r->wall_s, "peak_rss", (json_int_t)r->peak_rss, "exit_code", r->exit_code, "term_signal",
        r->term_signal, "warmup_ns", samples_json(r->warmup_ns, r->nwarmup), "timed_ns",
        samples_json(r->timed_ns, r->ntimed), "phases", pairs_json(&r->phases), "facts", pairs_json(&r->facts),
        "env", pairs_json(&r->env), "telemetry", series_json(&r->telemetry), "plan", cellcheck_plan_json(c));
    /* A cell's own result is signed with its attempt's key (cellkey.h). */
    if (doc && key) {
        char sig[CELLKEY_SIG_HEX];
        if (!(msg = cellcheck_signed_text(doc)))
            err = json_failed(path);
        else if ((err = cellkey_sign(sig, key, msg, strlen(msg))) == 0)
            json_object_set_new(doc, "signature", json_string(sig));
    }
    if (!err)
        err = write_json(dir, path, doc);
    json_decref(doc);
    free(msg);
    free(path);
    free(dir);
    free(name);
    return err;
}

int cellfile_open_cell(const char *run_dir, int id, int *fd)
{
    char *dir = xprintf("%s/cells/%d", run_dir, id);
    int err = 0;
    *fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0 && errno != ENOENT)
        err = error_set(BG_EIO, "%s: %s", dir,
                        errno == ENOTDIR || errno == ELOOP ? "not a directory (a link or another kind of file)"
                                                           : strerror(errno));
    free(dir);
    return err;
}
