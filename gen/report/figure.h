/*
 * figure.h - one figure of a report (or a compare report) and a list of
 * them: what it is called, its size, how it is drawn, the data it owns.
 * figures.h decides which figures a report gets and renders them; rctx.h
 * holds the report's list. This is the one home of struct figure: created
 * with figures_add(), released with figures_free().
 */
#ifndef BENCHGEN_FIGURE_H
#define BENCHGEN_FIGURE_H

#include <stddef.h>

#include "charts/chart.h"

struct figure {
    char *name;       /* file stem under charts/ ("heatmap", "cells-bert_fit_b32") */
    char *title;      /* caption heading */
    char *caption;    /* one sentence: what it shows */
    int section;      /* FIG_* */
    double w, h;      /* points */
    double png_scale; /* PNG pixels per point */
    chart_draw_fn draw;
    void *data; /* owned; released with free_data */
    void (*free_data)(void *data);
    char *svg; /* normalised SVG text for inline HTML; NULL until rendered */
};

enum { FIG_SUMMARY, FIG_SPEEDUP, FIG_HEATMAP, FIG_CELLS, FIG_REFERENCE, FIG_FOREST, FIG_TREND };

/* A figure's data: a struct whose first member is a struct figure_arena, so
 * every allocation made for it (figure_arena_alloc, figure_arena_printf) is
 * released together by figure_arena_free(data), the figure's free_data.
 * figure_arena_new(size) gives the zeroed data struct. Allocations never
 * return NULL (the x-family: out of memory exits); a->failed is set only by
 * a figure_arena_printf whose format cannot expand, checked once at the end. */
struct figure_arena {
    void **p;
    size_t n, cap;
    int failed;
};
void *figure_arena_new(size_t size);
void *figure_arena_alloc(struct figure_arena *a, size_t size);
char *figure_arena_printf(struct figure_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void figure_arena_free(void *data);

/* Declares struct NAME, the data of a figure that is one chart: its arena,
 * then the chart's own struct TYPE as MEMBER; and NAME_draw(), the figure's
 * chart_draw_fn, which draws it with DRAW(c, r, &data->MEMBER). */
#define FIGURE_DATA(NAME, TYPE, MEMBER, DRAW)                                      \
    struct NAME {                                                                 \
        struct figure_arena a;                                                    \
        TYPE MEMBER;                                                              \
    };                                                                            \
    static int NAME##_draw(struct chart *c, struct chart_rect r, const void *data) \
    {                                                                             \
        return DRAW(c, r, &((const struct NAME *)data)->MEMBER);                  \
    }

/* Appends a figure to *figs (name passed through escape_filename; title and
 * caption copied). It owns data from then on: free_data(data) runs when the
 * list is freed, or here when the figure cannot be added. */
int figures_add(struct figure **figs, size_t *nfigs, int section, double w, double h, double png_scale,
                chart_draw_fn draw, void *data, void (*free_data)(void *), const char *name,
                const char *title, const char *caption);

/* figures_add() for data that is an arena (figure_arena_free releases it),
 * taking name and title (malloc'd, from xprintf) over: they are freed here.
 * An arena a label format failed in (a->failed) is refused, freed, and
 * BG_EGENERIC returned; else figures_add()'s result. */
int figures_add_arena(struct figure **figs, size_t *nfigs, int section, double w, double h, double png_scale,
                      chart_draw_fn draw, void *arena, char *name, char *title, const char *caption);

/* Releases every figure of the list and the array itself. */
void figures_free(struct figure *figs, size_t nfigs);

#endif /* BENCHGEN_FIGURE_H */
