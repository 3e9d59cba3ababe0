/*
 * fuzz_run.h - reading one run directory the way `show`, `report` and
 * `compare` read a run someone handed over: rundata_load(), show_run() as
 * text and as JSON, compare_build() of the run against itself with both
 * writers, and report_render() of the HTML report with no chart files
 * (report.json, the figures' data, the document model, the HTML writer;
 * drawing PNG/SVG/PDF charts costs ~0.3 s an input and is left out).
 * Shared by fuzz_rundb.c (bytes) and fuzz_runsql.c (SQL rows).
 */
#ifndef BENCHGEN_FUZZ_RUN_H
#define BENCHGEN_FUZZ_RUN_H

#include "fuzz_common.h"

#include "cli/show.h"
#include "compare/compare.h"
#include "report/report.h"
#include "store/rundata.h"

/* Makes <scratch>/run for a fresh run.db: removes the journal, WAL and
 * shared-memory files the last input left; writes the path of run.db into
 * db (n bytes) and returns the directory. */
static const char *fuzz_run_dir(char *db, size_t n)
{
    static char dir[300];
    static const char *const leftovers[] = {"run.db-journal", "run.db-wal", "run.db-shm"};
    snprintf(dir, sizeof(dir), "%s/run", fuzz_scratch());
    mkdir(dir, 0700);
    for (size_t i = 0; i < 3; i++) {
        snprintf(db, n, "%s/%s", dir, leftovers[i]);
        unlink(db);
    }
    snprintf(db, n, "%s/run.db", dir);
    return dir;
}

static void fuzz_read_run(const char *dir)
{
    FILE *sink = fuzz_sink();
    (void)show_run(dir, false, sink);
    (void)show_run(dir, true, sink);
    struct rundata *runs[2] = {NULL, NULL};
    if (rundata_load(&runs[0], dir) < 0)
        return;
    if (rundata_load(&runs[1], dir) < 0) {
        rundata_free(runs[0]);
        return;
    }
    for (size_t i = 0; i < runs[0]->ncells; i++)
        (void)rundata_find(runs[0], runs[0]->cells[i].cell.key ? runs[0]->cells[i].cell.key : "");
    struct compare_result cr;
    memset(&cr, 0, sizeof(cr));
    struct compare_options co = {.resamples = 50};
    if (compare_build(&cr, runs, 2, &co) == 0) {
        (void)compare_write_text(&cr, sink);
        (void)compare_write_json(&cr, sink);
    }
    compare_result_free(&cr);
    if (!getenv("BENCHGEN_FUZZ_NO_REPORT")) {
        char out[512];
        snprintf(out, sizeof(out), "%s/report", fuzz_scratch());
        struct report_options ro = {.formats = REPORT_HTML, .jobs = 1, .force = 1,
                                    .reference_revision = -1};
        (void)report_render(dir, out, &ro);
    }
}

#endif /* BENCHGEN_FUZZ_RUN_H */
