/*
 * figure.c - one figure and a list of them: the data arena, add, free (see figure.h).
 *
 * Each figure's data lives in one arena (every allocation made for it is
 * freed together), so a figure is a draw function plus a pointer, whatever
 * its kind.
 */
#include "report/figure.h"
#include "base/error.h"
#include "base/escape.h"
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ---------------------------------------------------------------- */

void *figure_arena_alloc(struct figure_arena *a, size_t size)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        a->p = xrealloc(a->p, cap * sizeof(*a->p));
        a->cap = cap;
    }
    void *m = xcalloc(1, size ? size : 1);
    a->p[a->n++] = m;
    return m;
}

char *figure_arena_printf(struct figure_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? figure_arena_alloc(a, (size_t)n + 1) : NULL;
    if (!s)
        a->failed = 1; /* a format that cannot expand */
    else {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

void figure_arena_free(void *data)
{
    struct figure_arena *a = data; /* every figure's data struct starts with its arena */
    if (!a)
        return;
    for (size_t i = a->n; i-- > 0;)
        if (a->p[i] != a)
            free(a->p[i]);
    free(a->p);
    free(a);
}

void *figure_arena_new(size_t size) { return xcalloc(1, size); }

/* ---- figure list ---------------------------------------------------------- */

int figures_add(struct figure **figs, size_t *nfigs, int section, double w, double h, double png_scale,
                chart_draw_fn draw, void *data, void (*free_data)(void *), const char *name,
                const char *title, const char *caption)
{
    struct figure *nf = xrealloc(*figs, (*nfigs + 1) * sizeof(*nf));
    *figs = nf;
    struct figure *f = &nf[*nfigs];
    memset(f, 0, sizeof(*f));
    f->name = escape_filename(name);
    f->title = xstrdup(title);
    f->caption = xstrdup(caption);
    f->section = section;
    f->w = w;
    f->h = h;
    f->png_scale = png_scale;
    f->draw = draw;
    f->data = data;
    f->free_data = free_data;
    (*nfigs)++;
    return 0;
}

int figures_add_arena(struct figure **figs, size_t *nfigs, int section, double w, double h, double png_scale,
                      chart_draw_fn draw, void *arena, char *name, char *title, const char *caption)
{
    const struct figure_arena *a = arena;
    int err = a->failed ? error_set(BG_EGENERIC, "figure %s: a label could not be formatted", name)
                        : figures_add(figs, nfigs, section, w, h, png_scale, draw, arena, figure_arena_free, name,
                                      title, caption);
    if (a->failed)
        figure_arena_free(arena);
    free(name);
    free(title);
    return err;
}

void figures_free(struct figure *figs, size_t nfigs)
{
    for (size_t i = 0; i < nfigs; i++) {
        struct figure *f = &figs[i];
        free(f->name);
        free(f->title);
        free(f->caption);
        free(f->svg);
        if (f->free_data)
            f->free_data(f->data);
    }
    free(figs);
}
