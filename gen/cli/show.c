/*
 * show.c - `benchgen show RUN_DIR [--json]` (see show.h; the JSON form,
 * "benchgen-run/1", is documented field by field in docs/RUN-FORMAT.md).
 *
 * The JSON is meant to be diffed and parsed by scripts, so it is stable byte
 * for byte: keys sorted, two-space indent, reals with 15 significant digits
 * (enough for ns resolution, short enough that 12.7 prints as 12.7), and
 * never NaN or Infinity (null instead, which JSON can represent).
 */
#include "cli/show.h"
#include "plan/catalog.h"
#include "base/error.h"
#include "store/rundata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define SHOW_JSON_FORMAT "benchgen-run/1"
#define SHOW_HASH_CHARS 12

/* ---- JSON helpers ------------------------------------------------------- */

/* Length of the UTF-8 sequence a lead byte starts; 0 when it cannot lead. */
static size_t utf8_len_(unsigned c)
{
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0)
        return 2;
    if ((c & 0xf0) == 0xe0)
        return 3;
    if ((c & 0xf8) == 0xf0)
        return 4;
    return 0;
}

/* Copy of s with every invalid UTF-8 sequence replaced by U+FFFD: tracebacks
 * and environment values are not guaranteed to be UTF-8, jansson requires it. */
static char *utf8_clean_(const char *s)
{
    struct strbuf sb = {0};
    const unsigned char *p = (const unsigned char *)s;
    int err = 0;
    while (!err && *p) {
        unsigned c = p[0];
        size_t len = utf8_len_(c);
        bool ok = len > 0;
        uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
        for (size_t i = 1; ok && i < len; i++) {
            if ((p[i] & 0xc0) != 0x80)
                ok = false;
            else
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (ok && ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
                   cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)))
            ok = false;
        if (ok) {
            err = strbuf_append(&sb, (const char *)p, len);
            p += len;
        } else {
            err = strbuf_puts(&sb, "\xef\xbf\xbd");
            p++;
        }
    }
    if (err) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

/* A JSON string, cleaned when not UTF-8; null for NULL. NULL only on ENOMEM. */
static json_t *jstr_(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    char *clean = utf8_clean_(s);
    j = clean ? json_string(clean) : NULL;
    free(clean);
    return j;
}

static json_t *jreal_(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* Sets o[key] = v, stealing v; *err set on any failure (v NULL included).
 * Keys go through utf8_clean_() too: an environment variable's name need not
 * be UTF-8, and jansson refuses such a key. */
static void set_(json_t *o, const char *key, json_t *v, int *err)
{
    char *k = (*err || !v) ? NULL : utf8_clean_(key);
    int rc = -1;
    if (k)
        rc = json_object_set_new(o, k, v); /* consumes v, even on failure */
    else
        json_decref(v);
    free(k);
    if (rc != 0 && !*err)
        *err = error_set(BG_ENOMEM, "show: cannot build JSON (out of memory)");
}

/* {key: value} of a kvlist; a repeated key keeps its last value. */
static json_t *jmap_(const struct kvlist *kl, int *err)
{
    json_t *o = json_object();
    if (!o) {
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; !*err && i < kl->n; i++)
        set_(o, kl->items[i].key, jstr_(kl->items[i].value), err);
    return o;
}

/* Markers as integers: ns since the worker started. */
static json_t *jmarkers_(const struct kvlist *kl, int *err)
{
    json_t *o = json_object();
    if (!o) {
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    for (size_t i = 0; !*err && i < kl->n; i++) {
        char *end = NULL;
        long long ns = strtoll(kl->items[i].value, &end, 10);
        set_(o, kl->items[i].key, *end ? jstr_(kl->items[i].value) : json_integer(ns), err);
    }
    return o;
}

static json_t *jstats_(const struct stats *st, int *err)
{
    if (st->n == 0)
        return json_null();
    json_t *o = json_object();
    if (!o) {
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    set_(o, "mean_ms", jreal_(st->mean), err);
    set_(o, "median_ms", jreal_(st->median), err);
    set_(o, "p5_ms", jreal_(st->p5), err);
    set_(o, "p95_ms", jreal_(st->p95), err);
    set_(o, "stdev_ms", jreal_(st->stdev), err);
    set_(o, "min_ms", jreal_(st->min), err);
    set_(o, "max_ms", jreal_(st->max), err);
    set_(o, "cv", jreal_(st->cv), err);
    set_(o, "ci95_ms", json_pack("[oo]", jreal_(st->ci_lo), jreal_(st->ci_hi)), err);
    set_(o, "outliers", json_integer((json_int_t)st->outliers), err);
    set_(o, "first_is_outlier", json_boolean(st->first_is_outlier), err);
    return o;
}

static json_t *jcell_(const struct rd_cell *c, int *err)
{
    json_t *o = json_object();
    if (!o) {
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    bool done = c->status != NULL; /* result fields mean nothing before a final status */
    set_(o, "id", json_integer(c->id), err);
    set_(o, "key", jstr_(c->key), err);
    set_(o, "model", jstr_(c->model), err);
    set_(o, "task", jstr_(c->task), err);
    set_(o, "batch", json_integer(c->batch), err);
    set_(o, "backend", jstr_(c->backend), err);
    set_(o, "size", jstr_(c->size), err);
    set_(o, "precision", jstr_(c->precision), err);
    set_(o, "env", jstr_(c->env), err);
    set_(o, "workload", jstr_(c->workload), err);
    set_(o, "steps", json_integer(c->steps), err);
    set_(o, "warmup", json_integer(c->warmup), err);
    set_(o, "repeat", json_integer(c->repeat), err);
    set_(o, "seed", json_integer((json_int_t)c->seed), err);
    set_(o, "timeout_s", jreal_(c->timeout_s), err);
    set_(o, "memory_limit_bytes", json_integer(c->memory_limit), err);
    set_(o, "status", jstr_(c->status), err);
    set_(o, "detail", jstr_(c->detail), err);
    set_(o, "input_sha256", jstr_(c->input_sha256), err);
    set_(o, "input_bytes", done ? json_integer(c->input_bytes) : json_null(), err);
    set_(o, "started_utc", jstr_(c->started_utc), err);
    set_(o, "finished_utc", jstr_(c->finished_utc), err);
    set_(o, "wall_s", done ? jreal_(c->wall_s) : json_null(), err);
    set_(o, "peak_rss_bytes", done ? json_integer(c->peak_rss) : json_null(), err);
    set_(o, "exit_code", done ? json_integer(c->exit_code) : json_null(), err);
    set_(o, "term_signal", done ? json_integer(c->term_signal) : json_null(), err);
    set_(o, "log_path", jstr_(c->log_path), err);
    set_(o, "attempts", json_integer(c->attempts), err);
    set_(o, "samples",
         json_pack("{sIsI}", "timed", (json_int_t)c->ntimed, "warmup", (json_int_t)c->nwarmup), err);
    set_(o, "compile_ms", c->nwarmup ? jreal_((double)c->warmup_ns[0] / 1e6) : json_null(), err);
    set_(o, "stats", jstats_(&c->st, err), err);
    set_(o, "facts", jmap_(&c->facts, err), err);
    set_(o, "markers", jmarkers_(&c->markers, err), err);
    set_(o, "environment", jmap_(&c->environment, err), err);
    return o;
}

static json_t *jrun_(const struct rundata *rd, int *err)
{
    json_t *o = json_object();
    if (!o) {
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    set_(o, "name", jstr_(rd->name), err);
    set_(o, "description", jstr_(rd->description), err);
    set_(o, "spec_path", jstr_(rd->spec_path), err);
    set_(o, "spec_sha256", jstr_(rd->spec_sha256), err);
    set_(o, "spec_text", jstr_(rd->spec_text), err);
    set_(o, "size", jstr_(rd->size), err);
    set_(o, "precision", jstr_(rd->precision), err);
    set_(o, "seed", json_integer((json_int_t)rd->seed), err);
    set_(o, "created_utc", jstr_(rd->created_utc), err);
    set_(o, "started_utc", jstr_(rd->started_utc), err);
    set_(o, "finished_utc", jstr_(rd->finished_utc), err);
    set_(o, "command_line", jstr_(rd->command_line), err);
    set_(o, "benchgen_version", jstr_(rd->benchgen_version), err);
    set_(o, "git_commit", jstr_(rd->git_commit), err);
    set_(o, "git_dirty", json_boolean(rd->git_dirty), err);
    set_(o, "environment", jmap_(&rd->env, err), err);
    return o;
}

static int show_json_(const struct rundata *rd, FILE *out)
{
    int err = 0;
    json_t *root = json_object(), *cells = json_array();
    if (!root || !cells) {
        json_decref(cells);
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    set_(root, "format", json_string(SHOW_JSON_FORMAT), &err);
    set_(root, "run", jrun_(rd, &err), &err);
    set_(root, "cells", cells, &err);
    for (size_t i = 0; !err && i < rd->ncells; i++) {
        json_t *c = jcell_(&rd->cells[i], &err);
        if (!c || json_array_append_new(cells, c) != 0)
            err = err ? err : error_set(BG_ENOMEM, "out of memory");
    }
    if (err)
        goto done;
    if (json_dumpf(root, out, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) != 0 ||
        fputc('\n', out) == EOF)
        err = error_set(BG_EIO, "show: write failed");
done:
    json_decref(root);
    return err;
}

/* ---- text --------------------------------------------------------------- */

static void fmt_ms_(char *buf, size_t n, double ms)
{
    if (isfinite(ms))
        snprintf(buf, n, "%.3f", ms);
    else
        snprintf(buf, n, "-");
}

static void show_header_(const struct rundata *rd, FILE *out)
{
    fprintf(out, "run       %s\n", rd->name);
    if (rd->description[0])
        fprintf(out, "          %s\n", rd->description);
    fprintf(out, "spec      %s (sha256 %.*s)\n", rd->spec_path, SHOW_HASH_CHARS, rd->spec_sha256);
    fprintf(out, "settings  size %s, precision %s, seed %llu\n", rd->size, rd->precision,
            (unsigned long long)rd->seed);
    fprintf(out, "created   %s   started %s   finished %s\n", rd->created_utc,
            rd->started_utc ? rd->started_utc : "-", rd->finished_utc ? rd->finished_utc : "-");
    fprintf(out, "benchgen  %s (commit %s%s)\n", rd->benchgen_version, rd->git_commit,
            rd->git_dirty ? ", dirty" : "");

    size_t pending = 0, other = 0, known = 0;
    for (size_t i = 0; i < rd->ncells; i++)
        pending += rd->cells[i].status == NULL;
    fprintf(out, "cells     %zu:", rd->ncells);
    const char *sep = " ";
    for (size_t s = 0; catalog_statuses[s]; s++) {
        size_t n = 0;
        for (size_t i = 0; i < rd->ncells; i++)
            n += rd->cells[i].status && strcmp(rd->cells[i].status, catalog_statuses[s]) == 0;
        if (n) {
            fprintf(out, "%s%zu %s", sep, n, catalog_statuses[s]);
            sep = ", ";
        }
        known += n;
    }
    other = rd->ncells - pending - known;
    if (other) {
        fprintf(out, "%s%zu other", sep, other);
        sep = ", ";
    }
    if (pending)
        fprintf(out, "%s%zu pending", sep, pending);
    fputc('\n', out);
}

/* Which interpreters and containment the cells ran with (one line per
 * distinct combination), and every cell whose log was cut. */
static void show_workers_(const struct rundata *rd, FILE *out)
{
    struct strlist seen = {0};
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        const char *ver = kvlist_get(&c->environment, "python.version");
        const char *exe = kvlist_get(&c->environment, "python.executable");
        const char *how = kvlist_get(&c->environment, "worker.containment");
        if (!ver && !how)
            continue;
        char *line = util_printf("python %s (%s), containment %s", ver ? ver : "?", exe ? exe : "?",
                                 how ? how : "?");
        if (line && !strlist_contains(&seen, line)) {
            size_t n = 0;
            for (size_t j = 0; j < rd->ncells; j++) {
                const struct kvlist *e = &rd->cells[j].environment;
                const char *v2 = kvlist_get(e, "python.version"), *x2 = kvlist_get(e, "python.executable"),
                           *h2 = kvlist_get(e, "worker.containment");
                n += (v2 || h2) && !strcmp(v2 ? v2 : "?", ver ? ver : "?") && !strcmp(x2 ? x2 : "?", exe ? exe : "?") &&
                     !strcmp(h2 ? h2 : "?", how ? how : "?");
            }
            fprintf(out, "%s %s: %zu cell(s)\n", seen.n ? "        " : "\nworkers ", line, n);
            strlist_add(&seen, line);
        }
        free(line);
    }
    strlist_free(&seen);
    for (size_t i = 0; i < rd->ncells; i++) {
        const char *dropped = kvlist_get(&rd->cells[i].facts, "log.dropped_bytes");
        if (dropped)
            fprintf(out, "log     %s: %s bytes of output dropped (head and tail kept in %s)\n", rd->cells[i].key,
                    dropped, rd->cells[i].log_path ? rd->cells[i].log_path : "its log");
    }
}

static int show_text_(const struct rundata *rd, FILE *out)
{
    show_header_(rd, out);
    if (rd->ncells == 0)
        goto done;

    int wkey = 3, wsamples = 7;
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        char buf[64];
        int n = (int)strlen(c->key);
        wkey = n > wkey ? n : wkey;
        n = snprintf(buf, sizeof(buf), "%zu/%zu", c->ntimed, c->nwarmup);
        wsamples = n > wsamples ? n : wsamples;
    }
    fprintf(out, "\n%-*s  %-11s  %-12s  %*s  %10s  %10s  %10s  %10s  %6s  %10s\n", wkey, "KEY", "STATUS",
            "INPUT", wsamples, "SAMPLES", "MEAN_MS", "MEDIAN_MS", "P5_MS", "P95_MS", "CV_%", "COMPILE_MS");
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        char samples[64], mean[32], median[32], p5[32], p95[32], cv[32], compile[32];
        if (!c->status) {
            fprintf(out, "%-*s  %s\n", wkey, c->key, "pending");
            continue;
        }
        snprintf(samples, sizeof(samples), "%zu/%zu", c->ntimed, c->nwarmup);
        fmt_ms_(mean, sizeof(mean), c->st.mean);
        fmt_ms_(median, sizeof(median), c->st.median);
        fmt_ms_(p5, sizeof(p5), c->st.p5);
        fmt_ms_(p95, sizeof(p95), c->st.p95);
        if (isfinite(c->st.cv))
            snprintf(cv, sizeof(cv), "%.1f", c->st.cv * 100.0);
        else
            snprintf(cv, sizeof(cv), "-");
        fmt_ms_(compile, sizeof(compile), c->nwarmup ? (double)c->warmup_ns[0] / 1e6 : NAN);
        fprintf(out, "%-*s  %-11s  %-12.*s  %*s  %10s  %10s  %10s  %10s  %6s  %10s\n", wkey, c->key,
                c->status, SHOW_HASH_CHARS, c->input_sha256 ? c->input_sha256 : "-", wsamples, samples, mean,
                median, p5, p95, cv, compile);
    }
    show_workers_(rd, out);
done:
    if (fflush(out) != 0 || ferror(out))
        return error_set(BG_EIO, "show: write failed");
    return 0;
}

int show_run(const char *run_dir, bool json, FILE *out)
{
    struct rundata *rd = NULL;
    int err = rundata_load(&rd, run_dir);
    if (err < 0)
        return err;
    err = json ? show_json_(rd, out) : show_text_(rd, out);
    rundata_free(rd);
    return err;
}
