/*
 * bundle_render.c - renders a staged run's report (see bundle_render.h).
 */
#include "bundle/bundle_render.h"
#include "base/error.h"
#include "base/util.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int bundle_render_in(bundle_render_fn fn, const char *dir, const char *baseline)
{
    char *run = util_printf("%s/run", dir), *out = util_printf("%s/report", dir);
    struct report_options ro = {.baseline = baseline, .reference_revision = -1, .formats = REPORT_ALL, .quiet = 1};
    int err = run && out ? 0 : error_set(BG_ENOMEM, "out of memory");
    fflush(stdout);
    if (!err && (err = (fn ? fn : report_render)(run, out, &ro)) < 0)
        err = error_prefix(err, "rendering the report failed");
    fflush(stdout);
    free(run);
    free(out);
    if (err)
        return err;
    /* a reader may leave SQLite's side files next to the database */
    char *shm = util_printf("%s/run/run.db-shm", dir), *wal = util_printf("%s/run/run.db-wal", dir);
    if (shm)
        unlink(shm);
    if (wal)
        unlink(wal);
    free(shm);
    free(wal);
    return 0;
}

