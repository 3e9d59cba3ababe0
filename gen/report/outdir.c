/*
 * outdir.c - claiming a report's output directory (see outdir.h).
 */
#include "report/outdir.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "report/figures.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const report_files[] = {"report.html", "report.md",   "report.pdf",
                                            "report.xlsx", "report.json", "summary.csv", NULL};

/* "run: NAME\ncreated: TIME\n" of the mark's text, into name/created (malloc'd). */
static void parse_mark(const char *text, char **name, char **created)
{
    *name = *created = NULL;
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (!strncmp(p, "run: ", 5) && !*name)
            *name = xstrndup(p + 5, len - 5);
        else if (!strncmp(p, "created: ", 9) && !*created)
            *created = xstrndup(p + 9, len - 9);
        p += len;
        if (*p == '\n')
            p++;
    }
}

/* Whose report out_dir holds: 0 nobody's (or this run's), 1 another run's
 * (described in *who, malloc'd), or a negative code. */
static int owner(const char *out_dir, const char *mark, const char *text, char **who)
{
    *who = NULL;
    char *old = NULL;
    size_t len = 0;
    int err = util_read_file(mark, &old, &len);
    if (err == BG_ENOTFOUND) {
        error_clear();
        for (size_t i = 0; report_files[i]; i++) {
            char *f = xprintf("%s/%s", out_dir, report_files[i]);
            int there = util_is_file(f);
            free(f);
            if (there) {
                *who = xprintf("a report of unknown origin (%s, but no %s)", report_files[i], OUTDIR_MARK);
                return 1;
            }
        }
        return 0;
    }
    if (err < 0)
        return err;
    int same = len == strlen(text) && !memcmp(old, text, len);
    if (!same) {
        char *name = NULL, *created = NULL;
        parse_mark(old, &name, &created);
        *who = xprintf("the report of run '%s' (created %s)", name ? name : "?", created ? created : "?");
        free(name);
        free(created);
    }
    free(old);
    return err < 0 ? err : !same;
}

int outdir_claim(const char *out_dir, const char *run_name, const char *created_utc, int force)
{
    char *text = xprintf("benchgen-report/1\nrun: %s\ncreated: %s\n", run_name ? run_name : "",
                         created_utc ? created_utc : "");
    char *mark = xprintf("%s/%s", out_dir, OUTDIR_MARK);
    char *who = NULL;
    int err = 0;
    int taken = 0;
    if (!err && util_is_dir(out_dir) && (taken = owner(out_dir, mark, text, &who)) < 0)
        err = taken;
    if (!err && taken == 1 && !force)
        err = error_set(BG_EUSAGE,
                        "%s holds %s; give --force to replace it, or --out another directory", out_dir, who);
    for (size_t i = 0; !err && taken == 1 && report_files[i]; i++) {
        char *f = xprintf("%s/%s", out_dir, report_files[i]);
        if (unlink(f) != 0 && errno != ENOENT)
            err = error_set(BG_EIO, "cannot remove %s: %s", f, strerror(errno));
        free(f);
    }
    char *charts = !err && taken == 1 ? xprintf("%s/charts", out_dir) : NULL;
    if (!err && taken == 1)
        err = figures_clean_dir(charts, NULL);
    free(charts);
    if (!err)
        err = util_mkdir_p(out_dir, 0755);
    if (!err)
        err = util_write_file_atomic(mark, text, strlen(text));
    free(text);
    free(mark);
    free(who);
    return err;
}
