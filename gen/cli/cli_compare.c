/*
 * cli_compare.c - `benchgen compare RUN_A RUN_B [RUN_C ...]`: the command
 * line over compare.h (the comparison, text and JSON) and compare_report.h
 * (the report formats written with --out).
 */
#include "cli/cli.h"
#include "compare/compare.h"
#include "compare/compare_report.h"
#include "base/error.h"
#include "base/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- command line -------------------------------------------------------- */

static const char usage_[] =
    "usage: benchgen compare RUN_A RUN_B [RUN_C ...] [--out DIR] [--noise PCT] [--alpha A]\n"
    "                        [--intended PKG[,PKG...]] [--json]\n"
    "\n"
    "Compares runs cell by cell; every run after the first is compared with the first\n"
    "(the baseline). Cells match on model, task, batch and backend; a pair whose size,\n"
    "precision, input hash or method (workload, warm-up steps) differs is reported as a\n"
    "mismatch, not a delta. Repeats (spec `repeats:`) are pooled as separate processes.\n"
    "\n"
    "Verdict per cell: slower / faster when a Mann-Whitney U test on the raw step times\n"
    "is significant after Benjamini-Hochberg correction over all tested cells AND the\n"
    "bootstrap confidence interval of the ratio of means B/A lies entirely outside the\n"
    "noise band; same when the interval lies entirely inside the band; ambiguous\n"
    "otherwise (large but not significant, or too noisy to tell). Cells where a side is\n"
    "not ok get no verdict. The environment diff (packages, Python, CUDA, cuDNN, driver,\n"
    "GPU, CPU, benchgen) is shown next to the deltas, and cells where more than the\n"
    "intended component changed are flagged as confounded.\n"
    "\n"
    "  --noise PCT       half-width of the noise band in percent (default 2)\n"
    "  --alpha A         false discovery rate for the U tests (default 0.05); the\n"
    "                    confidence level of the intervals is 1 - A\n"
    "  --intended LIST   the components meant to change (comma-separated globs:\n"
    "                    diffusers, 'nvidia-*', cuda.runtime); pins given to\n"
    "                    `benchgen run --with PKG==VER` count as intended already\n"
    "  --json            print the \"benchgen-compare/1\" JSON document instead of text\n"
    "  --out DIR         also write into DIR: compare.txt, compare.json, and the report\n"
    "                    formats (compare.html, .md, .pdf, .xlsx, charts/: forest plots\n"
    "                    of the ratios, and the trend with three or more runs)\n"
    "\n"
    "Exit status: 0 no cell got slower, 3 some cell got slower (a CI gate),\n"
    "2 usage error, 1 a run could not be read or DIR could not be written.\n"
    "See docs/COMPARE.md.\n";

static int usage_error_(const char *fmt, const char *arg)
{
    fprintf(stderr, "benchgen compare: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%.*s(`benchgen compare --help` explains every option)\n",
            (int)(strstr(usage_, "\n\n") - usage_ + 1), usage_);
    return 2;
}

static int parse_double_(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno)
        return -1;
    if (*end == '%')
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

/* Writes what fn prints into DIR/name atomically. */
static int write_out_(const char *dir, const char *name, const struct compare_result *r,
                      int (*fn)(const struct compare_result *, FILE *))
{
    char *buf = NULL, *path = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return error_set(BG_ENOMEM, "out of memory");
    int err = fn(r, f);
    if (fclose(f) != 0 && !err)
        err = error_set(BG_EIO, "compare: cannot write %s", name);
    if (!err && !(path = util_printf("%s/%s", dir, name)))
        err = error_set(BG_ENOMEM, "out of memory");
    if (!err)
        err = util_write_file_atomic(path, buf, len);
    free(buf);
    free(path);
    return err;
}

int cli_compare(int argc, char **argv)
{
    struct compare_options opt = {SIGNIFICANCE_ALPHA, SIGNIFICANCE_NOISE, SIGNIFICANCE_RESAMPLES, NULL};
    const char **dirs = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*dirs));
    const char *out_dir = NULL;
    bool json = false;
    size_t ndirs = 0;
    int rc = 0;
    if (!dirs) {
        fprintf(stderr, "benchgen compare: out of memory\n");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[32] = "";
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_, stdout);
            goto done;
        }
        if (strncmp(a, "--", 2) != 0 || !strcmp(a, "--")) {
            if (!strcmp(a, "--") && i + 1 < argc)
                a = argv[++i];
            dirs[ndirs++] = a;
            continue;
        }
        const char *eq = strchr(a, '=');
        snprintf(name, sizeof(name), "%.*s", (int)(eq ? (size_t)(eq - a) : strlen(a)), a);
        if (!strcmp(name, "--json")) {
            if (eq) {
                rc = usage_error_("--json takes no value", "");
                goto done;
            }
            json = true;
            continue;
        }
        if (strcmp(name, "--out") && strcmp(name, "--noise") && strcmp(name, "--alpha") &&
            strcmp(name, "--intended") && strcmp(name, "--resamples")) {
            rc = usage_error_("unknown option %s", a);
            goto done;
        }
        if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            rc = usage_error_("%s needs a value", a);
            goto done;
        }
        if (!strcmp(name, "--out")) {
            out_dir = val;
        } else if (!strcmp(name, "--intended")) {
            opt.intended = val;
        } else if (!strcmp(name, "--noise")) {
            double pct;
            if (parse_double_(val, &pct) < 0 || !(pct >= 0.0 && pct < 100.0)) {
                rc = usage_error_("--noise expects a percentage in [0, 100), e.g. 2 or 2%% (got '%s')", val);
                goto done;
            }
            opt.noise = pct / 100.0;
        } else if (!strcmp(name, "--alpha")) {
            if (parse_double_(val, &opt.alpha) < 0 || !(opt.alpha > 0.0 && opt.alpha < 1.0)) {
                rc = usage_error_("--alpha expects a number between 0 and 1 (got '%s')", val);
                goto done;
            }
        } else { /* --resamples: for experiments; the default is what reports use */
            char *end = NULL;
            unsigned long long n = strtoull(val, &end, 10);
            if (!*val || *end || n < 100 || n > 1000000) {
                rc = usage_error_("--resamples expects an integer from 100 to 1000000 (got '%s')", val);
                goto done;
            }
            opt.resamples = (size_t)n;
        }
    }
    if (ndirs < 2) {
        rc = usage_error_("%s",
                          ndirs ? "need a second run to compare with the first" : "need at least two runs");
        goto done;
    }

    struct compare_result r;
    int err = compare_load(&r, dirs, ndirs, &opt);
    if (err) {
        fprintf(stderr, "benchgen compare: %s\n", error_last());
        rc = error_exit_status(err);
        goto done;
    }
    err = json ? compare_write_json(&r, stdout) : compare_write_text(&r, stdout);
    fflush(stdout);
    if (!err && out_dir) {
        if ((err = util_mkdir_p(out_dir, 0755)) == 0 &&
            (err = write_out_(out_dir, "compare.txt", &r, compare_write_text)) == 0 &&
            (err = write_out_(out_dir, "compare.json", &r, compare_write_json)) == 0)
            err = compare_report_render(&r, out_dir);
        if (!err)
            fprintf(stderr,
                    "benchgen compare: wrote %s/: compare.txt compare.json compare.html compare.md "
                    "compare.pdf compare.xlsx charts/\n",
                    out_dir);
    }
    if (err) {
        fprintf(stderr, "benchgen compare: %s\n", error_last());
        rc = error_exit_status(err);
    } else {
        rc = compare_exit_status(&r);
    }
    compare_result_free(&r);
done:
    free(dirs);
    return rc;
}
