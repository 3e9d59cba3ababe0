/*
 * bundle_render.c - renders a staged run's report (see bundle_render.h).
 */
#include "bundle/bundle_render.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int bundle_render_in(bundle_render_fn fn, const char *dir, const char *baseline)
{
    char *run = xprintf("%s/run", dir), *out = xprintf("%s/report", dir);
    struct report_options ro = {.baseline = baseline, .reference_revision = -1, .formats = REPORT_ALL};
    int err = 0;
    if ((err = (fn ? fn : report_render)(run, out, &ro)) < 0)
        err = error_prefix(err, "rendering the report failed");
    free(run);
    free(out);
    if (err)
        return err;
    /* a reader may leave SQLite's side files next to the database */
    char *shm = xprintf("%s/run/run.db-shm", dir), *wal = xprintf("%s/run/run.db-wal", dir);
    unlink(shm);
    unlink(wal);
    free(shm);
    free(wal);
    return 0;
}

