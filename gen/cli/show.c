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
#include "base/json.h"
#include "stats/stats_json.h"
#include "plan/catalog.h"
#include "plan/status.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/xalloc.h"
#include "store/rundata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define SHOW_JSON_FORMAT "benchgen-run/1"
#define SHOW_HASH_CHARS 12

/* ---- JSON helpers ------------------------------------------------------- */

/* Markers as integers: ns since the worker started. */
static json_t *jmarkers_(const struct kvlist *kl, int *err)
{
    json_t *o = json_object(); /* NULL: the caller's json_put() records the failure */
    for (size_t i = 0; !*err && i < kl->n; i++) {
        char *end = NULL;
        long long ns = strtoll(kl->items[i].value, &end, 10);
        json_put(o, kl->items[i].key, *end ? json_str(kl->items[i].value) : json_integer(ns), err);
    }
    return o;
}

static json_t *jcell_(const struct rd_cell *c, int *err)
{
    json_t *o = json_object(); /* NULL: the caller's json_put() records the failure */
    const struct result *r = &c->result;
    char started[32], finished[32];
    bool done = r->status != STATUS_NONE; /* result fields mean nothing before a final status */
    json_put(o, "id", json_integer(c->cell.id), err);
    json_put(o, "key", json_str(c->cell.key), err);
    json_put(o, "model", json_str(c->cell.model), err);
    json_put(o, "task", json_str(c->cell.task), err);
    json_put(o, "batch", json_integer(c->cell.batch), err);
    json_put(o, "backend", json_str(c->cell.backend), err);
    json_put(o, "size", json_str(c->cell.size), err);
    json_put(o, "precision", json_str(c->cell.precision), err);
    json_put(o, "env", json_str(c->cell.env), err);
    json_put(o, "workload", json_str(c->cell.workload), err);
    json_put(o, "steps", json_integer(c->cell.steps), err);
    json_put(o, "warmup", json_integer(c->cell.warmup), err);
    json_put(o, "repeat", json_integer(c->cell.repeat), err);
    json_put(o, "seed", json_integer((json_int_t)c->cell.seed), err);
    json_put(o, "timeout_s", json_num(c->cell.timeout), err);
    json_put(o, "memory_limit_bytes", json_integer((json_int_t)c->cell.memory_limit), err);
    json_put(o, "device", json_str(c->cell.device ? c->cell.device : "auto"), err);
    json_put(o, "status", json_str(r->status ? status_name(r->status) : NULL), err);
    json_put(o, "detail", json_str(r->detail), err);
    json_put(o, "input_sha256", json_str(r->input_sha256[0] ? r->input_sha256 : NULL), err);
    json_put(o, "input_bytes", done ? json_integer(r->input_bytes) : json_null(), err);
    json_put(o, "started_utc", json_str(util_utc_or_null(started, r->started)), err);
    json_put(o, "finished_utc", json_str(util_utc_or_null(finished, r->finished)), err);
    json_put(o, "wall_s", done ? json_num(r->wall_s) : json_null(), err);
    json_put(o, "peak_rss_bytes", done ? json_integer(r->peak_rss) : json_null(), err);
    json_put(o, "exit_code", done ? json_integer(r->exit_code) : json_null(), err);
    json_put(o, "term_signal", done ? json_integer(r->term_signal) : json_null(), err);
    json_put(o, "log_path", json_str(c->log_path), err);
    json_put(o, "attempts", json_integer(c->attempts), err);
    json_put(o, "samples",
         json_pack("{sIsI}", "timed", (json_int_t)r->ntimed, "warmup", (json_int_t)r->nwarmup), err);
    json_put(o, "compile_ms", json_num(result_compile_ms(r)), err); /* null: none, or a warm compile cache */
    const char *cache = kvlist_get(&r->facts, "compile.cache");
    if (cache) { /* cold or warm (runners/worker.h), and the first call whatever it was */
        json_put(o, "compile_cache", json_str(cache), err);
        json_put(o, "first_call_ms", r->nwarmup ? json_num((double)r->warmup_ns[0] / 1e6) : json_null(), err);
    }
    json_put(o, "stats", stats_json(&c->st, err), err);
    json_put(o, "facts", json_kvmap(&r->facts, err), err);
    json_put(o, "markers", jmarkers_(&r->phases, err), err);
    json_put(o, "environment", json_kvmap(&r->env, err), err);
    return o;
}

static json_t *jrun_(const struct rundata *rd, int *err)
{
    json_t *o = json_object(); /* NULL: the caller's json_put() records the failure */
    json_put(o, "name", json_str(rd->name), err);
    json_put(o, "description", json_str(rd->description), err);
    json_put(o, "spec_path", json_str(rd->spec_path), err);
    json_put(o, "spec_sha256", json_str(rd->spec_sha256), err);
    json_put(o, "spec_text", json_str(rd->spec_text), err);
    json_put(o, "size", json_str(rd->size), err);
    json_put(o, "precision", json_str(rd->precision), err);
    json_put(o, "seed", json_integer((json_int_t)rd->seed), err);
    json_put(o, "created_utc", json_str(rd->created_utc), err);
    json_put(o, "started_utc", json_str(rd->started_utc), err);
    json_put(o, "finished_utc", json_str(rd->finished_utc), err);
    json_put(o, "command_line", json_str(rd->command_line), err);
    json_put(o, "benchgen_version", json_str(rd->benchgen_version), err);
    json_put(o, "git_commit", json_str(rd->git_commit), err);
    json_put(o, "git_dirty", json_boolean(rd->git_dirty), err);
    json_put(o, "environment", json_kvmap(&rd->env, err), err);
    return o;
}

static int show_json_(const struct rundata *rd, FILE *out)
{
    int err = 0;
    json_t *root = json_object(), *cells = json_array(); /* NULL: json_put() records it */
    json_put(root, "format", json_string(SHOW_JSON_FORMAT), &err);
    json_put(root, "run", jrun_(rd, &err), &err);
    json_put(root, "cells", cells, &err);
    for (size_t i = 0; !err && i < rd->ncells; i++)
        json_push(cells, jcell_(&rd->cells[i], &err), &err);
    if (err)
        goto done;
    err = json_write(root, out);
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

/* Every stored string is someone else's text: printed escaped for the
 * terminal (escape.h), so a description cannot fake a line or send terminal
 * commands. The copies live in keep until the output is written. */
static const char *tx_(struct strlist *keep, const char *s) { return escape_terminal_keep(keep, s); }

static void show_header_(const struct rundata *rd, FILE *out, struct strlist *k)
{
    fprintf(out, "run       %s\n", tx_(k, rd->name));
    if (rd->description[0])
        fprintf(out, "          %s\n", tx_(k, rd->description));
    fprintf(out, "spec      %s (sha256 %.*s)\n", tx_(k, rd->spec_path), SHOW_HASH_CHARS, tx_(k, rd->spec_sha256));
    fprintf(out, "settings  size %s, precision %s, seed %llu\n", tx_(k, rd->size), tx_(k, rd->precision),
            (unsigned long long)rd->seed);
    fprintf(out, "created   %s   started %s   finished %s\n", tx_(k, rd->created_utc),
            rd->started_utc ? tx_(k, rd->started_utc) : "-", rd->finished_utc ? tx_(k, rd->finished_utc) : "-");
    fprintf(out, "benchgen  %s (commit %s%s)\n", tx_(k, rd->benchgen_version), tx_(k, rd->git_commit),
            rd->git_dirty ? ", dirty" : "");

    size_t pending = 0, other = 0, known = 0;
    for (size_t i = 0; i < rd->ncells; i++)
        pending += rd->cells[i].result.status == STATUS_NONE;
    fprintf(out, "cells     %zu:", rd->ncells);
    const char *sep = " ";
    for (int s = STATUS_NONE + 1; s < STATUS_COUNT; s++) {
        size_t n = 0;
        for (size_t i = 0; i < rd->ncells; i++)
            n += (int)rd->cells[i].result.status == s;
        if (n) {
            fprintf(out, "%s%zu %s", sep, n, status_name((enum status)s));
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
static void show_workers_(const struct rundata *rd, FILE *out, struct strlist *k)
{
    struct strlist seen = {0};
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        const char *ver = kvlist_get(&c->result.env, "python.version");
        const char *exe = kvlist_get(&c->result.env, "python.executable");
        const char *how = kvlist_get(&c->result.env, "worker.containment");
        if (!ver && !how)
            continue;
        char *line = util_printf("python %s (%s), containment %s", ver ? ver : "?", exe ? exe : "?",
                                 how ? how : "?");
        if (line && !strlist_contains(&seen, line)) {
            size_t n = 0;
            for (size_t j = 0; j < rd->ncells; j++) {
                const struct kvlist *e = &rd->cells[j].result.env;
                const char *v2 = kvlist_get(e, "python.version"), *x2 = kvlist_get(e, "python.executable"),
                           *h2 = kvlist_get(e, "worker.containment");
                n += (v2 || h2) && !strcmp(v2 ? v2 : "?", ver ? ver : "?") && !strcmp(x2 ? x2 : "?", exe ? exe : "?") &&
                     !strcmp(h2 ? h2 : "?", how ? how : "?");
            }
            fprintf(out, "%s %s: %zu cell(s)\n", seen.n ? "        " : "\nworkers ", tx_(k, line), n);
            strlist_add(&seen, line);
        }
        free(line);
    }
    strlist_free(&seen);
    for (size_t i = 0; i < rd->ncells; i++) {
        const char *dropped = kvlist_get(&rd->cells[i].result.facts, "log.dropped_bytes");
        if (dropped)
            fprintf(out, "log     %s: %s bytes of output dropped (head and tail kept in %s)\n",
                    tx_(k, rd->cells[i].cell.key), tx_(k, dropped),
                    rd->cells[i].log_path ? tx_(k, rd->cells[i].log_path) : "its log");
    }
}

/* Cells measured under contention or on a throttled GPU (facts written by
 * machine/telemetry.c; runs made before it have none and print nothing). */
static void show_flags_(const struct rundata *rd, FILE *out, int wkey, struct strlist *k)
{
    bool any = false;
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        const char *cont = kvlist_get(&c->result.facts, "contention");
        const char *thr = kvlist_get(&c->result.facts, "gpu.throttled");
        bool contended = cont && !strcmp(cont, "yes"), throttled = thr && !strcmp(thr, "yes");
        if (!contended && !throttled)
            continue;
        if (!any)
            fputs("\nflags\n", out);
        any = true;
        if (contended) {
            const char *why = kvlist_get(&c->result.facts, "contention.reason");
            fprintf(out, "%-*s  contended: %s\n", wkey, tx_(k, c->cell.key), tx_(k, why ? why : "yes"));
        }
        if (throttled) {
            const char *share = kvlist_get(&c->result.facts, "gpu.throttled.share");
            const char *why = kvlist_get(&c->result.facts, "gpu.throttle.reasons");
            fprintf(out, "%-*s  GPU throttled %.0f%% of the timed steps (%s)\n", wkey, tx_(k, c->cell.key),
                    share ? atof(share) * 100 : 0.0, tx_(k, why ? why : "reason unknown"));
        }
    }
}

/* Every cell that failed (error, crash, timeout, oom): the first line of
 * its reason (for a Python exception "what failed: Type: message") and
 * where its log is. */
static void show_failures_(const struct rundata *rd, FILE *out, int wkey, struct strlist *k)
{
    bool any = false;
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        enum status st = c->result.status;
        if (st != STATUS_ERROR && st != STATUS_CRASH && st != STATUS_TIMEOUT && st != STATUS_OOM)
            continue;
        if (!any)
            fputs("\nfailures\n", out);
        any = true;
        const char *d = c->result.detail ? c->result.detail : "no reason recorded";
        const char *nl = strchr(d, '\n');
        char *first = xstrndup(d, nl ? (size_t)(nl - d) : strlen(d));
        fprintf(out, "%-*s  %s: %s\n", wkey, tx_(k, c->cell.key), tx_(k, status_name(st)), tx_(k, first));
        fprintf(out, "%-*s  log: %s\n", wkey, "", c->log_path ? tx_(k, c->log_path) : "none recorded");
        free(first);
    }
}

static const char *device_(const struct rd_cell *c)
{
    const char *d = result_device(&c->result);
    return d ? d : "-";
}

static int show_text_(const struct rundata *rd, FILE *out)
{
    struct strlist k = {0};
    show_header_(rd, out, &k);
    if (rd->ncells == 0)
        goto done;

    int wkey = 3, wsamples = 7;
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        char buf[64];
        int n = (int)strlen(tx_(&k, c->cell.key));
        wkey = n > wkey ? n : wkey;
        n = snprintf(buf, sizeof(buf), "%zu/%zu", c->result.ntimed, c->result.nwarmup);
        wsamples = n > wsamples ? n : wsamples;
    }
    fprintf(out, "\n%-*s  %-11s  %-7s  %-12s  %*s  %10s  %10s  %10s  %10s  %6s  %10s\n", wkey, "KEY", "STATUS",
            "DEVICE", "INPUT", wsamples, "SAMPLES", "MEAN_MS", "MEDIAN_MS", "P5_MS", "P95_MS", "CV_%", "COMPILE_MS");
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        char samples[64], mean[32], median[32], p5[32], p95[32], cv[32], compile[32];
        if (!c->result.status) {
            fprintf(out, "%-*s  %s\n", wkey, tx_(&k, c->cell.key), "pending");
            continue;
        }
        snprintf(samples, sizeof(samples), "%zu/%zu", c->result.ntimed, c->result.nwarmup);
        fmt_ms_(mean, sizeof(mean), c->st.mean);
        fmt_ms_(median, sizeof(median), c->st.median);
        fmt_ms_(p5, sizeof(p5), c->st.p5);
        fmt_ms_(p95, sizeof(p95), c->st.p95);
        if (isfinite(c->st.cv))
            snprintf(cv, sizeof(cv), "%.1f", c->st.cv * 100.0);
        else
            snprintf(cv, sizeof(cv), "-");
        if (c->result.nwarmup && result_warm_cache(&c->result)) /* an A/B arm's later process */
            snprintf(compile, sizeof(compile), "warm");
        else
            fmt_ms_(compile, sizeof(compile), result_compile_ms(&c->result));
        fprintf(out, "%-*s  %-11s  %-7s  %-12.*s  %*s  %10s  %10s  %10s  %10s  %6s  %10s\n", wkey,
                tx_(&k, c->cell.key), tx_(&k, status_name(c->result.status)), tx_(&k, device_(c)), SHOW_HASH_CHARS,
                c->result.input_sha256[0] ? tx_(&k, c->result.input_sha256) : "-", wsamples, samples, mean, median, p5,
                p95, cv, compile);
    }
    show_failures_(rd, out, wkey, &k);
    show_workers_(rd, out, &k);
    show_flags_(rd, out, wkey, &k);
done:
    strlist_free(&k);
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
