/*
 * doc.c - building the document model (see doc.h).
 */
#include "report/doc.h"
#include "base/error.h"
#include "base/util.h"

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
    d->title = strdup(title ? title : "");
    d->subtitle = strdup(subtitle ? subtitle : "");
    if (!d->title || !d->subtitle)
        d->err = error_set(BG_ENOMEM, "out of memory");
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
        size_t cap = d->cap ? d->cap * 2 : 32;
        struct doc_block *nb = realloc(d->b, cap * sizeof(*nb));
        if (!nb) {
            d->err = error_set(BG_ENOMEM, "out of memory");
            return NULL;
        }
        d->b = nb;
        d->cap = cap;
    }
    struct doc_block *b = &d->b[d->n];
    memset(b, 0, sizeof(*b));
    b->kind = kind;
    if ((id && !(b->id = strdup(id))) || (text && !(b->text = strdup(text)))) {
        free(b->id);
        d->err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    d->n++;
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
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    if (!s) {
        d->err = error_set(BG_ENOMEM, "out of memory");
        return;
    }
    struct doc_block *b = add(d, DOC_PARA, NULL, s);
    free(s);
    if (b) {
        b->style = style;
        b->flags = flags;
    }
}

void doc_paras(struct doc *d, char **paras, size_t n)
{
    struct doc_block *b = add(d, DOC_PARAS, NULL, NULL);
    if (!b)
        return;
    b->items = calloc(n + 1, sizeof(*b->items));
    for (size_t i = 0; b->items && i < n; i++, b->nitems++)
        if (!(b->items[i] = strdup(paras[i])))
            break;
    if (!b->items || b->nitems < n)
        d->err = error_set(BG_ENOMEM, "out of memory");
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

int doc_links(const char *text, int (*out)(const char *s, size_t n, const char *anchor, size_t alen, void *ctx),
              void *ctx)
{
    const char *p = text, *run = text;
    int err = 0;
    while (*p && !err) {
        const char *close = *p == '[' ? strstr(p, "](#") : NULL;
        const char *end = close ? strchr(close + 3, ')') : NULL;
        if (!close || !end || memchr(p, '\n', (size_t)(end - p))) {
            p++;
            continue;
        }
        if (p > run)
            err = out(run, (size_t)(p - run), NULL, 0, ctx);
        err = err ? err : out(p + 1, (size_t)(close - p - 1), close + 3, (size_t)(end - close - 3), ctx);
        p = run = end + 1;
    }
    return err ? err : (p > run ? out(run, (size_t)(p - run), NULL, 0, ctx) : 0);
}
