/*
 * placement.c - where every cell ran (see placement.h).
 */
#include "report/placement.h"
#include "report/tables.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *env(const struct rd_cell *c, const char *key)
{
    const char *v = kvlist_get(&c->result.env, key);
    return v ? v : "";
}

static bool same_row(const struct rd_cell *a, const struct rd_cell *b)
{
    return !strcmp(a->cell.model, b->cell.model) && !strcmp(a->cell.task, b->cell.task) &&
           a->cell.batch == b->cell.batch;
}

/* Warns when the cells of a's row (those before it are done) disagree on key. */
static void warn_row(struct doc *d, const struct rundata *rd, size_t first, const char *key, const char *what)
{
    const struct rd_cell *a = &rd->cells[first];
    struct strlist kinds = {0};
    for (size_t i = first; i < rd->ncells; i++)
        if (same_row(a, &rd->cells[i]) && *env(&rd->cells[i], "where.host"))
            strlist_add_unique(&kinds, env(&rd->cells[i], key));
    if (kinds.n > 1) {
        struct strbuf sb = {0};
        strbuf_printf(&sb, "its cells ran on different kinds of %s:", what);
        for (size_t k = 0; k < kinds.n; k++)
            strbuf_printf(&sb, "%s %s", k ? ";" : "", *kinds.v[k] ? kinds.v[k] : "(none)");
        strbuf_puts(&sb, ". Their backends are not comparable: rerun the row on one kind (--partition, "
                         "--sbatch-arg=--constraint=...).");
        char key_text[160];
        snprintf(key_text, sizeof(key_text), "%s/%s/b%d", a->cell.model, a->cell.task, a->cell.batch);
        doc_warning(d, key_text, sb.len ? sb.buf : "");
        strbuf_free(&sb);
    }
    strlist_free(&kinds);
}

static const char *cell_device(const struct rd_cell *c) { return result_device(&c->result); }

void placement_device_alert(struct doc *d, const struct rctx *x)
{
    const struct rundata *rd = x->rd;
    struct strlist kinds = {0};
    for (size_t i = 0; i < rd->ncells; i++)
        if (rd->cells[i].result.ntimed && cell_device(&rd->cells[i]))
            strlist_add_unique(&kinds, cell_device(&rd->cells[i]));
    if (kinds.n > 1 && !d->err) {
        struct strbuf sb = {0};
        strbuf_puts(&sb, "This run's timed cells ran on different kinds of processor:");
        for (size_t k = 0; k < kinds.n; k++) {
            size_t n = 0;
            for (size_t i = 0; i < rd->ncells; i++)
                n += rd->cells[i].result.ntimed && cell_device(&rd->cells[i]) &&
                     !strcmp(cell_device(&rd->cells[i]), kinds.v[k]);
            strbuf_printf(&sb, "%s %s (%zu cell%s)", k ? ";" : "", kinds.v[k], n, n == 1 ? "" : "s");
        }
        strbuf_puts(&sb, ". Times are comparable only between cells on one kind; each cell's device is in its "
                         "log (Cell logs) and in `benchgen show` (set device: gpu or cpu in the spec to require one).");
        doc_para(d, DOC_ALERT, sb.len ? sb.buf : "");
        strbuf_free(&sb);
    }
    strlist_free(&kinds);
}

void placement_section(struct doc *d, const struct rctx *x)
{
    const struct rundata *rd = x->rd;
    size_t n = 0;
    for (size_t i = 0; i < rd->ncells; i++)
        n += *env(&rd->cells[i], "where.host") != '\0';
    if (n == 0 || d->err)
        return;
    doc_section(d, "placement", "Where cells ran");
    for (size_t i = 0; i < rd->ncells; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !same_row(&rd->cells[j], &rd->cells[i]);
        if (first) {
            warn_row(d, rd, i, "where.gpu", "GPU");
            warn_row(d, rd, i, "where.cpu", "node (CPU)");
        }
    }
    struct table t;
    static const char *const head[] = {"Cell", "Node", "Slurm job", "Devices", "GPU", "Cores", "CPU"};
    table_init(&t, 7);
    for (size_t c = 0; c < 7; c++)
        table_head(&t, c, head[c], 0);
    for (size_t i = 0; i < rd->ncells; i++) {
        const struct rd_cell *c = &rd->cells[i];
        if (!*env(c, "where.host"))
            continue;
        size_t r = table_row(&t);
        const char *node = *env(c, "slurm.node") ? env(c, "slurm.node") : env(c, "where.host");
        char job[96] = "";
        if (*env(c, "slurm.array_job_id"))
            snprintf(job, sizeof(job), "%s_%s", env(c, "slurm.array_job_id"), env(c, "slurm.array_task_id"));
        table_set(&t, r, 0, TC_MONO, NAN, "%s", c->cell.key);
        table_set(&t, r, 1, 0, NAN, "%s", node);
        table_set(&t, r, 2, TC_MONO, NAN, "%s", job);
        table_set(&t, r, 3, 0, NAN, "%s", env(c, "where.devices"));
        table_set(&t, r, 4, 0, NAN, "%s", env(c, "where.gpu"));
        table_set(&t, r, 5, 0, NAN, "%s", env(c, "where.cores"));
        table_set(&t, r, 6, 0, NAN, "%s", env(c, "where.cpu"));
    }
    doc_table(d, &t, 7); /* finishes t; its error becomes the document's */
    doc_end(d);
}
