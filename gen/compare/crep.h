/*
 * crep.h - the comparison report's context: what compare_report.c builds once
 * and every writer (compare_tables.c, compare_workbook.c, the documents)
 * reads, and the words they all use. Its one home, so the writers do not
 * include the renderer that includes them.
 */
#ifndef BENCHGEN_CREP_H
#define BENCHGEN_CREP_H

#include <stdbool.h>
#include <time.h>

#include "compare/compare.h"
#include "report/doc.h"
#include "report/figure.h"
#include "report/tables.h"

/* What the writers share, built once by compare_report_render: the figures
 * and the document every format but the workbook draws; the workbook
 * (compare_workbook.c) reads the result itself, in its own sheets. */
struct crep {
    const struct compare_result *r;
    time_t created;
    char pdf_date[32], created_text[40];
    char *title, *subtitle, *result;
    char **method; /* paragraphs */
    size_t nmethod;
    struct figure *figs;
    size_t nfigs;
    size_t *forest_first, *forest_n; /* per comparison: its forest figures in figs */
    size_t trend_first, trend_n;
    struct table trend; /* three or more runs: mean ms/step per cell and run */
    struct doc doc;
};

/* The words every format uses. */
const char *crep_run_name(const struct crep *x, size_t k);
/* Why a cell has no ratio, into buf (returned). */
const char *crep_untested_reason(const struct compare_cell *c, char *buf, size_t n);
/* A side's mean ms/step: its text and value (NAN with an NA text). */
double crep_side_text(const struct compare_side *s, int baseline, char *buf, size_t n);
/* A geometric-mean ratio B/A as a speed-up: "1.250x". */
void crep_speedup_text(double geomean_ratio, char *buf, size_t n);
/* A geometric mean as a speed-up for a headline: "1.250x over 3 decided
 * cells", "cannot tell (no cell decided; between 0.136x and 8.33x)",
 * "NA (no tested cells)". */
void crep_geomean_text(const struct compare_geomean *g, char *buf, size_t n);
/* No comparison decided any cell (same, faster or slower). */
bool crep_nothing_decided(const struct compare_result *r);
/* "not counted", "counted", "intended" or "NOT intended". */
const char *crep_change_tag(const struct compare_change *c, const struct compare_pair *p);

/* The result in words, malloc'd: "Result: slower: sd/predict/b1/torch-eager
 * by 10.4% in [1] upgrade; ..." (at most max cells named, then "and N
 * more"), "Result: no cell got slower." (with how many cannot tell), or
 * "Result: nothing decided: ..." when no tested cell got a decided verdict;
 * never NULL. */
char *crep_result_text(const struct compare_result *r, size_t max);
#endif /* BENCHGEN_CREP_H */
