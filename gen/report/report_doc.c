/*
 * report_doc.c - the run report's document (see report_doc.h).
 */
#include "report/report_doc.h"
#include "report/answer.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "report/hardware.h"
#include "report/methods.h"
#include "report/placement.h"
#include "report/tables.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void table(struct doc *d, const struct rctx *x, enum table_kind kind, double size)
{
    struct table t;
    if (d->err)
        return;
    int err = tables_build(x, kind, &t);
    if (err < 0)
        d->err = err;
    else
        doc_table(d, &t, size);
}

/* Whether t has something to say: a row with a cell at column `from` or
 * right of it that is not NA (so not a table of row labels alone, nor one
 * whose every value is NA). */
static int table_says(const struct table *t, size_t from)
{
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = from; c < t->ncols; c++)
            if (!(table_at(t, r, c)->flags & TC_NA) && table_at(t, r, c)->text[0])
                return 1;
    return 0;
}

/* A table that may have nothing to say (table_says() from column `from`):
 * then it is left out, and `why` (NULL: nothing) says so in one sentence
 * instead, never an empty table or a bare "None.". */
static void table_or(struct doc *d, const struct rctx *x, enum table_kind kind, double size, size_t from,
                     const char *why)
{
    struct table t;
    if (d->err)
        return;
    int err = tables_build(x, kind, &t);
    if (err < 0) {
        d->err = err;
    } else if (table_says(&t, from)) {
        doc_table(d, &t, size);
    } else {
        table_free(&t);
        if (why)
            doc_para(d, DOC_NORMAL, why);
    }
}

/* Whether some cell of the run has a number (an ok cell with timed steps). */
static int any_number(const struct rctx *x)
{
    for (size_t i = 0; i < x->g->nrows * x->g->ncols; i++)
        if (x->g->cells[i].ok)
            return 1;
    return 0;
}

static void figures(struct doc *d, const struct rctx *x, int section, unsigned flags)
{
    for (size_t i = 0; i < x->nfigs; i++)
        if (x->figs[i].section == section)
            doc_figure(d, i, flags);
}

static void warnings(struct doc *d, const struct rctx *x)
{
    size_t n = 0;
    for (size_t i = 0; i < x->rd->ncells; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        char w[1024];
        grid_warnings(&c->st, w, sizeof(w));
        hardware_cell_warnings(c, w, sizeof(w));
        if (!w[0] || c->result.status != STATUS_OK)
            continue;
        if (n++ == 0)
            doc_heading(d, "Warnings");
        doc_warning(d, c->cell.key, w);
    }
    char **audit = NULL;
    size_t naudit = 0;
    int err = hardware_audit_lines(x, &audit, &naudit);
    if (err < 0 && !d->err)
        d->err = err;
    for (size_t i = 0; i < naudit; i++) {
        if (n++ == 0)
            doc_heading(d, "Warnings");
        doc_warning(d, "method", audit[i]);
    }
    hardware_free_lines(audit, naudit);
    size_t nf = rctx_nfailures(x);
    if (nf)
        doc_paraf(d, DOC_ALERT, DOC_LINKS, "%zu cell%s did not produce a number: see [Failures](#failures).", nf,
                  nf == 1 ? "" : "s");
}

/* The answer first: a paragraph per row, the wins, the geometric means. */
static void answer(struct doc *d, const struct rctx *x)
{
    const struct answer *a = x->answer;
    if (!a || x->g->nrows == 0)
        return;
    doc_section(d, "answer", "The answer");
    for (size_t r = 0; r < x->g->nrows && !d->err; r++) {
        char *s = answer_sentence(a, x, r);
        doc_para(d, DOC_NORMAL, s);
        free(s);
    }
    if (a->max_repeats <= 1 && any_number(x)) /* with no number there is no interval to qualify */
        doc_para(d, DOC_ALERT,
                 "No repeats: every cell ran once, in one process. The intervals cover step-to-step noise "
                 "only, not the differences between processes or machines; benchgen run --repeats N measures "
                 "those.");
    if (any_number(x)) { /* else each row's sentence has said that no backend produced a number */
        table(d, x, TABLE_WINS, 7.5);
        if (x->g->ncols > 1 && x->baseline >= 0) {
            char *why = xprintf("No geometric-mean speed-up: no row has a number from both the baseline, %s, "
                                "and another backend.",
                                x->g->cols[x->baseline].display);
            table_or(d, x, TABLE_GEOMEAN, 7.5, 2, why);
            free(why);
        }
    }
    doc_end(d);
}

/* The hardware table (report/hardware.h), when some cell has hardware facts:
 * runs made before them render exactly as before. */
static void hardware(struct doc *d, const struct rctx *x)
{
    struct table t;
    if (d->err)
        return;
    int err = hardware_table(x, &t);
    if (err < 0 || !t.nrows) {
        d->err = err;
        table_free(&t);
        return;
    }
    doc_heading(d, "Hardware: FLOP/s, MFU, energy, throttling, contention");
    doc_table(d, &t, 6);
}

/* Every cell's log, folded: what it ran, how it ended, when each phase of
 * its worker finished, where its output is, and a failure's whole detail.
 * The Statistics and Failures tables link each cell here; the PDF keeps
 * only the failures' (a traceback is what a reader of paper needs). */
static void cell_logs(struct doc *d, const struct rctx *x)
{
    doc_section(d, "logs", "Cell logs");
    doc_para(d, DOC_MUTED,
             "Per cell: its status, the device it ran on, worker phases (seconds since the worker started), wall time, peak memory, "
             "log file, and a failure's full detail. The tables link each cell's name here.");
    struct strbuf sb = {0};
    for (size_t i = 0; i < x->rd->ncells && !d->err; i++) {
        const struct rd_cell *c = &x->rd->cells[i];
        int ok = c->result.status == STATUS_OK;
        char *phases = rctx_phases(c);
        strbuf_free(&sb);
        const char *dev = result_device(&c->result);
        strbuf_printf(&sb,
                      "status    %s\nenv       %s (%s, %s)\ndevice    %s (the spec: %s)\n"
                      "steps     %zu timed, %zu warm-up\n",
                      c->result.status ? status_name(c->result.status) : "not run", c->cell.env, c->cell.size,
                      c->cell.precision, dev ? dev : "not reported", c->cell.device ? c->cell.device : "auto",
                      c->result.ntimed, c->result.nwarmup);
        if (c->result.status)
            strbuf_printf(&sb, "wall      %.2f s, peak RSS %.1f MiB, exit %d%s%s\n", c->result.wall_s,
                          (double)c->result.peak_rss / (1024.0 * 1024.0), c->result.exit_code,
                          c->result.term_signal ? ", signal " : "",
                          c->result.term_signal ? strsignal(c->result.term_signal) : "");
        strbuf_printf(&sb, "phases    %s\nlog       %s\n", phases && phases[0] ? phases : "-",
                      c->log_path ? c->log_path : "-");
        if (c->result.detail && c->result.detail[0])
            strbuf_printf(&sb, "\n%s\n", c->result.detail);
        free(phases);
        if ((d->err = strbuf_error(&sb)) < 0)
            break;
        doc_details(d, c->cell.key, sb.buf);
        struct doc_block *b = doc_last(d);
        if (b && (ok || !c->result.detail))
            b->flags |= DOC_SCREEN;
    }
    strbuf_free(&sb);
    doc_end(d);
}

int report_doc_build(struct doc *d, const struct rctx *x)
{
    char *title = xprintf("Benchmark report: %s", x->rd->name);
    doc_init(d, title, x->rd->description, x->figs, x->nfigs);
    free(title);

    placement_device_alert(d, x);
    answer(d, x);

    doc_section(d, "run", NULL);
    table(d, x, TABLE_META, 8);
    warnings(d, x);
    doc_end(d);

    doc_section(d, "summary", "Summary");
    doc_para(d, DOC_NORMAL,
             "Mean ms/step of the timed steps (the published metric); lower is better. Outlined and bold: the "
             "row's fastest cell, or every cell within 2% of it (a tie inside the noise band); shading: ratio "
             "to the row's best (darker is slower). NA: no number, with the reason.");
    table(d, x, TABLE_SUMMARY, 7.5);
    int numbers = any_number(x);
    if (!numbers) {
        /* nothing below has a number to show: one sentence instead of NA tables and empty charts */
        doc_para(d, DOC_NORMAL,
                 "No cell produced a number, so this report has no statistics, throughput, speedup, heatmap "
                 "or step-time chart; Failures says how each cell ended.");
        doc_end(d);
    } else {
        table_or(d, x, TABLE_DETAIL, 7, 2, NULL);
        table_or(d, x, TABLE_THROUGHPUT, 7.5, 3, NULL);
        figures(d, x, FIG_SUMMARY, 0);
        doc_end(d);

        doc_section(d, "speedup", "Speedup");
        if (x->g->ncols < 2 || x->baseline < 0) {
            doc_paraf(d, DOC_NORMAL, 0, "No speedup: the run has one backend, %s, and so nothing to compare it with.",
                      x->g->ncols ? x->g->cols[0].display : "none");
        } else {
            char *why = xprintf("No speedup: no row has a number from both the baseline, %s, and another backend.",
                                x->g->cols[x->baseline].display);
            table_or(d, x, TABLE_SPEEDUP, 7.5, 2, why);
            free(why);
            figures(d, x, FIG_SPEEDUP, 0);
        }
        doc_end(d);

        doc_section(d, "heatmap", "Relative to each row's best");
        figures(d, x, FIG_HEATMAP, 0);
        doc_end(d);
    }

    if (x->ref) {
        doc_section(d, "reference", "Measured vs published");
        if (x->hardware_note[0])
            doc_para(d, DOC_NOTE, x->hardware_note);
        table(d, x, TABLE_REFERENCE, 6.5);
        figures(d, x, FIG_REFERENCE, 0);
        doc_end(d);
    }

    doc_section(d, "configuration", "What was measured");
    table(d, x, TABLE_CONFIG, 7);
    doc_end(d);

    if (numbers) {
        doc_section(d, "statistics", "Statistics per cell");
        table(d, x, TABLE_STATISTICS, 6);
        hardware(d, x);
        doc_end(d);

        doc_section(d, "cells", "Step times per cell");
        figures(d, x, FIG_CELLS, DOC_MDHEAD);
        doc_end(d);
    }

    doc_section(d, "method", "Method");
    doc_paras(d, x->method, x->nmethod);
    methods_section(d, x);
    doc_end(d);

    doc_section(d, "fairness", "Fairness notes");
    doc_paras(d, x->fairness, x->nfairness);
    doc_heading(d, "Facts recorded per backend");
    table_or(d, x, TABLE_FACTS, 7.5, 0, "No cell recorded facts: every cell ended before its workload was set up.");
    doc_end(d);

    placement_section(d, x);

    doc_section(d, "environment", "Environment");
    doc_heading(d, "Machine and run");
    table(d, x, TABLE_RUN_ENV, 7.5);
    doc_heading(d, "Per backend");
    table_or(d, x, TABLE_PY_ENV, 7, 0, "No cell recorded its Python environment: none got as far as starting it.");
    doc_end(d);

    doc_section(d, "failures", "Failures");
    table_or(d, x, TABLE_FAILURES, 7.5, 0, "Every cell ended ok with timed steps.");
    doc_end(d);

    cell_logs(d, x);

    doc_section(d, "spec", "Spec");
    /* a page of each line, 64 KiB in all: layout cost never grows with the spec */
    char *spec = doc_cap_spec(x->rd->spec_text);
    doc_code(d, spec ? spec : x->rd->spec_text, "yaml");
    free(spec);
    doc_end(d);
    return doc_error(d);
}
