/*
 * cellcheck.c - checking a result file against the plan in run.db (see
 * cellcheck.h).
 */
#include "run/cellcheck.h"
#include "run/cellkey.h"
#include "runners/channel.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* detail: the worker's text (one channel line at most) and the parent's
 * own sentence before it. */
#define MAX_DETAIL (CHANNEL_LINE_MAX + 4096)
/* A step without a timeout to bound it: 30 days. */
#define NO_TIMEOUT_NS (30LL * 86400 * 1000000000LL)

static int refuse(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return 1;
}

static const char *text(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

char *cellcheck_signed_text(const json_t *doc)
{
    json_t *copy = json_copy((json_t *)doc);
    if (!copy)
        return NULL;
    json_object_del(copy, "signature");
    char *s = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(copy);
    return s;
}

json_t *cellcheck_plan_json(const struct cell *c)
{
    char seed[32], mem[32];
    snprintf(seed, sizeof(seed), "%" PRIu64, c->seed);
    snprintf(mem, sizeof(mem), "%" PRIu64, c->memory_limit);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:s, s:f, s:s}", "model",
                     c->model, "task", c->task, "backend", c->backend, "size", c->size ? c->size : "", "precision",
                     c->precision ? c->precision : "", "env", c->env, "workload", c->workload ? c->workload : "",
                     "method", c->method ? c->method : "", "key", c->key, "batch", c->batch, "steps", c->steps,
                     "warmup", c->warmup, "repeat", c->repeat, "seed", seed, "timeout_s", c->timeout,
                     "memory_limit", mem);
}

/* The issue a tag belongs to: an exact tag, or a Slurm submission's prefix
 * followed by the restart count ("x" for a verdict on a forgotten task). */
static int match_issue(const struct store_issued_list *issued, const char *tag, bool verdict, int *seq,
                       long *restart)
{
    for (size_t i = 0; i < issued->n; i++) {
        const char *t = issued->v[i].tag;
        size_t n = strlen(t);
        if (strcmp(t, tag) == 0) {
            *seq = issued->v[i].seq;
            *restart = 0;
            return (int)i;
        }
        if (n == 0 || t[n - 1] != '.' || strncmp(t, tag, n) != 0)
            continue;
        const char *rest = tag + n;
        if (verdict && strcmp(rest, "x") == 0) {
            *seq = issued->v[i].seq;
            *restart = -1;
            return (int)i;
        }
        size_t digits = strspn(rest, "0123456789");
        if (digits > 0 && digits <= 6 && rest[digits] == '\0') {
            *seq = issued->v[i].seq;
            *restart = strtol(rest, NULL, 10);
            return (int)i;
        }
    }
    return -1;
}

/* The settings the file says it ran with, against the plan in run.db. */
static int check_plan(const json_t *p, const struct cell *c, char *why, size_t n)
{
    if (!json_is_object(p))
        return refuse(why, n, "it does not say which settings it ran with");
    json_t *want = cellcheck_plan_json(c);
    const char *k;
    json_t *v;
    int bad = 0;
    json_object_foreach(want, k, v)
    {
        json_t *got = json_object_get(p, k);
        if (!got || !json_equal(got, v)) {
            char *g = got ? json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
            char *w = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            bad = refuse(why, n, "it ran with %s %.40s, the plan in run.db says %.40s", k, g ? g : "(none)",
                         w ? w : "?");
            free(g);
            free(w);
            break;
        }
    }
    json_decref(want);
    return bad;
}

/* 1 with the reason unless a is a list of at most max entries. */
static int check_list(const json_t *a, const char *what, size_t max, char *why, size_t n)
{
    if (!json_is_array(a))
        return refuse(why, n, "%s is not a list", what);
    if (json_array_size(a) > max)
        return refuse(why, n, "%zu %s, at most %zu", json_array_size(a), what, max);
    return 0;
}

/* Samples: whole positive numbers of ns, no longer than the timeout alone
 * or together. */
static int load_samples(const json_t *a, const char *what, struct result *r, int warmup, int64_t limit,
                        int64_t *sum, size_t max, char *why, size_t n)
{
    char list[32];
    snprintf(list, sizeof(list), "%s samples", what);
    if (check_list(a, list, max, why, n))
        return 1;
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (!json_is_integer(v)) {
            char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
            int bad = refuse(why, n, "%s sample %zu is %.40s, not a whole number of ns", what, i, s ? s : "?");
            free(s);
            return bad;
        }
        json_int_t ns = json_integer_value(v);
        if (ns <= 0 || ns > limit)
            return refuse(why, n, "%s sample %zu is %lld ns: not within 1 ns and the cell's timeout (%lld ns)",
                          what, i, (long long)ns, (long long)limit);
        *sum += ns;
        if (*sum > limit)
            return refuse(why, n, "the samples add up to more than the cell's timeout (%lld ns)", (long long)limit);
        result_add_sample(r, warmup, (int64_t)ns);
    }
    return 0;
}

/* How many samples a status allows. */
static int check_counts(const struct result *r, const struct cell *c, char *why, size_t n)
{
    size_t w = (size_t)c->warmup, t = (size_t)c->steps;
    switch (r->status) {
    case STATUS_OK:
        if (r->nwarmup != w || r->ntimed != t)
            return refuse(why, n, "status ok with %zu warm-up and %zu timed samples, the plan in run.db says %zu and %zu",
                          r->nwarmup, r->ntimed, w, t);
        return 0;
    case STATUS_UNSUPPORTED:
    case STATUS_SKIPPED:
        if (r->nwarmup || r->ntimed)
            return refuse(why, n, "status %s with samples", status_name(r->status));
        return 0;
    default:
        if (r->ntimed > 0 && r->nwarmup != w)
            return refuse(why, n, "timed samples after %zu of %zu warm-up steps", r->nwarmup, w);
        return 0;
    }
}

/* [[name, value], ...], each name and value text within the channel's line. */
static int load_pairs(const json_t *a, const char *what, struct kvlist *kl, bool numeric, char *why, size_t n)
{
    if (check_list(a, what, CELLCHECK_MAX_PAIRS, why, n))
        return 1;
    size_t i;
    json_t *p;
    json_array_foreach(a, i, p)
    {
        const char *k = json_string_value(json_array_get(p, 0)), *v = json_string_value(json_array_get(p, 1));
        if (!json_is_array(p) || json_array_size(p) != 2 || !k || !v)
            return refuse(why, n, "%s entry %zu is not a [name, value] pair of texts", what, i);
        size_t len = json_string_length(json_array_get(p, 0)) + json_string_length(json_array_get(p, 1));
        if (len > CHANNEL_LINE_MAX || strlen(k) + strlen(v) != len)
            return refuse(why, n, "%s entry %zu is %zu bytes long or holds a NUL (the worker channel carries at most %d)",
                          what, i, len, CHANNEL_LINE_MAX);
        if (numeric) {
            char *end = NULL;
            errno = 0;
            long long x = strtoll(v, &end, 10);
            if (end == v || *end || errno || x < 0)
                return refuse(why, n, "%s %.40s is '%.40s', not a whole number of ns", what, k, v);
        }
        kvlist_add(kl, k, v);
    }
    return 0;
}

static int load_telemetry(const json_t *a, struct tseries *s, char *why, size_t n)
{
    if (check_list(a, "telemetry points", CELLCHECK_MAX_POINTS, why, n))
        return 1;
    size_t i;
    json_t *p;
    json_array_foreach(a, i, p)
    {
        const char *name = json_string_value(json_array_get(p, 0));
        json_t *t = json_array_get(p, 1), *v = json_array_get(p, 2);
        if (!name || strlen(name) >= sizeof(s->rows[0].name) || !json_is_integer(t) || !json_is_number(v))
            return refuse(why, n, "telemetry point %zu is not [name, ns, value]", i);
        tseries_add(s, name, (int64_t)json_integer_value(t), json_number_value(v));
    }
    return 0;
}

static int int_field(const json_t *doc, const char *k, long long lo, long long hi, long long *out, char *why,
                     size_t n)
{
    json_t *v = json_object_get(doc, k);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return refuse(why, n, "%s is not a whole number from %lld to %lld", k, lo, hi);
    *out = json_integer_value(v);
    return 0;
}

/* Status, detail and the numbers every result has. */
static int load_common(const json_t *doc, struct result *r, char *why, size_t n)
{
    const char *status = text(doc, "status"), *detail = text(doc, "detail"), *sha = text(doc, "input_sha256");
    int s = status ? status_parse(status) : -1;
    if (s <= STATUS_NONE || s >= STATUS_COUNT)
        return refuse(why, n, "status %.40s is not a final status", status ? status : "(none)");
    r->status = (enum status)s;
    json_t *d = json_object_get(doc, "detail");
    if (!json_is_null(d) && !detail)
        return refuse(why, n, "detail is not a text");
    if (detail && (json_string_length(d) > MAX_DETAIL || strlen(detail) != json_string_length(d)))
        return refuse(why, n, "detail is %zu bytes or holds a NUL (the worker channel carries at most %d)",
                      json_string_length(d), CHANNEL_LINE_MAX);
    r->detail = detail ? xstrdup(detail) : NULL;
    if (!sha || (*sha && (strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)))
        return refuse(why, n, "input_sha256 is not a SHA-256");
    memcpy(r->input_sha256, sha, strlen(sha) + 1);
    long long v;
    if (int_field(doc, "input_bytes", 0, INT64_MAX, &v, why, n))
        return 1;
    r->input_bytes = v;
    if (int_field(doc, "started", 0, INT64_MAX, &v, why, n))
        return 1;
    r->started = (time_t)v;
    if (int_field(doc, "finished", 0, INT64_MAX, &v, why, n))
        return 1;
    r->finished = (time_t)v;
    if (int_field(doc, "peak_rss", 0, INT64_MAX, &v, why, n))
        return 1;
    r->peak_rss = v;
    if (int_field(doc, "exit_code", -1, 255, &v, why, n))
        return 1;
    r->exit_code = (int)v;
    if (int_field(doc, "term_signal", 0, 64, &v, why, n))
        return 1;
    r->term_signal = (int)v;
    json_t *wall = json_object_get(doc, "wall_s");
    if (!json_is_number(wall) || !isfinite(json_number_value(wall)) || json_number_value(wall) < 0)
        return refuse(why, n, "wall_s is not a duration");
    r->wall_s = json_number_value(wall);
    return 0;
}

static int check_body(const json_t *doc, const struct cell *c, bool verdict, struct result *r, char *why,
                      size_t n)
{
    if (load_common(doc, r, why, n))
        return 1;
    bool failing = r->status == STATUS_TIMEOUT || r->status == STATUS_OOM || r->status == STATUS_CRASH ||
                   r->status == STATUS_ERROR || r->status == STATUS_INTERRUPTED;
    if (verdict && !failing)
        return refuse(why, n, "a verdict of the submitting side says %s; it can only say a task failed",
                      status_name(r->status));
    int64_t limit = c->timeout > 0 && c->timeout < 1e6 ? (int64_t)(c->timeout * 1e9) : NO_TIMEOUT_NS, sum = 0;
    if (load_samples(json_object_get(doc, "warmup_ns"), "warm-up", r, 1, limit, &sum, (size_t)c->warmup, why, n) ||
        load_samples(json_object_get(doc, "timed_ns"), "timed", r, 0, limit, &sum, (size_t)c->steps, why, n) ||
        check_counts(r, c, why, n) ||
        load_pairs(json_object_get(doc, "phases"), "markers", &r->phases, true, why, n) ||
        load_pairs(json_object_get(doc, "facts"), "facts", &r->facts, false, why, n) ||
        load_pairs(json_object_get(doc, "env"), "environment", &r->env, false, why, n) ||
        load_telemetry(json_object_get(doc, "telemetry"), &r->telemetry, why, n))
        return 1;
    if (verdict) {
        if (r->nwarmup || r->ntimed || r->phases.n || r->facts.n || r->telemetry.n)
            return refuse(why, n, "a verdict of the submitting side carries samples, markers, facts or telemetry");
    }
    return 0;
}

int cellcheck_attempt(const json_t *doc, const char *name, const struct cell *c,
                      const struct store_issued_list *issued, struct cellcheck_attempt *out, char *why, size_t n)
{
    memset(out, 0, sizeof(*out));
    const char *fmt = text(doc, "format"), *key = text(doc, "key"), *tag = text(doc, "tag");
    json_t *id = json_object_get(doc, "id"), *verdict = json_object_get(doc, "verdict");
    if (!json_is_object(doc) || !fmt || strcmp(fmt, CELLCHECK_FORMAT) != 0)
        return refuse(why, n, "not a %s document%s", CELLCHECK_FORMAT,
                      fmt && strcmp(fmt, "benchgen-attempt/1") == 0 ? " (an unsigned result of an older benchgen)" : "");
    if (!json_is_integer(id) || json_integer_value(id) != c->id || !key || strcmp(key, c->key) != 0)
        return refuse(why, n, "it holds cell %lld (%.80s), this is cell %d (%s)", (long long)json_integer_value(id),
                      key ? key : "?", c->id, c->key);
    if (!json_is_boolean(verdict))
        return refuse(why, n, "verdict is not true or false");
    out->verdict = json_is_true(verdict);
    if (!tag || !util_is_safe_name(tag) || strlen(tag) > 96)
        return refuse(why, n, "its attempt tag is not a plain name");
    int row = match_issue(issued, tag, out->verdict, &out->seq, &out->restart);
    if (row < 0)
        return refuse(why, n, "attempt %s was never issued for cell %d (run.db)", tag, c->id);
    if (!out->verdict) {
        const char *sig = text(doc, "signature");
        char *msg = cellcheck_signed_text(doc);
        int good = sig && msg && cellkey_verify(issued->v[row].pub, sig, msg, strlen(msg));
        free(msg);
        if (!good)
            return refuse(why, n, "its signature is not that of attempt %s's key: not written by that attempt, or "
                          "changed since", tag);
    }
    char *want = xprintf("%s%s.json", tag, out->verdict ? ".slurm" : "");
    bool named = strcmp(want, name) == 0;
    free(want);
    if (!named)
        return refuse(why, n, "a copy: it is attempt %s's result, whose file is %s%s.json", tag, tag,
                      out->verdict ? ".slurm" : "");
    if (!out->verdict) {
        if (check_plan(json_object_get(doc, "plan"), c, why, n))
            return 1;
    } else if (issued->v[row].tag[strlen(issued->v[row].tag) - 1] != '.') {
        return refuse(why, n, "a verdict on attempt %s, which was not a Slurm task", tag);
    }
    if (check_body(doc, c, out->verdict, &out->r, why, n)) {
        result_free(&out->r);
        memset(&out->r, 0, sizeof(out->r));
        return 1;
    }
    out->tag = xstrdup(tag);
    return 0;
}

void cellcheck_attempt_free(struct cellcheck_attempt *a)
{
    free(a->tag);
    result_free(&a->r);
    memset(a, 0, sizeof(*a));
}
