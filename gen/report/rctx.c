/*
 * rctx.c - the shared report context (see rctx.h).
 */
#include "report/rctx.h"
#include "report/methodref.h"
#include "plan/catalog.h"
#include "base/error.h"
#include "report/figure.h"
#include "base/template.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void rctx_fmt_ms(double ms, char *buf, size_t n) { chart_format_number(ms, 2, buf, n); }

void rctx_fmt_pct(double pct, char *buf, size_t n)
{
    if (!isfinite(pct)) {
        snprintf(buf, n, "NA");
        return;
    }
    char num[64];
    chart_format_number(pct, 1, num, sizeof(num));
    snprintf(buf, n, "%s%s%%", pct > 0 && strcmp(num, "0.0") ? "+" : "", num);
}

const char *rctx_backend_display(const char *backend)
{
    const struct catalog_backend *b = catalog_backend_find(backend);
    return b ? b->display : backend;
}

const struct ref_row *rctx_published(const struct rctx *x, size_t r, size_t c)
{
    return x->ref_at ? x->ref_at[r * x->g->ncols + c] : NULL;
}

const char *rctx_ref_why(const struct rctx *x, size_t r, size_t c)
{
    return x->ref_why ? x->ref_why[r * x->g->ncols + c] : NULL;
}

size_t rctx_nfailures(const struct rctx *x)
{
    size_t n = 0;
    for (size_t i = 0; i < x->rd->ncells; i++)
        if (x->rd->cells[i].result.status != STATUS_OK)
            n++;
    return n;
}

char *rctx_phases(const struct rd_cell *c)
{
    struct strbuf sb = {0};
    strbuf_append(&sb, "", 0);
    for (size_t i = 0; i < c->result.phases.n; i++) {
        double s = strtod(c->result.phases.items[i].value, NULL) / 1e9;
        if (strbuf_printf(&sb, "%s%s %.2f s", i ? ", " : "", c->result.phases.items[i].key, s) < 0) {
            strbuf_free(&sb);
            return NULL;
        }
    }
    return strbuf_detach(&sb);
}

/* ---- shared text -------------------------------------------------------- */

/* Splits a text into paragraphs: blank lines separate them, lines of one
 * paragraph are joined with a space, every "- " line starts an item of its
 * own, and "#" lines are comments for whoever edits the template. */
static int flush_paragraph(struct strbuf *cur, char ***paras, size_t *np)
{
    if (!cur->len)
        return 0;
    char **nv = xrealloc(*paras, (*np + 1) * sizeof(**paras));
    *paras = nv;
    nv[(*np)++] = strbuf_detach(cur);
    return 0;
}

static int split_paragraphs(const char *text, char ***out, size_t *n)
{
    struct strbuf cur = {0};
    int err = 0;
    *out = NULL;
    *n = 0;
    for (const char *p = text; *p && err == 0;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
            len--;
        if (len && p[0] == '#') {
            /* comment */
        } else if (strspn(p, " \t") >= len) {
            err = flush_paragraph(&cur, out, n);
        } else {
            if (len >= 2 && p[0] == '-' && p[1] == ' ')
                err = flush_paragraph(&cur, out, n);
            size_t lead = cur.len ? strspn(p, " \t") : 0;
            if (err == 0 && cur.len)
                err = strbuf_puts(&cur, " ");
            if (err == 0)
                err = strbuf_append(&cur, p + lead, len - lead);
        }
        p = eol ? eol + 1 : p + strlen(p);
    }
    if (err == 0)
        err = flush_paragraph(&cur, out, n);
    strbuf_free(&cur);
    return err;
}

static int load_text(const char *name, char ***out, size_t *n)
{
    char *text = NULL;
    int err = template_load(&text, name);
    if (err == 0)
        err = split_paragraphs(text, out, n);
    free(text);
    return err;
}

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* ---- facts and environments ---------------------------------------------- */

static int strv_index(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return (int)i;
    return -1;
}

static int strv_add_sorted(char ***v, size_t *n, const char *s)
{
    if (strv_index(*v, *n, s) >= 0)
        return 0;
    char **nv = xrealloc(*v, (*n + 1) * sizeof(**v));
    *v = nv;
    size_t pos = *n;
    while (pos > 0 && strcmp(nv[pos - 1], s) > 0)
        pos--;
    memmove(nv + pos + 1, nv + pos, (*n - pos) * sizeof(*nv));
    nv[pos] = xstrdup(s);
    (*n)++;
    return 0;
}

static int build_facts(struct rctx *x)
{
    const struct rundata *rd = x->rd;
    int err = 0;
    for (size_t i = 0; i < rd->ncells; i++)
        for (size_t k = 0; k < rd->cells[i].result.facts.n; k++) {
            /* measured, not settings: the hardware table shows them (report/hardware.h) */
            const char *key = rd->cells[i].result.facts.items[k].key;
            if (!strncmp(key, "host.", 5) || !strncmp(key, "gpu.", 4) || !strncmp(key, "contention", 10) ||
                !strncmp(key, "telemetry.", 10) || !strncmp(key, "method_source.", 14))
                continue; /* method_source.*: the Method section's table (report/methods.h) */
            if ((err = strv_add_sorted(&x->fact_names, &x->nfacts, key)) < 0)
                return err;
        }
    size_t ncols = x->g->ncols;
    x->fact_values = xcalloc(x->nfacts * ncols + 1, sizeof(char *));
    for (size_t f = 0; f < x->nfacts; f++)
        for (size_t c = 0; c < ncols; c++) {
            /* distinct values of this fact across the backend's cells, in plan order */
            struct strbuf sb = {0};
            char **seen = NULL;
            size_t nseen = 0;
            strbuf_append(&sb, "", 0);
            for (size_t i = 0; i < rd->ncells && err == 0; i++) {
                if (strcmp(rd->cells[i].cell.backend, x->g->cols[c].backend) != 0)
                    continue;
                const char *v = kvlist_get(&rd->cells[i].result.facts, x->fact_names[f]);
                if (!v || strv_index(seen, nseen, v) >= 0)
                    continue;
                seen = xrealloc(seen, (nseen + 1) * sizeof(*seen));
                seen[nseen++] = (char *)v;
                if (nseen > 1)
                    strbuf_puts(&sb, "; ");
                strbuf_puts(&sb, v);
            }
            free(seen);
            x->fact_values[f * ncols + c] = strbuf_detach(&sb);
            if (err < 0)
                return err;
        }
    return 0;
}

static int build_envs(struct rctx *x)
{
    const struct rundata *rd = x->rd;
    int err = 0;
    /* one column per backend, in the grid's order: backends that share a
     * Python environment (the three Keras 3 ones) still record their own
     * settings, so nothing is copied from one backend to another */
    const char **backend_of = xcalloc(x->g->ncols + 1, sizeof(*backend_of));
    for (size_t col = 0; col < x->g->ncols; col++) {
        const char *b = x->g->cols[col].backend;
        int any = 0;
        for (size_t i = 0; i < rd->ncells && !any; i++)
            any = rd->cells[i].result.env.n && strcmp(rd->cells[i].cell.backend, b) == 0;
        if (!any)
            continue;
        x->env_names = xrealloc(x->env_names, (x->nenvs + 1) * sizeof(char *));
        backend_of[x->nenvs] = b;
        x->env_names[x->nenvs++] = xstrdup(x->g->cols[col].display);
    }
    for (size_t i = 0; i < rd->ncells; i++)
        for (size_t k = 0; k < rd->cells[i].result.env.n; k++)
            if ((err = strv_add_sorted(&x->env_keys, &x->nenv_keys, rd->cells[i].result.env.items[k].key)) <
                0) {
                free(backend_of);
                return err;
            }
    x->env_values = xcalloc(x->nenv_keys * x->nenvs + 1, sizeof(char *));
    /* the first cell of each backend that recorded one speaks for it */
    for (size_t e = 0; e < x->nenvs; e++) {
        const struct rd_cell *c = NULL;
        for (size_t i = 0; i < rd->ncells && !c; i++)
            if (rd->cells[i].result.env.n && strcmp(rd->cells[i].cell.backend, backend_of[e]) == 0)
                c = &rd->cells[i];
        for (size_t k = 0; c && k < x->nenv_keys; k++)
            x->env_values[k * x->nenvs + e] = (char *)kvlist_get(&c->result.env, x->env_keys[k]);
    }
    free(backend_of);
    return 0;
}

/* ---- reference ---------------------------------------------------------- */

static size_t count_matches(const struct rctx *x, int rev)
{
    size_t n = 0;
    for (size_t r = 0; r < x->g->nrows; r++)
        for (size_t c = 0; c < x->g->ncols; c++) {
            const struct grid_row *row = &x->g->rows[r];
            const struct ref_row *p =
                reference_find(x->ref, rev, row->model, row->task, row->batch, x->g->cols[c].backend);
            n += p && isfinite(p->ms);
        }
    return n;
}

static int resolve_reference(struct rctx *x, const char *path, int revision)
{
    int err = reference_load(&x->ref, path);
    if (err < 0)
        return err;
    int revs[256];
    size_t nrev = reference_revisions(x->ref, revs, 256);
    if (nrev == 0)
        return error_set(BG_EUSAGE, "%s: no rows", path);
    if (nrev > 256)
        nrev = 256;
    if (revision >= 0) {
        size_t i = 0;
        while (i < nrev && revs[i] != revision)
            i++;
        if (i == nrev)
            return error_set(BG_EUSAGE, "%s has no revision %d", path, revision);
        x->ref_revision = revision;
    } else {
        size_t best = 0;
        x->ref_revision = revs[nrev - 1];
        for (size_t i = 0; i < nrev; i++) {
            size_t m = count_matches(x, revs[i]);
            if (m >= best && m > 0) {
                best = m;
                x->ref_revision = revs[i];
            }
        }
    }
    size_t ncells = x->g->nrows * x->g->ncols;
    x->ref_at = xcalloc(ncells + 1, sizeof(*x->ref_at));
    x->ref_k3 = xcalloc(x->g->nrows + 1, sizeof(*x->ref_k3));
    x->ref_why = xcalloc(ncells + 1, sizeof(*x->ref_why));
    for (size_t r = 0; r < x->g->nrows; r++) {
        const struct grid_row *row = &x->g->rows[r];
        for (size_t c = 0; c < x->g->ncols; c++) {
            const struct ref_row *p = reference_find(x->ref, x->ref_revision, row->model, row->task,
                                                     row->batch, x->g->cols[c].backend);
            x->ref_at[r * x->g->ncols + c] = p;
            x->ref_matched += p && isfinite(p->ms);
            const struct rd_cell *cell = grid_at(x->g, r, c)->cell;
            char why[256];
            if (p && cell && methodref_differs(cell, why, sizeof(why)))
                x->ref_why[r * x->g->ncols + c] = xstrdup(why);
        }
        x->ref_k3[r] =
            reference_find(x->ref, x->ref_revision, row->model, row->task, row->batch, "keras3-best");
    }
    const struct ref_row *first = reference_first(x->ref, x->ref_revision);
    const char *run_gpu = kvlist_get(&x->rd->env, "gpu.0.name");
    int same = first && first->gpu[0] && run_gpu && strcasecmp(first->gpu, run_gpu) == 0;
    const char *ref_hw = first && first->hardware[0] ? first->hardware
                         : first && first->gpu[0]    ? first->gpu
                                                     : NULL;
    if (same || !ref_hw)
        x->hardware_note =
            xstrdup(ref_hw ? "" : "The reference file does not say what hardware it was measured on.");
    else
        x->hardware_note =
            xprintf("The hardware differs: the published numbers were measured on %s; this run "
                    "on %s. Ratios compare the machines as well as the software.",
                    ref_hw, x->hardware_run);
    return 0;
}

/* ---- init / free -------------------------------------------------------- */

void rctx_created(const char *created_utc, time_t *created, char pdf_date[32], char text[40])
{
    struct tm tm = {0};
    if (created_utc && util_utc_parse(created, created_utc) == 0) { /* strict: what run.db stores */
        snprintf(pdf_date, 32, "%s", created_utc);
    } else {
        /* no date in the run: a fixed one, never the clock, so bytes stay reproducible */
        *created = 1;
        snprintf(pdf_date, 32, "1970-01-01T00:00:01Z");
    }
    gmtime_r(created, &tm);
    strftime(text, 40, "%Y-%m-%d %H:%M UTC", &tm);
}

int rctx_init(struct rctx *x, const struct rundata *rd, const char *baseline, const char *ref_path,
              int ref_revision)
{
    int err = 0;
    memset(x, 0, sizeof(*x));
    x->rd = rd;
    x->ref_revision = -1;
    x->baseline = -1;
    rctx_created(x->rd->created_utc, &x->created, x->pdf_date, x->created_text);
    if ((err = grid_build(&x->g, rd)) < 0)
        goto done;
    if (baseline) {
        x->baseline = grid_col_find(x->g, baseline);
        if (x->baseline < 0) {
            struct strbuf have = {0};
            for (size_t c = 0; c < x->g->ncols; c++)
                strbuf_printf(&have, "%s%s", c ? ", " : "", x->g->cols[c].backend);
            err = error_set(BG_EUSAGE, "--baseline %s: the run has no such backend (it has: %s)", baseline,
                            have.buf ? have.buf : "none");
            strbuf_free(&have);
            goto done;
        }
    } else {
        x->baseline = grid_default_baseline(x->g);
    }
    const char *gpu = kvlist_get(&rd->env, "gpu.0.name");
    const char *cpu = kvlist_get(&rd->env, "cpu.model");
    x->hardware_run = gpu && *gpu   ? xstrdup(gpu)
                      : cpu && *cpu ? xprintf("CPU only (%s)", cpu)
                                    : xstrdup("unknown");
    if (ref_path && (err = resolve_reference(x, ref_path, ref_revision)) < 0)
        goto done;
    if ((err = load_text("method.txt", &x->method, &x->nmethod)) < 0 ||
        (err = load_text("fairness.txt", &x->fairness, &x->nfairness)) < 0 || (err = build_facts(x)) < 0 ||
        (err = build_envs(x)) < 0)
        goto done;
done:
    if (err < 0)
        rctx_free(x);
    return err;
}

void rctx_free(struct rctx *x)
{
    if (!x)
        return;
    figures_free(x->figs, x->nfigs);
    free_strv(x->method, x->nmethod);
    free_strv(x->fairness, x->nfairness);
    free_strv(x->fact_names, x->nfacts);
    free_strv(x->fact_values, x->g ? x->nfacts * x->g->ncols : 0);
    free_strv(x->env_names, x->nenvs);
    free_strv(x->env_keys, x->nenv_keys);
    free(x->env_values); /* borrowed strings */
    free(x->ref_at);
    free(x->ref_k3);
    free_strv(x->ref_why, x->ref_why && x->g ? x->g->nrows * x->g->ncols : 0);
    reference_free(x->ref);
    free(x->hardware_run);
    free(x->hardware_note);
    grid_free(x->g);
    memset(x, 0, sizeof(*x));
}
