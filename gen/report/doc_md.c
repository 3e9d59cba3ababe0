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

/* ---- the document ---------------------------------------------------------- */

static int md_link(const char *s, size_t n, const char *anchor, size_t alen, void *ctx)
{
    struct strbuf *sb = ctx;
    char *t = strndup(s, n);
    int err = t ? 0 : error_set(BG_ENOMEM, "out of memory");
    err = err ? err : anchor ? strbuf_puts(sb, "[") : 0;
    err = err ? err : escape_md(sb, t);
    /* anchors are benchgen's own ("failures"), never the run's */
    err = err ? err : anchor ? strbuf_printf(sb, "](#%.*s)", (int)alen, anchor) : 0;
    free(t);
    return err;
}

static int md_text(struct strbuf *sb, const char *hashes, const char *text)
{
    int err = hashes ? strbuf_printf(sb, "%s ", hashes) : 0;
    err = err ? err : escape_md(sb, text);
    return err ? err : strbuf_puts(sb, "\n\n");
}

int doc_md_render(struct strbuf *sb, const struct doc *d, const char *charts_rel)
{
    int err = 0;
    for (size_t i = 0; i < d->n && err == 0; i++) {
        const struct doc_block *b = &d->b[i];
        if (i > 0 && d->b[i - 1].kind == DOC_WARNING && b->kind != DOC_WARNING && (err = strbuf_puts(sb, "\n")))
            break;
        switch (b->kind) {
        case DOC_SECTION: err = b->text ? md_text(sb, "##", b->text) : 0; break;
        case DOC_END: break;
        case DOC_HEADING: err = md_text(sb, "###", b->text); break;
        case DOC_PARA: {
            int bold = b->style == DOC_STRONG || b->style == DOC_NOTE || b->style == DOC_GOOD;
            err = bold ? strbuf_puts(sb, "**") : 0;
            if (!err)
                err = (b->flags & DOC_LINKS) ? doc_links(b->text, md_link, sb) : escape_md(sb, b->text);
            err = err ? err : strbuf_puts(sb, bold ? "**\n\n" : "\n\n");
            break;
        }
        case DOC_PARAS: err = doc_md_paragraphs(sb, b->items, b->nitems); break;
        case DOC_WARNING:
            err = strbuf_puts(sb, "- ");
            if (!err && b->id) {
                err = escape_md(sb, b->id);
                err = err ? err : strbuf_puts(sb, ": ");
            }
            err = err ? err : escape_md(sb, b->text);
            err = err ? err : strbuf_puts(sb, i + 1 == d->n ? "\n\n" : "\n");
            break;
        case DOC_TABLE:
            err = doc_md_table(sb, &b->table);
            err = err ? err : strbuf_puts(sb, "\n");
            break;
        case DOC_FIGURE:
            if (b->fig >= d->nfigs)
                break;
            if (b->flags & DOC_MDHEAD)
                err = md_text(sb, "###", d->figs[b->fig].title);
            err = err ? err : doc_md_figure(sb, &d->figs[b->fig], charts_rel);
            break;
        case DOC_CODE:
            err = escape_md_code(sb, b->text, b->id);
            err = err ? err : strbuf_puts(sb, "\n");
            break;
        case DOC_DETAILS:
            err = strbuf_puts(sb, "<details><summary>");
            /* inside raw HTML, Markdown escaping does not apply: use HTML escaping */
            err = err ? err : escape_html(sb, b->id);
            err = err ? err : strbuf_puts(sb, "</summary>\n\n");
            err = err ? err : escape_md_code(sb, b->text, "text");
            err = err ? err : strbuf_puts(sb, "\n</details>\n\n");
            break;
        }
    }
    return err;
}

int doc_md_write(const struct doc *d, const char *template_name, const char *path, const char *charts_rel)
{
    struct kvlist vars = {0};
    struct strbuf body = {0}, out = {0};
    char *tmpl = NULL;
    char gen[64];
    int err = doc_error(d);
    snprintf(gen, sizeof(gen), "benchgen %s", BENCHGEN_VERSION);
    if (err < 0 || (err = template_load(&tmpl, template_name)) < 0)
        goto done;
    if ((err = strbuf_append(&body, "", 0)) < 0 || (err = doc_md_render(&body, d, charts_rel)) < 0)
        goto done;
    if ((err = kvlist_add(&vars, "title", d->title)) < 0 ||
        (err = kvlist_add(&vars, "description", d->subtitle)) < 0 ||
        (err = kvlist_add(&vars, "generator", gen)) < 0 || (err = kvlist_add(&vars, "body", body.buf)) < 0)
        goto done;
    if ((err = template_render(&out, template_name, tmpl, &vars, escape_md)) < 0)
        goto done;
    err = chart_write_file(path, out.buf, out.len);
done:
    kvlist_free(&vars);
    strbuf_free(&body);
    strbuf_free(&out);
    free(tmpl);
    return err;
}
