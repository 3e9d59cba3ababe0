/*
 * compare_plan.c - processes per side needed per cell (see compare_plan.h).
 */
#include "compare/compare_plan.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "stats/tdist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The identity of a cell: its key without "#r<k>". */
static char *identity(const char *key)
{
    const char *h = strstr(key, "#r");
    return h ? xprintf("%.*s", (int)(h - key), key) : xstrdup(key);
}

int compare_plan(const char *run_dir, double effect, const struct compare_options *opt, FILE *out)
{
    struct rundata *rd = NULL;
    struct strlist ids = {0};
    double *logs = NULL;
    int err = rundata_load(&rd, run_dir);
    if (err < 0)
        return err;
    char **cid = xcalloc(rd->ncells ? rd->ncells : 1, sizeof(*cid));
    logs = xmalloc((rd->ncells ? rd->ncells : 1) * sizeof(*logs));
    for (size_t i = 0; i < rd->ncells && !err; i++) {
        cid[i] = identity(rd->cells[i].cell.key);
        err = strlist_add_unique(&ids, cid[i]);
    }
    if (err)
        goto done;
    int idw = 4;
    for (size_t k = 0; k < ids.n; k++)
        if ((int)strlen(ids.v[k]) > idw)
            idw = (int)strlen(ids.v[k]);
    fprintf(out,
            "benchgen compare --plan %s: processes per side to find a %g%% change (two-sided t-test on\n"
            "log per-process means at %g, 80%% power; band: the larger of --noise %g%% and the cell's CV).\n"
            "Benjamini-Hochberg over many cells asks for a little more; an interleaved --ab run (paired)\n"
            "usually for less.\n\n",
            run_dir, effect * 100.0, opt->alpha, opt->noise * 100.0);
    fprintf(out, "%-*s  %5s  %10s  %7s  %6s  %s\n", idw, "cell", "procs", "ms/step", "CV", "band", "needed per side");
    size_t worst = 0, never = 0, unknown = 0;
    for (size_t k = 0; k < ids.n; k++) {
        size_t n = 0;
        double sum = 0.0;
        for (size_t i = 0; i < rd->ncells; i++) {
            const struct rd_cell *c = &rd->cells[i];
            if (strcmp(cid[i], ids.v[k]) || c->result.status != STATUS_OK || c->st.n == 0 ||
                !(c->st.mean > 0.0))
                continue;
            logs[n++] = log(c->st.mean);
            sum += c->st.mean;
        }
        char mean[32] = "-", cv[32] = "-", band[32] = "-", need[96];
        if (n)
            compare_fmt_ms(mean, sizeof(mean), sum / (double)n);
        if (n < 2) {
            snprintf(need, sizeof(need), "unknown: %s", n ? "one process (run with --repeats 5 or more)" : "no ok process");
            unknown++;
        } else {
            double m = 0.0, v = 0.0;
            for (size_t i = 0; i < n; i++)
                m += logs[i];
            m /= (double)n;
            for (size_t i = 0; i < n; i++)
                v += (logs[i] - m) * (logs[i] - m);
            double sd = sqrt(v / (double)(n - 1)), b = sd > opt->noise ? sd : opt->noise;
            size_t need_n = tdist_processes_needed(sd, b, opt->noise, effect, opt->alpha, SIGNIFICANCE_POWER, 0,
                                                   SIGNIFICANCE_MAX_PROCESSES);
            snprintf(cv, sizeof(cv), "%.1f%%", sd * 100.0);
            snprintf(band, sizeof(band), "%.1f%%", b * 100.0);
            if (need_n == 0) {
                snprintf(need, sizeof(need), "never: the cell's noise (%.1f%%) is not below the effect", b * 100.0);
                never++;
            } else {
                if (need_n < SIGNIFICANCE_MIN_PROCESSES)
                    need_n = SIGNIFICANCE_MIN_PROCESSES;
                snprintf(need, sizeof(need), "%zu", need_n);
                if (need_n > worst)
                    worst = need_n;
            }
        }
        fprintf(out, "%-*s  %5zu  %10s  %7s  %6s  %s\n", idw, ids.v[k], n, mean, cv, band, need);
    }
    fprintf(out, "\n");
    if (worst)
        fprintf(out, "to find a %g%% change in every plannable cell: --repeats %zu on an interleaved run "
                     "(benchgen run SPEC --ab --repeats %zu)\n",
                effect * 100.0, worst + worst % 2, worst + worst % 2);
    if (never)
        fprintf(out, "%zu cell%s cannot show a %g%% change on this machine at any count: quieten the machine or "
                     "look for a larger effect\n",
                never, never == 1 ? "" : "s", effect * 100.0);
    if (unknown)
        fprintf(out, "%zu cell%s had fewer than two ok processes: their noise is unknown\n", unknown,
                unknown == 1 ? "" : "s");
done:
    free(logs);
    for (size_t i = 0; cid && i < rd->ncells; i++)
        free(cid[i]);
    free(cid);
    strlist_free(&ids);
    rundata_free(rd);
    return err;
}
