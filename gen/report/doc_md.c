/*
 * doc_md.c - report.md, GitHub-flavoured Markdown (see doc_md.h).
 *
 * Everything from the run goes through escape_md (inline text and table
 * cells) or escape_md_code (fenced blocks), so a "<script>" in a spec name
 * renders as text on GitHub and a "|" cannot split a table row.
 */
#include "report/doc_md.h"
#include "base/error.h"
#include "base/escape.h"
#include "report/tables.h"
#include "base/template.h"

#include <stdlib.h>
#include <string.h>

int doc_md_table(struct strbuf *sb, const struct table *t)
{
    int err = 0;
    if (t->ncols == 0 || t->nrows == 0)
        return strbuf_puts(sb, "_None._\n");
    if (t->caption) {
        err = escape_md(sb, t->caption);
        err = err ? err : strbuf_puts(sb, "\n\n");
    }
    for (size_t c = 0; c < t->ncols && err == 0; c++) {
        err = strbuf_puts(sb, "| ");
        err = err ? err : escape_md(sb, t->head[c]);
        err = err ? err : strbuf_puts(sb, " ");
    }
    err = err ? err : strbuf_puts(sb, "|\n");
    for (size_t c = 0; c < t->ncols && err == 0; c++)
        err = strbuf_puts(sb, t->numeric[c] ? "|---:" : "|---");
    err = err ? err : strbuf_puts(sb, "|\n");
    for (size_t r = 0; r < t->nrows && err == 0; r++) {
        for (size_t c = 0; c < t->ncols && err == 0; c++) {
            const struct tcell *cell = table_at(t, r, c);
            int bold = cell->flags & TC_BOLD, warn = (cell->flags & TC_WARN) && cell->text[0];
            err = strbuf_puts(sb, "| ");
            err = err ? err : strbuf_puts(sb, bold ? "**" : warn ? "\xE2\x9A\xA0 " : "");
            err = err ? err : escape_md(sb, cell->text);
            err = err ? err : strbuf_puts(sb, bold ? "** " : " ");
        }
        err = err ? err : strbuf_puts(sb, "|\n");
    }
    return err;
}

static int md_built_table(struct strbuf *sb, const struct rctx *x, enum table_kind kind)
{
    struct table t;
    int err = tables_build(x, kind, &t);
    if (err == 0)
        err = doc_md_table(sb, &t);
    table_free(&t);
    return err;
}

int doc_md_paragraphs(struct strbuf *sb, char **paras, size_t n)
{
    int err = 0;
    for (size_t i = 0; i < n && err == 0; i++) {
        int bullet = strncmp(paras[i], "- ", 2) == 0;
        if (bullet)
            err = strbuf_puts(sb, "- ");
        err = err ? err : escape_md(sb, paras[i] + (bullet ? 2 : 0));
        int next_bullet = i + 1 < n && strncmp(paras[i + 1], "- ", 2) == 0;
        err = err ? err : strbuf_puts(sb, bullet && next_bullet ? "\n" : "\n\n");
    }
    return err;
}

int doc_md_figure(struct strbuf *sb, const struct figure *f, const char *charts_rel)
{
    int err = strbuf_puts(sb, "![");
    err = err ? err : escape_md(sb, f->title);
    /* figure names are file-name safe (escape_filename) */
    return err ? err : strbuf_printf(sb, "](%s/%s.png)\n\n", charts_rel, f->name);
}

static int md_figures(struct strbuf *sb, const struct rctx *x, int section, const char *charts_rel)
{
    int err = 0;
    for (size_t i = 0; i < x->nfigs && err == 0; i++) {
        const struct figure *f = &x->figs[i];
        if (f->section != section)
            continue;
        if (section == FIG_CELLS) {
            err = strbuf_puts(sb, "### ");
            err = err ? err : escape_md(sb, f->title);
            err = err ? err : strbuf_puts(sb, "\n\n");
        }
        err = err ? err : doc_md_figure(sb, f, charts_rel);
    }
    return err;
}

static int md_warnings(struct strbuf *sb, const struct rctx *x)
{
    int err = 0;
    size_t nwarn = 0;
    for (size_t i = 0; i < x->rd->ncells && err == 0; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        char w[200];
        grid_warnings(&c->st, w, sizeof(w));
        if (!w[0] || !c->status || strcmp(c->status, "ok"))
            continue;
        if (nwarn++ == 0)
            err = strbuf_puts(sb, "**Warnings**\n\n");
        err = err ? err : strbuf_puts(sb, "- ");
        err = err ? err : escape_md(sb, c->key);
        err = err ? err : strbuf_puts(sb, ": ");
        err = err ? err : escape_md(sb, w);
        err = err ? err : strbuf_puts(sb, "\n");
    }
    size_t nf = rctx_nfailures(x);
    if (err == 0 && nf)
        err = strbuf_printf(sb, "%s%zu cell%s did not produce a number: see [Failures](#failures).\n",
                            nwarn ? "\n" : "", nf, nf == 1 ? "" : "s");
    return err;
}

static int md_failures(struct strbuf *sb, const struct rctx *x)
{
    int err = md_built_table(sb, x, TABLE_FAILURES);
    for (size_t i = 0; i < x->rd->ncells && err == 0; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        if ((c->status && strcmp(c->status, "ok") == 0) || !c->detail || !strchr(c->detail, '\n'))
            continue;
        err = strbuf_puts(sb, "\n<details><summary>");
        /* inside raw HTML, Markdown escaping does not apply: use HTML escaping */
        err = err ? err : escape_html(sb, c->key);
        err = err ? err : strbuf_puts(sb, "</summary>\n\n");
        err = err ? err : escape_md_code(sb, c->detail, "text");
        err = err ? err : strbuf_puts(sb, "\n</details>\n");
    }
    return err;
}

static int md_environment(struct strbuf *sb, const struct rctx *x)
{
    int err = strbuf_puts(sb, "### Machine and run\n\n");
    err = err ? err : md_built_table(sb, x, TABLE_RUN_ENV);
    err = err ? err : strbuf_puts(sb, "\n### Python environments\n\n");
    err = err ? err : md_built_table(sb, x, TABLE_PY_ENV);
    return err;
}

/* One placeholder's value built by a function into a fresh buffer. */
static int put(struct kvlist *vars, const char *key, struct strbuf *sb)
{
    int err = kvlist_add(vars, key, sb->buf ? sb->buf : "");
    strbuf_free(sb);
    return err;
}

int doc_md_write(const struct rctx *x, const char *path, const char *charts_rel)
{
    struct kvlist vars = {0};
    struct strbuf sb = {0}, out = {0};
    char *tmpl = NULL, *title = NULL;
    int err = 0;
    if ((err = template_load(&tmpl, "report.md")) < 0)
        goto done;
    title = util_printf("Benchmark report: %s", x->rd->name);
    if (!title) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    char gen[64];
    snprintf(gen, sizeof(gen), "benchgen %s", BENCHGEN_VERSION);
    if ((err = kvlist_add(&vars, "title", title)) < 0 ||
        (err = kvlist_add(&vars, "description", x->rd->description)) < 0 ||
        (err = kvlist_add(&vars, "generator", gen)) < 0)
        goto done;
#define SECTION(key, expr)                                          \
    do {                                                            \
        strbuf_append(&sb, "", 0);                                  \
        if ((err = (expr)) < 0 || (err = put(&vars, key, &sb)) < 0) \
            goto done;                                              \
    } while (0)
    SECTION("meta", md_built_table(&sb, x, TABLE_META));
    SECTION("warnings", md_warnings(&sb, x));
    SECTION("summary", md_built_table(&sb, x, TABLE_SUMMARY));
    SECTION("summary_detail", md_built_table(&sb, x, TABLE_DETAIL));
    SECTION("charts_summary", md_figures(&sb, x, FIG_SUMMARY, charts_rel));
    SECTION("speedup", md_built_table(&sb, x, TABLE_SPEEDUP));
    SECTION("speedup_charts", md_figures(&sb, x, FIG_SPEEDUP, charts_rel));
    SECTION("charts_heatmap", md_figures(&sb, x, FIG_HEATMAP, charts_rel));
    if (x->ref) {
        strbuf_append(&sb, "", 0);
        err = strbuf_puts(&sb, "## Measured vs published\n\n");
        if (err == 0 && x->hardware_note[0]) {
            err = strbuf_puts(&sb, "**");
            err = err ? err : escape_md(&sb, x->hardware_note);
            err = err ? err : strbuf_puts(&sb, "**\n\n");
        }
        err = err ? err : md_built_table(&sb, x, TABLE_REFERENCE);
        err = err ? err : strbuf_puts(&sb, "\n");
        err = err ? err : md_figures(&sb, x, FIG_REFERENCE, charts_rel);
        if (err < 0 || (err = put(&vars, "reference", &sb)) < 0)
            goto done;
    } else if ((err = kvlist_add(&vars, "reference", "")) < 0) {
        goto done;
    }
    SECTION("statistics", md_built_table(&sb, x, TABLE_STATISTICS));
    SECTION("cell_charts", md_figures(&sb, x, FIG_CELLS, charts_rel));
    SECTION("method", doc_md_paragraphs(&sb, x->method, x->nmethod));
    strbuf_append(&sb, "", 0);
    if ((err = doc_md_paragraphs(&sb, x->fairness, x->nfairness)) < 0 ||
        (err = strbuf_puts(&sb, "Facts recorded per backend:\n\n")) < 0 ||
        (err = md_built_table(&sb, x, TABLE_FACTS)) < 0 || (err = put(&vars, "fairness", &sb)) < 0)
        goto done;
    SECTION("environment", md_environment(&sb, x));
    SECTION("failures", md_failures(&sb, x));
    SECTION("spec", escape_md_code(&sb, x->rd->spec_text, "yaml"));
#undef SECTION
    if ((err = template_render(&out, "report.md", tmpl, &vars, escape_md)) < 0)
        goto done;
    err = chart_write_file(path, out.buf, out.len);
done:
    kvlist_free(&vars);
    strbuf_free(&sb);
    strbuf_free(&out);
    free(tmpl);
    free(title);
    return err;
}
