/*
 * grid.c - the run as rows x backends (see grid.h).
 */
#include "report/grid.h"
#include "plan/catalog.h"
#include "charts/chart.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int find_row(const struct grid *g, const struct rd_cell *c)
{
    for (size_t i = 0; i < g->nrows; i++)
        if (g->rows[i].batch == c->cell.batch && strcmp(g->rows[i].model, c->cell.model) == 0 &&
            strcmp(g->rows[i].task, c->cell.task) == 0)
            return (int)i;
    return -1;
}

int grid_col_find(const struct grid *g, const char *backend)
{
    for (size_t i = 0; i < g->ncols; i++)
        if (strcmp(g->cols[i].backend, backend) == 0)
            return (int)i;
    return -1;
}

static int catalog_index(const char *backend)
{
    for (size_t i = 0; catalog_backend_at(i); i++)
        if (strcmp(catalog_backend_at(i)->name, backend) == 0)
            return (int)i;
    return -1;
}

static int add_row(struct grid *g, const struct rd_cell *c)
{
    g->rows = xrealloc(g->rows, (g->nrows + 1) * sizeof(*g->rows));
    struct grid_row *r = &g->rows[g->nrows++];
    memset(r, 0, sizeof(*r));
    r->model = c->cell.model;
    r->task = c->cell.task;
    r->batch = c->cell.batch;
    r->best_col = r->k3_col = -1;
    const struct catalog_model *m = catalog_model_find(c->cell.model);
    const char *name = m && !c->cell.workload ? m->display : c->cell.model;
    r->label = xprintf("%s (%s)", name, c->cell.task);
    r->title = xprintf("%s (%s), batch %d", name, c->cell.task, c->cell.batch);
    char *slug = xprintf("%s_%s_b%d", c->cell.model, c->cell.task, c->cell.batch);
    r->slug = escape_filename(slug);
    free(slug);
    return 0;
}

static int build_cols(struct grid *g, const struct rundata *rd)
{
    /* catalog backends first, in catalog order, then unknown ones as they appear */
    size_t cap = rd->ncells + 16;
    g->cols = xcalloc(cap, sizeof(*g->cols));
    for (size_t k = 0; catalog_backend_at(k); k++) {
        const struct catalog_backend *b = catalog_backend_at(k);
        for (size_t i = 0; i < rd->ncells; i++)
            if (strcmp(rd->cells[i].cell.backend, b->name) == 0) {
                g->cols[g->ncols++] = (struct grid_col){rd->cells[i].cell.backend, b->display, chart_palette(k),
                                                        strncmp(b->name, "keras3-", 7) == 0};
                break;
            }
    }
    size_t extra = 0;
    for (size_t i = 0; i < rd->ncells; i++) {
        const char *be = rd->cells[i].cell.backend;
        if (catalog_index(be) >= 0 || grid_col_find(g, be) >= 0)
            continue;
        g->cols[g->ncols++] =
            (struct grid_col){be, be, chart_palette(7 + extra++), strncmp(be, "keras3-", 7) == 0};
    }
    for (size_t i = 0; i < g->ncols; i++)
        g->nkeras3 += (size_t)g->cols[i].keras3;
    return 0;
}

/* Whether c sits at row x col. A position holds the cells of one method: the
 * method of its first cell in plan order (method: [published, corrected]
 * runs both; the report's Method section sets the other beside it). */
static int at_position(const struct rd_cell *c, const struct grid_row *row, const struct grid_col *col,
                       const struct rd_cell *first)
{
    if (c->cell.batch != row->batch || strcmp(c->cell.model, row->model) || strcmp(c->cell.task, row->task) ||
        strcmp(c->cell.backend, col->backend))
        return 0;
    if (!first || (!first->cell.method && !c->cell.method))
        return 1;
    return first->cell.method && c->cell.method && strcmp(first->cell.method, c->cell.method) == 0;
}

int grid_holds(const struct grid *g, size_t r, size_t c, const struct rd_cell *cell)
{
    return at_position(cell, &g->rows[r], &g->cols[c], grid_at(g, r, c)->cell);
}

static int fill_cell(struct grid_cell *gc, const struct rundata *rd, const struct grid_row *row,
                     const struct grid_col *col)
{
    size_t total = 0;
    const struct rd_cell *first_ok = NULL;
    int err = 0;
    gc->compile_ms = gc->warmup_ms = NAN;
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        if (!at_position(c, row, col, gc->cell))
            continue;
        if (!gc->cell)
            gc->cell = c;
        gc->nrepeats++;
        if (c->result.status == STATUS_OK && c->result.ntimed > 0) {
            gc->nok++;
            total += c->result.ntimed;
            if (!first_ok)
                first_ok = c;
        }
    }
    if (!gc->cell) {
        gc->status = "missing";
    } else if (gc->nok == 0) {
        enum status why = gc->cell->result.status;
        /* with several repeats, say why the first non-ok one failed */
        for (size_t i = 0; i < rd->ncells && gc->cell->result.status == STATUS_OK; i++) {
            const struct rd_cell *c = &rd->cells[i];
            if (at_position(c, row, col, gc->cell) && c->result.status && c->result.status != STATUS_OK) {
                why = c->result.status;
                break;
            }
        }
        gc->status = why == STATUS_OK ? "no samples" : why == STATUS_NONE ? "not run" : status_name(why);
    } else {
        gc->status = "ok";
        gc->ok = 1;
    }
    if (!gc->ok) {
        snprintf(gc->na, sizeof(gc->na), "NA (%s)", gc->status);
        memset(&gc->st, 0, sizeof(gc->st));
        gc->st.mean = gc->st.median = gc->st.p5 = gc->st.p95 = gc->st.stdev = NAN;
        gc->st.min = gc->st.max = gc->st.cv = gc->st.ci_lo = gc->st.ci_hi = NAN;
        return 0;
    }
    if (gc->nok == 1) {
        gc->st = first_ok->st;
    } else {
        int64_t *pool = xmalloc(total * sizeof(*pool));
        size_t k = 0;
        for (size_t i = 0; i < rd->ncells; i++) {
            const struct rd_cell *c = &rd->cells[i];
            if (at_position(c, row, col, gc->cell) && c->result.status == STATUS_OK) {
                memcpy(pool + k, c->result.timed_ns, c->result.ntimed * sizeof(*pool));
                k += c->result.ntimed;
            }
        }
        err = stats_compute(pool, k, &gc->st);
        free(pool);
        if (err < 0)
            return err;
    }
    /* compile and warm-up from the first ok process whose compile cache was
     * cold (an A/B arm's later processes start warm: never compile time) */
    const struct rd_cell *cold = result_warm_cache(&first_ok->result) ? NULL : first_ok;
    for (size_t i = 0; i < rd->ncells && !cold; i++) {
        const struct rd_cell *c = &rd->cells[i];
        if (at_position(c, row, col, gc->cell) && c->result.status == STATUS_OK && c->result.ntimed > 0 &&
            !result_warm_cache(&c->result))
            cold = c;
    }
    if (cold && cold->result.nwarmup > 0) {
        gc->compile_ms = (double)cold->result.warmup_ns[0] / 1e6;
        double sum = 0;
        for (size_t i = 0; i < cold->result.nwarmup; i++)
            sum += (double)cold->result.warmup_ns[i];
        gc->warmup_ms = sum / 1e6;
    }
    return 0;
}

int grid_build(struct grid **out, const struct rundata *rd)
{
    struct grid *g = xcalloc(1, sizeof(*g));
    int err = 0;
    *out = NULL;
    g->rd = rd;
    for (size_t i = 0; i < rd->ncells; i++)
        if (find_row(g, &rd->cells[i]) < 0 && (err = add_row(g, &rd->cells[i])) < 0)
            goto done;
    if ((err = build_cols(g, rd)) < 0)
        goto done;
    g->cells = xcalloc(g->nrows * g->ncols + 1, sizeof(*g->cells));
    for (size_t r = 0; r < g->nrows; r++) {
        struct grid_row *row = &g->rows[r];
        for (size_t c = 0; c < g->ncols; c++) {
            struct grid_cell *gc = &g->cells[r * g->ncols + c];
            if ((err = fill_cell(gc, rd, row, &g->cols[c])) < 0)
                goto done;
            if (!gc->ok)
                continue;
            if (row->best_col < 0 || gc->st.mean < grid_at(g, r, (size_t)row->best_col)->st.mean)
                row->best_col = (int)c;
            if (g->cols[c].keras3 &&
                (row->k3_col < 0 || gc->st.mean < grid_at(g, r, (size_t)row->k3_col)->st.mean))
                row->k3_col = (int)c;
        }
    }
done:
    if (err < 0) {
        grid_free(g);
        return err;
    }
    *out = g;
    return 0;
}

void grid_free(struct grid *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nrows; i++) {
        free(g->rows[i].label);
        free(g->rows[i].title);
        free(g->rows[i].slug);
    }
    free(g->rows);
    free(g->cols);
    free(g->cells);
    free(g);
}

double grid_keras3_best(const struct grid *g, size_t r)
{
    int c = g->rows[r].k3_col;
    return c < 0 ? NAN : grid_at(g, r, (size_t)c)->st.mean;
}

double grid_speedup(double base_ms, double a_ms)
{
    if (!(base_ms > 0) || !(a_ms > 0) || !isfinite(base_ms) || !isfinite(a_ms))
        return NAN;
    return (base_ms / a_ms - 1.0) * 100.0;
}

int grid_default_baseline(const struct grid *g)
{
    int c = grid_col_find(g, "torch-eager");
    if (c < 0)
        c = grid_col_find(g, "keras2-tensorflow");
    if (c < 0 && g->ncols > 0)
        c = 0;
    return c;
}

void grid_warnings(const struct stats *st, char *buf, size_t n)
{
    size_t off = 0;
    buf[0] = '\0';
    if (st->n == 0)
        return;
    if (isfinite(st->cv) && st->cv > STATS_NOISY_CV)
        off += (size_t)snprintf(buf + off, off < n ? n - off : 0, "noisy: CV %.1f%% > %.0f%%", st->cv * 100,
                                STATS_NOISY_CV * 100);
    if (st->first_is_outlier)
        snprintf(buf + off, off < n ? n - off : 0, "%sfirst timed step is an outlier (warm-up too short?)",
                 off ? "; " : "");
}

size_t grid_detail_line(const char *detail, const char **line)
{
    const char *d = detail ? detail : "";
    *line = d;
    if (strncmp(d, "Traceback", 9) != 0)
        return strcspn(d, "\n");
    /* the exception line is the first line at the margin after the last
     * frame ("  File ..."); frames and source lines are indented; frames
     * after an exception line belong to a chained exception, or to what
     * torch prints after it ("from user code:"), which ends without one */
    const char *cand = NULL, *prev = NULL;
    for (const char *p = d; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, "  File ", 7) == 0 && cand) {
            prev = cand; /* a later frame: a chained exception, or torch's "from user code:" */
            cand = NULL;
        } else if (strncmp(p, "  File ", 7) == 0)
            cand = NULL;
        else if (!cand && p != d && *p && *p != ' ' && *p != '\t' && *p != '\n')
            cand = p;
    }
    if (cand || prev)
        *line = cand ? cand : prev;
    return strcspn(*line, "\n");
}

/* One `  File "PATH", line N, in FUNC` line as "BASE:N in FUNC" appended to
 * out (after "; " when out is not empty); a line of another form is skipped. */
static void frame_append(const char *p, char *out, size_t n)
{
    const char *q = p + 8; /* past `  File "` */
    const char *end = strchr(q, '"');
    size_t eol = strcspn(p, "\n");
    if (!end || (size_t)(end - p) >= eol)
        return;
    const char *base = q;
    for (const char *s = q; s < end; s++)
        if (*s == '/')
            base = s + 1;
    const char *rest = end + 1, *stop = p + eol;
    long lineno = -1;
    const char *func = NULL;
    if (stop - rest > 7 && strncmp(rest, ", line ", 7) == 0) {
        lineno = strtol(rest + 7, NULL, 10);
        const char *in = strstr(rest, ", in ");
        if (in && in < stop)
            func = in + 5;
    }
    size_t len = strlen(out);
    if (len + 1 >= n)
        return;
    snprintf(out + len, n - len, "%s%.*s", len ? "; " : "", (int)(end - base), base);
    len = strlen(out);
    if (lineno >= 0 && len + 1 < n)
        snprintf(out + len, n - len, ":%ld", lineno);
    len = strlen(out);
    if (func && len + 1 < n)
        snprintf(out + len, n - len, " in %.*s", (int)(stop - func), func);
}

void grid_detail_frames(const char *detail, size_t max, char *buf, size_t n)
{
    if (!n)
        return;
    buf[0] = '\0';
    if (!detail || !max)
        return;
    const char *line;
    grid_detail_line(detail, &line);
    /* the frames that precede the exception line; when the summary line
     * comes first (what failed: Type: message), those of the whole detail */
    const char *limit = line > detail ? line : detail + strlen(detail);
    const char *frames[64];
    size_t nf = 0;
    for (const char *p = detail; p && p < limit; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, "  File \"", 8) == 0) {
            if (nf == sizeof(frames) / sizeof(frames[0])) {
                memmove(frames, frames + 1, (nf - 1) * sizeof(frames[0]));
                nf--;
            }
            frames[nf++] = p;
        }
    for (size_t i = nf > max ? nf - max : 0; i < nf; i++)
        frame_append(frames[i], buf, n);
}
