/*
 * report_json.c - report.json and summary.csv (see report_json.h).
 */
#include "report/report_json.h"
#include "base/error.h"
#include "base/json.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "report/answer.h"
#include "report/methods.h"
#include "report/throughput.h"
#include "stats/stats_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* {unit, per_step, mean, ci95}: work per second at the mean ms/step and at
 * the ends of its interval (the slower end first). */
static json_t *jthroughput(const struct throughput *tp, const struct stats *st, int ok, int *err)
{
    json_t *o = json_object();
    json_put(o, "unit", json_str(tp->unit), err);
    json_put(o, "per_step", json_num(tp->per_step), err);
    json_put(o, "mean", json_num(ok ? throughput_rate(tp, st->mean) : NAN), err);
    json_put(o, "ci95",
             ok ? json_pack("[oo]", json_num(throughput_rate(tp, st->ci_hi)), json_num(throughput_rate(tp, st->ci_lo)))
                : json_null(),
             err);
    return o;
}

static json_t *jcell(const struct rd_cell *c, int *err)
{
    int ok = c->result.status == STATUS_OK && c->st.n > 0;
    struct throughput tp;
    throughput_of(&tp, c->cell.model, c->cell.task, c->cell.batch, c);
    json_t *o = json_object();
    json_put(o, "key", json_str(c->cell.key), err);
    json_put(o, "model", json_str(c->cell.model), err);
    json_put(o, "task", json_str(c->cell.task), err);
    json_put(o, "batch", json_integer(c->cell.batch), err);
    json_put(o, "backend", json_str(c->cell.backend), err);
    json_put(o, "repeat", json_integer(c->cell.repeat), err);
    json_put(o, "size", json_str(c->cell.size), err);
    json_put(o, "precision", json_str(c->cell.precision), err);
    json_put(o, "env", json_str(c->cell.env), err);
    json_put(o, "steps", json_integer(c->cell.steps), err);
    json_put(o, "warmup", json_integer(c->cell.warmup), err);
    json_put(o, "status", json_str(c->result.status ? status_name(c->result.status) : NULL), err);
    json_put(o, "compile_ms", json_num(result_compile_ms(&c->result)), err); /* null: none, or a warm cache */
    const char *cache = kvlist_get(&c->result.facts, "compile.cache");
    if (cache) { /* recorded since issue 22: cold or warm, and the first call whatever it was */
        json_put(o, "compile_cache", json_str(cache), err);
        json_put(o, "first_call_ms", c->result.nwarmup ? json_num((double)c->result.warmup_ns[0] / 1e6) : json_null(),
                 err);
    }
    json_put(o, "peak_rss_bytes", c->result.status ? json_integer(c->result.peak_rss) : json_null(), err);
    json_put(o, "stats", stats_json(&c->st, err), err);
    json_put(o, "throughput", jthroughput(&tp, &c->st, ok, err), err);
    double window = methods_window_ms(c); /* only a cell timed as a window has it (docs/METHOD.md) */
    if (isfinite(window))
        json_put(o, "window_ms_per_step", json_num(window), err);
    json_put(o, "environment", json_kvmap(&c->result.env, err), err);
    return o;
}

static json_t *jrow(const struct rctx *x, size_t r, int *err)
{
    const struct grid *g = x->g;
    const struct grid_row *gr = &g->rows[r];
    const struct grid_cell *base = x->baseline >= 0 ? grid_at(g, r, (size_t)x->baseline) : NULL;
    json_t *o = json_object(), *cells = json_object();
    json_put(o, "model", json_str(gr->model), err);
    json_put(o, "task", json_str(gr->task), err);
    json_put(o, "batch", json_integer(gr->batch), err);
    json_put(o, "label", json_str(gr->label), err);
    json_put(o, "fastest", json_str(gr->best_col >= 0 ? g->cols[gr->best_col].backend : NULL), err);
    json_put(o, "keras3_best", json_str(gr->k3_col >= 0 ? g->cols[gr->k3_col].backend : NULL), err);
    if (x->answer) {
        static const char *const kinds[] = {"none", "only", "tie", "likely", "clear"};
        const struct answer_row *ar = &x->answer->rows[r];
        json_put(o, "verdict", json_str(kinds[ar->kind]), err);
        json_put(o, "runner_up_ratio", json_num(ar->ratio), err);
        json_put(o, "runner_up_ratio_ci95", json_pack("[oo]", json_num(ar->lo), json_num(ar->hi)), err);
    }
    for (size_t c = 0; c < g->ncols; c++) {
        const struct grid_cell *gc = grid_at(g, r, c);
        struct throughput tp;
        throughput_of(&tp, gr->model, gr->task, gr->batch, gc->cell);
        json_t *cj = json_object();
        json_put(cj, "status", json_str(gc->status), err);
        json_put(cj, "repeats", json_integer((json_int_t)gc->nrepeats), err);
        json_put(cj, "repeats_ok", json_integer((json_int_t)gc->nok), err);
        json_put(cj, "stats", gc->ok ? stats_json(&gc->st, err) : json_null(), err);
        json_put(cj, "throughput", jthroughput(&tp, &gc->st, gc->ok, err), err);
        json_put(cj, "speedup_pct",
                 json_num(base && base->ok && gc->ok ? grid_speedup(base->st.mean, gc->st.mean) : NAN), err);
        json_put(cells, g->cols[c].backend, cj, err);
    }
    json_put(o, "backends", cells, err);
    return o;
}

static json_t *janswer(const struct rctx *x, int *err)
{
    const struct answer *a = x->answer;
    const struct grid *g = x->g;
    if (!a)
        return json_null();
    json_t *o = json_object(), *wins = json_object(), *geo = json_object();
    for (size_t c = 0; c < g->ncols; c++)
        json_put(wins, g->cols[c].backend,
                 json_pack("{sIsIsI}", "fastest", (json_int_t)a->wins[c], "tied", (json_int_t)a->ties[c], "measured",
                           (json_int_t)a->measured[c]),
                 err);
    for (size_t i = 0; i < a->ngeo; i++) {
        const struct answer_geo *ge = &a->geo[i];
        json_t *gj = json_object();
        json_put(gj, "rows", json_integer((json_int_t)ge->n), err);
        json_put(gj, "speedup", json_num(ge->geo), err);
        json_put(gj, "ci95", isfinite(ge->lo) ? json_pack("[oo]", json_num(ge->lo), json_num(ge->hi)) : json_null(),
                 err);
        json_put(geo, g->cols[ge->col].backend, gj, err);
    }
    json_put(o, "wins", wins, err);
    json_put(o, "geomean_speedup", geo, err);
    json_put(o, "noise_band", json_num(ANSWER_NOISE), err);
    json_put(o, "repeats", json_integer((json_int_t)a->max_repeats), err);
    return o;
}

/* One side of a methods pair: the cell's key and status, its ok repeats and mean ms/step. */
static json_t *jside(const struct rd_cell *c, size_t repeats_ok, double ms, int *err)
{
    json_t *o = json_object();
    json_put(o, "key", json_str(c->cell.key), err);
    json_put(o, "status", json_str(c->result.status ? status_name(c->result.status) : NULL), err);
    json_put(o, "repeats_ok", json_integer((json_int_t)repeats_ok), err);
    json_put(o, "mean_ms", json_num(repeats_ok ? ms : NAN), err);
    return o;
}

/* The Method section's side-by-side table: one object per position that ran
 * under both methods. */
static json_t *jmethods(const struct rctx *x, int *err)
{
    struct methods_pair *pairs = NULL;
    size_t n = 0;
    json_t *a = json_array();
    int e = methods_pairs(x->rd, &pairs, &n);
    if (e < 0)
        *err = e;
    for (size_t k = 0; k < n && !*err; k++) {
        const struct methods_pair *p = &pairs[k];
        const struct rd_cell *c = p->first;
        json_t *o = json_object();
        char *name = xprintf("%s/%s/b%d/%s", c->cell.model, c->cell.task, c->cell.batch, c->cell.backend);
        json_put(o, "cell", json_str(name), err);
        free(name);
        json_put(o, "model", json_str(c->cell.model), err);
        json_put(o, "task", json_str(c->cell.task), err);
        json_put(o, "batch", json_integer(c->cell.batch), err);
        json_put(o, "backend", json_str(c->cell.backend), err);
        json_put(o, "published", jside(p->pub, p->repeats_pub, p->pub_ms, err), err);
        json_put(o, "corrected", jside(p->cor, p->repeats_cor, p->cor_ms, err), err);
        json_put(o, "ratio", json_num(p->valid ? p->ratio : NAN), err);
        json_put(o, "ratio_ci95",
                 p->valid && isfinite(p->ci_lo) && isfinite(p->ci_hi)
                     ? json_pack("[oo]", json_num(p->ci_lo), json_num(p->ci_hi))
                     : json_null(),
                 err);
        json_put(o, "same_work", json_boolean(p->same_work), err);
        json_push(a, o, err);
    }
    free(pairs);
    return a;
}

static int write_json(const struct rctx *x, const char *path)
{
    const struct rundata *rd = x->rd;
    int err = 0;
    json_t *root = json_object(), *run = json_object(), *cells = json_array(), *rows = json_array();
    json_put(root, "format", json_string(REPORT_JSON_FORMAT), &err);
    json_put(run, "name", json_str(rd->name), &err);
    json_put(run, "description", json_str(rd->description), &err);
    json_put(run, "created_utc", json_str(rd->created_utc), &err);
    json_put(run, "spec_sha256", json_str(rd->spec_sha256), &err);
    json_put(run, "size", json_str(rd->size), &err);
    json_put(run, "precision", json_str(rd->precision), &err);
    json_put(run, "seed", json_integer((json_int_t)rd->seed), &err);
    json_put(run, "benchgen_version", json_str(rd->benchgen_version), &err);
    json_put(run, "git_commit", json_str(rd->git_commit), &err);
    json_put(run, "hardware", json_str(x->hardware_run), &err);
    json_put(root, "run", run, &err);
    json_put(root, "baseline", json_str(x->baseline >= 0 ? x->g->cols[x->baseline].backend : NULL), &err);
    json_put(root, "answer", janswer(x, &err), &err);
    for (size_t i = 0; !err && i < rd->ncells; i++)
        json_push(cells, jcell(&rd->cells[i], &err), &err);
    for (size_t r = 0; !err && r < x->g->nrows; r++)
        json_push(rows, jrow(x, r, &err), &err);
    json_put(root, "cells", cells, &err);
    json_put(root, "rows", rows, &err);
    json_put(root, "methods", err ? json_array() : jmethods(x, &err), &err);
    char *text = err ? NULL : json_text(root);
    if (!err && !text)
        err = error_code(); /* json_text said why */
    if (!err)
        err = util_write_file_atomic(path, text, strlen(text));
    free(text);
    json_decref(root);
    return err;
}

/* A CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
static void csv_field(struct strbuf *sb, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        strbuf_puts(sb, s);
        return;
    }
    strbuf_puts(sb, "\"");
    for (const char *p = s; *p; p++)
        strbuf_puts(sb, *p == '"' ? "\"\"" : (char[2]){*p, 0});
    strbuf_puts(sb, "\"");
}

/* A mean as show --json writes it: 15 significant digits; empty for NA. */
static void csv_num(struct strbuf *sb, double v)
{
    if (isfinite(v))
        strbuf_printf(sb, "%.15g", v);
}

static int write_csv(const struct rctx *x, const char *path)
{
    const struct grid *g = x->g;
    struct strbuf sb = {0};
    strbuf_puts(&sb, "model,task,batch,label");
    for (size_t c = 0; c < g->ncols; c++) {
        strbuf_puts(&sb, ",");
        csv_field(&sb, g->cols[c].backend);
    }
    if (g->nkeras3)
        strbuf_puts(&sb, ",keras3-best");
    strbuf_puts(&sb, "\r\n");
    for (size_t r = 0; r < g->nrows; r++) {
        const struct grid_row *gr = &g->rows[r];
        csv_field(&sb, gr->model);
        strbuf_puts(&sb, ",");
        csv_field(&sb, gr->task);
        strbuf_printf(&sb, ",%d,", gr->batch);
        csv_field(&sb, gr->label);
        for (size_t c = 0; c < g->ncols; c++) {
            const struct grid_cell *gc = grid_at(g, r, c);
            strbuf_puts(&sb, ",");
            csv_num(&sb, gc->ok ? gc->st.mean : NAN);
        }
        if (g->nkeras3) {
            strbuf_puts(&sb, ",");
            csv_num(&sb, grid_keras3_best(g, r));
        }
        strbuf_puts(&sb, "\r\n");
    }
    int err = strbuf_error(&sb);
    if (!err)
        err = util_write_file_atomic(path, sb.buf, sb.len);
    strbuf_free(&sb);
    return err;
}

int report_json_write(const struct rctx *x, const char *dir)
{
    char *json = xprintf("%s/report.json", dir), *csv = xprintf("%s/summary.csv", dir);
    int err = 0;
    if ((err = write_json(x, json)) < 0)
        error_prefix(err, "%s", json);
    if (!err && (err = write_csv(x, csv)) < 0)
        error_prefix(err, "%s", csv);
    free(json);
    free(csv);
    return err;
}
