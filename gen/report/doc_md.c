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
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

void doc_md_table(struct strbuf *sb, const struct table *t)
{
    if (t->ncols == 0 || t->nrows == 0) {
        strbuf_puts(sb, "_None._\n");
        return;
    }
    if (t->caption) {
        escape_md(sb, t->caption);
        strbuf_puts(sb, "\n\n");
    }
    for (size_t c = 0; c < t->ncols; c++) {
        strbuf_puts(sb, "| ");
        escape_md(sb, t->head[c]);
        strbuf_puts(sb, " ");
    }
    strbuf_puts(sb, "|\n");
    for (size_t c = 0; c < t->ncols; c++)
        strbuf_puts(sb, t->numeric[c] ? "|---:" : "|---");
    strbuf_puts(sb, "|\n");
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const struct tcell *cell = table_at(t, r, c);
            int bold = cell->flags & TC_BOLD, warn = (cell->flags & TC_WARN) && cell->text[0];
            strbuf_puts(sb, "| ");
            strbuf_puts(sb, bold ? "**" : warn ? "\xE2\x9A\xA0 " : "");
            escape_md(sb, cell->text);
            strbuf_puts(sb, bold ? "** " : " ");
        }
        strbuf_puts(sb, "|\n");
    }
}

void doc_md_paragraphs(struct strbuf *sb, char **paras, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int bullet = strncmp(paras[i], "- ", 2) == 0;
        if (bullet)
            strbuf_puts(sb, "- ");
        escape_md(sb, paras[i] + (bullet ? 2 : 0));
        int next_bullet = i + 1 < n && strncmp(paras[i + 1], "- ", 2) == 0;
        strbuf_puts(sb, bullet && next_bullet ? "\n" : "\n\n");
    }
}

void doc_md_figure(struct strbuf *sb, const struct figure *f, const char *charts_rel)
{
    strbuf_puts(sb, "![");
    escape_md(sb, f->title);
    /* figure names are file-name safe (escape_filename) */
    strbuf_printf(sb, "](%s/%s.png)\n\n", charts_rel, f->name);
}

/* ---- the document ---------------------------------------------------------- */

static void md_link(const char *s, size_t n, const char *anchor, size_t alen, void *ctx)
{
    struct strbuf *sb = ctx;
    char *t = xstrndup(s, n);
    if (anchor)
        strbuf_puts(sb, "[");
    escape_md(sb, t);
    /* anchors are benchgen's own ("failures"), never the run's */
    if (anchor)
        strbuf_printf(sb, "](#%.*s)", (int)alen, anchor);
    free(t);
}

/* "HASHES text" (hashes NULL: the text alone) and a blank line. */
static void md_text(struct strbuf *sb, const char *hashes, const char *text)
{
    if (hashes)
        strbuf_printf(sb, "%s ", hashes);
    escape_md(sb, text);
    strbuf_puts(sb, "\n\n");
}

void doc_md_render(struct strbuf *sb, const struct doc *d, const char *charts_rel)
{
    for (size_t i = 0; i < d->n; i++) {
        const struct doc_block *b = &d->b[i];
        if (i > 0 && d->b[i - 1].kind == DOC_WARNING && b->kind != DOC_WARNING)
            strbuf_puts(sb, "\n");
        switch (b->kind) {
        case DOC_SECTION:
            if (b->text)
                md_text(sb, "##", b->text);
            break;
        case DOC_END: break;
        case DOC_HEADING: md_text(sb, "###", b->text); break;
        case DOC_PARA: {
            int bold = b->style == DOC_STRONG || b->style == DOC_NOTE || b->style == DOC_GOOD;
            if (bold)
                strbuf_puts(sb, "**");
            if (b->flags & DOC_LINKS)
                doc_links(b->text, md_link, sb);
            else
                escape_md(sb, b->text);
            strbuf_puts(sb, bold ? "**\n\n" : "\n\n");
            break;
        }
        case DOC_PARAS: doc_md_paragraphs(sb, b->items, b->nitems); break;
        case DOC_WARNING:
            strbuf_puts(sb, "- ");
            if (b->id) {
                escape_md(sb, b->id);
                strbuf_puts(sb, ": ");
            }
            escape_md(sb, b->text);
            strbuf_puts(sb, i + 1 == d->n ? "\n\n" : "\n");
            break;
        case DOC_TABLE:
            doc_md_table(sb, &b->table);
            strbuf_puts(sb, "\n");
            break;
        case DOC_FIGURE:
            if (b->fig >= d->nfigs)
                break;
            if (b->flags & DOC_MDHEAD)
                md_text(sb, "###", d->figs[b->fig].title);
            doc_md_figure(sb, &d->figs[b->fig], charts_rel);
            break;
        case DOC_CODE:
            escape_md_code(sb, b->text, b->id);
            strbuf_puts(sb, "\n");
            break;
        case DOC_DETAILS:
            strbuf_puts(sb, "<details><summary>");
            /* inside raw HTML, Markdown escaping does not apply: use HTML escaping */
            escape_html(sb, b->id);
            strbuf_puts(sb, "</summary>\n\n");
            escape_md_code(sb, b->text, "text");
            strbuf_puts(sb, "\n</details>\n\n");
            break;
        }
    }
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
    strbuf_append(&body, "", 0);
    doc_md_render(&body, d, charts_rel);
    if ((err = strbuf_error(&body)) < 0)
        goto done;
    kvlist_add(&vars, "title", d->title);
    kvlist_add(&vars, "description", d->subtitle);
    kvlist_add(&vars, "generator", gen);
    kvlist_add(&vars, "body", body.buf);
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
