/*
 * doc.c - building the document model (see doc.h).
 */
#include "report/doc.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void doc_init(struct doc *d, const char *title, const char *subtitle, const struct figure *figs, size_t nfigs)
{
    memset(d, 0, sizeof(*d));
    d->figs = figs;
    d->nfigs = nfigs;
    d->chart_files = CHART_PNG | CHART_SVG | CHART_PDF;
    d->title = xstrdup(title ? title : "");
    d->subtitle = xstrdup(subtitle ? subtitle : "");
}

/* The longest prefix of text[0..max) that ends at a character boundary. */
static size_t char_cut(const char *text, size_t max)
{
    size_t cut = max;
    while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
        cut--;
    return cut;
}

char *doc_cap(const char *text, size_t max, const char *whole_in)
{
    size_t n = text ? strlen(text) : 0;
    if (n <= max)
        return NULL;
    size_t cut = char_cut(text, max);
    return xprintf("%.*s \xE2\x80\xA6 [truncated: %zu of %zu bytes shown; %s has the whole text]", (int)cut, text,
                   cut, n, whole_in);
}

char *doc_cap_lines(const char *text, size_t line_max, size_t max, const char *whole_in)
{
    size_t n = text ? strlen(text) : 0, longest = 0;
    for (const char *s = text; s && *s;) {
        size_t len = strcspn(s, "\n");
        if (len > longest)
            longest = len;
        s += len + (s[len] == '\n');
    }
    if (n <= max && longest <= line_max)
        return NULL;
    struct strbuf sb = {0};
    const char *s = text;
    size_t lines = 0, shown = 0;
    for (const char *t = text; *t; t++)
        lines += *t == '\n' || t[1] == '\0';
    while (*s && sb.len < max) {
        size_t len = strcspn(s, "\n");
        if (len > line_max) {
            size_t cut = char_cut(s, line_max);
            strbuf_printf(&sb, "%.*s \xE2\x80\xA6 [line truncated: %zu of %zu bytes shown]", (int)cut, s, cut, len);
        } else {
            strbuf_append(&sb, s, len);
        }
        if (s[len] == '\n')
            strbuf_puts(&sb, "\n");
        s += len + (s[len] == '\n');
        shown++;
    }
    if (*s)
        strbuf_printf(&sb, "\xE2\x80\xA6 [truncated: %zu of %zu lines shown; %s has the whole text]\n", shown, lines,
                      whole_in);
    return strbuf_detach(&sb);
}

char *doc_cap_spec(const char *spec_text)
{
    return doc_cap_lines(spec_text, DOC_TEXT_MAX, DOC_CODE_MAX, "`benchgen show RUN --json` (spec_text)");
}

void doc_free(struct doc *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->b[i].id);
        free(d->b[i].text);
        table_free(&d->b[i].table);
        for (size_t k = 0; k < d->b[i].nitems; k++)
            free(d->b[i].items[k]);
        free(d->b[i].items);
    }
    free(d->b);
    free(d->title);
    free(d->subtitle);
    memset(d, 0, sizeof(*d));
}

int doc_error(const struct doc *d) { return d->err; }

struct doc_block *doc_last(struct doc *d) { return d->n && !d->err ? &d->b[d->n - 1] : NULL; }

/* A new block with copies of id and text (either may be NULL); NULL after an error. */
static struct doc_block *add(struct doc *d, enum doc_kind kind, const char *id, const char *text)
{
    if (d->err)
        return NULL;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 32;
        d->b = xrealloc(d->b, d->cap * sizeof(*d->b));
    }
    struct doc_block *b = &d->b[d->n++];
    memset(b, 0, sizeof(*b));
    b->kind = kind;
    b->id = id ? xstrdup(id) : NULL;
    b->text = text ? xstrdup(text) : NULL;
    return b;
}

void doc_section(struct doc *d, const char *id, const char *title) { add(d, DOC_SECTION, id, title); }

void doc_end(struct doc *d) { add(d, DOC_END, NULL, NULL); }

void doc_heading(struct doc *d, const char *text) { add(d, DOC_HEADING, NULL, text); }

void doc_para(struct doc *d, enum doc_style style, const char *text)
{
    struct doc_block *b = add(d, DOC_PARA, NULL, text ? text : "");
    if (b)
        b->style = style;
}

void doc_paraf(struct doc *d, enum doc_style style, unsigned flags, const char *fmt, ...)
{
    if (d->err)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *text = xvformat(fmt, ap);
    va_end(ap);
    if (!text) {
        d->err = error_set(BG_EGENERIC, "document: a paragraph could not be formatted (\"%s\")", fmt);
        return;
    }
    struct doc_block *b = add(d, DOC_PARA, NULL, NULL);
    b->text = text;
    b->style = style;
    b->flags = flags;
}

void doc_paras(struct doc *d, char **paras, size_t n)
{
    struct doc_block *b = add(d, DOC_PARAS, NULL, NULL);
    if (!b)
        return;
    b->items = xcalloc(n + 1, sizeof(*b->items));
    for (; b->nitems < n; b->nitems++)
        b->items[b->nitems] = xstrdup(paras[b->nitems]);
}

void doc_warning(struct doc *d, const char *key, const char *text) { add(d, DOC_WARNING, key, text); }

void doc_table(struct doc *d, struct table *t, double size)
{
    int err = table_finish(t);
    if (err && !d->err)
        d->err = err;
    struct doc_block *b = add(d, DOC_TABLE, NULL, NULL);
    if (b) {
        b->table = *t;
        b->size = size;
    } else {
        table_free(t);
    }
    memset(t, 0, sizeof(*t));
}

void doc_figure(struct doc *d, size_t index, unsigned flags)
{
    struct doc_block *b = add(d, DOC_FIGURE, NULL, NULL);
    if (b) {
        b->fig = index;
        b->flags = flags;
    }
}

void doc_code(struct doc *d, const char *text, const char *lang) { add(d, DOC_CODE, lang, text ? text : ""); }

void doc_details(struct doc *d, const char *summary, const char *text) { add(d, DOC_DETAILS, summary, text); }

void doc_links(const char *text, void (*out)(const char *s, size_t n, const char *anchor, size_t alen, void *ctx),
               void *ctx)
{
    const char *p = text, *run = text;
    while (*p) {
        const char *close = *p == '[' ? strstr(p, "](#") : NULL;
        const char *end = close ? strchr(close + 3, ')') : NULL;
        if (!close || !end || memchr(p, '\n', (size_t)(end - p))) {
            p++;
            continue;
        }
        if (p > run)
            out(run, (size_t)(p - run), NULL, 0, ctx);
        out(p + 1, (size_t)(close - p - 1), close + 3, (size_t)(end - close - 3), ctx);
        p = run = end + 1;
    }
    if (p > run)
        out(run, (size_t)(p - run), NULL, 0, ctx);
}
