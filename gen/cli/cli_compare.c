/*
 * cli_compare.c - `benchgen compare RUN_A RUN_B [RUN_C ...]`: the command
 * line over compare.h (the comparison, text and JSON) and compare_report.h
 * (the report formats written with --out).
 */
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/term.h"
#include "compare/compare.h"
#include "compare/compare_profile.h"
#include "compare/compare_plan.h"
#include "compare/compare_report.h"
#include "report/outdir.h"
#include "run/abarm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct compare_cli_opts {
    const char *out, *noise, *alpha, *intended, *plan, *effect, *profile, *save_profile;
    int resamples;
    bool json, force, quiet;
    const char *progress;
};

static const struct opt compare_options[] = {
    OPT_STR(struct compare_cli_opts, noise, "noise", 0, "PCT",
            "half-width of the noise band in percent (default 2)"),
    OPT_STR(struct compare_cli_opts, alpha, "alpha", 0, "A",
            "false discovery rate for the per-process tests (default 0.05);\nthe confidence level of the intervals is 1 - A"),
    OPT_STR(struct compare_cli_opts, intended, "intended", 0, "LIST",
            "the components meant to change (comma-separated globs:\ndiffusers, 'nvidia-*', cuda.runtime); pins "
            "given to\n`benchgen run --with PKG==VER` count as intended already"),
    OPT_FLAG(struct compare_cli_opts, json, "json", 0, "print the \"benchgen-compare/1\" JSON document instead of text"),
    OPT_STR(struct compare_cli_opts, out, "out", 'o', "DIR",
            "also write into DIR: compare.txt, compare.json, and the report\nformats (compare.html, .md, .pdf, "
            ".xlsx, charts/: forest plots\nof the ratios, and the trend with three or more runs)"),
    OPT_FLAG(struct compare_cli_opts, force, "force", 0,
             "with --out: replace files in DIR that benchgen's mark\n(DIR/.benchgen-compare) does not list"),
    OPT_STR(struct compare_cli_opts, plan, "plan", 0, "RUN_DIR",
            "from that run's repeats, estimate per cell how many processes\nper side a comparison needs to find a "
            "change of --effect"),
    OPT_STR(struct compare_cli_opts, effect, "effect", 0, "PCT", "the change --plan plans for (default 5)"),
    OPT_STR(struct compare_cli_opts, profile, "profile", 0, "FILE",
            "a noise profile (--save-profile): each cell's band and planning\nfrom its scatter, when the drift "
            "canary says the machine\nhas not moved since it was made"),
    OPT_STR(struct compare_cli_opts, save_profile, "save-profile", 0, "FILE",
            "from an A/A comparison (two runs of the same code, e.g. a\n`run --ab` without --with): write each "
            "cell's between-process\nscatter and the drift canary's reading to FILE"),
    OPT_INT(struct compare_cli_opts, resamples, "resamples", 0, "N", 100, 1000000,
            "bootstrap resamples, for experiments (default: what reports use)"),
    TERM_OPTIONS(struct compare_cli_opts),
};

static int parse_double(const char *s, double *out)
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
static int write_out(const char *dir, const char *name, const struct compare_result *r,
                     int (*fn)(const struct compare_result *, FILE *))
{
    char *buf = NULL, *path = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        xalloc_die(0);
    int err = fn(r, f);
    if (fclose(f) != 0 && !err)
        err = error_set(BG_EIO, "compare: cannot write %s", name);
    if (!err) {
        path = xprintf("%s/%s", dir, name);
        err = util_write_file_atomic(path, buf, len);
    }
    free(buf);
    free(path);
    return err;
}

static const char *const compare_docs[] = {"compare.txt",  "compare.json", "compare.html", "compare.md",
                                           "compare.pdf", "compare.xlsx", NULL};

/* The mark's lines: the runs compared, baseline first, each with its id. */
static char *compare_mark_head(const struct compare_result *r)
{
    struct strbuf sb = {0};
    for (size_t i = 0; i < r->nruns; i++) {
        char id[65];
        outdir_run_id(r->runs[i], id);
        strbuf_printf(&sb, "run: %s (created %s, id %s)\n", r->runs[i]->name, r->runs[i]->created_utc, id);
    }
    return strbuf_detach(&sb); /* NULL only for a format that did not expand: the mark then has no runs */
}

static int compare_cmd(const struct cli_call *call)
{
    const struct compare_cli_opts *o = call->opts;
    struct compare_options opt = {SIGNIFICANCE_ALPHA, SIGNIFICANCE_NOISE, SIGNIFICANCE_RESAMPLES, o->intended, NULL};
    if (term_setup(o->quiet, o->progress) < 0)
        return cli_usage_error(&cli_compare, "%s", error_last());
    if (o->noise) {
        double pct;
        if (parse_double(o->noise, &pct) < 0 || !(pct >= 0.0 && pct < 100.0))
            return cli_usage_error(&cli_compare,
                                   "--noise expects a percentage in [0, 100), e.g. 2 or 2%% (got '%s')", o->noise);
        opt.noise = pct / 100.0;
    }
    if (o->alpha && (parse_double(o->alpha, &opt.alpha) < 0 || !(opt.alpha > 0.0 && opt.alpha < 1.0)))
        return cli_usage_error(&cli_compare, "--alpha expects a number between 0 and 1 (got '%s')", o->alpha);
    if (o->resamples)
        opt.resamples = (size_t)o->resamples;
    double effect = SIGNIFICANCE_DETECT;
    if (o->effect) {
        double pct;
        if (parse_double(o->effect, &pct) < 0 || !(pct > 0.0 && pct < 100.0))
            return cli_usage_error(&cli_compare, "--effect expects a percentage in (0, 100), e.g. 5 or 5%% (got '%s')",
                                   o->effect);
        effect = pct / 100.0;
    }
    if (o->plan) {
        if (call->nargs || o->out || o->json)
            return cli_usage_error(&cli_compare, "--plan takes one run and prints text: drop the other runs, --out "
                                                 "and --json");
        int perr = compare_plan(o->plan, effect, &opt, term_stdout());
        return perr < 0 ? cli_fail(&cli_compare, perr) : 0;
    }
    if (o->effect)
        return cli_usage_error(&cli_compare, "--effect only makes sense with --plan");

    /* One argument: the DIR/a and DIR/b of `run --ab`. */
    const char *dirs[2];
    const char *const *args = call->args;
    size_t nargs = (size_t)call->nargs;
    char *ab_a = NULL, *ab_b = NULL;
    if (nargs == 1) {
        struct stat sa, sb;
        abarm_dirs(call->args[0], &ab_a, &ab_b);
        if (stat(ab_a, &sa) == 0 && S_ISDIR(sa.st_mode) && stat(ab_b, &sb) == 0 &&
            S_ISDIR(sb.st_mode)) {
            dirs[0] = ab_a;
            dirs[1] = ab_b;
            args = dirs;
            nargs = 2;
        }
    }
    if (nargs < 2) {
        free(ab_a);
        free(ab_b);
        return cli_usage_error(&cli_compare, "%s",
                               nargs ? "need a second run to compare with the first (or the DIR of a run --ab)"
                                     : "need at least two runs");
    }

    struct compare_result r;
    struct compare_profile *profile = NULL;
    int err = o->profile ? compare_profile_load(&profile, o->profile) : 0;
    opt.profile = profile;
    if (!err)
        err = compare_load(&r, (const char *const *)args, nargs, &opt);
    free(ab_a);
    free(ab_b);
    if (err) {
        compare_profile_free(profile);
        return cli_fail(&cli_compare, err);
    }
    if (o->save_profile) {
        if ((err = compare_profile_save(&r, o->save_profile)) < 0) {
            compare_result_free(&r);
            compare_profile_free(profile);
            return cli_fail(&cli_compare, err);
        }
        term_say(VOICE_NOTE, "compare", "wrote the noise profile %s", o->save_profile);
    }
    FILE *out = term_stdout(); /* --quiet: the exit status and --out's files say it */
    err = o->json ? compare_write_json(&r, out) : compare_write_text(&r, out);
    fflush(out);
    if (!err && o->out) {
        /* into a fresh stage, then moved into place (report/outdir.h) */
        struct outdir od;
        char *head = compare_mark_head(&r);
        const struct outdir_owner who = {"compare", head, NULL, NULL, NULL, compare_docs};
        if ((err = outdir_open(&od, o->out, &who, o->force)) == 0) {
            if ((err = write_out(od.stage, "compare.txt", &r, compare_write_text)) == 0 &&
                (err = write_out(od.stage, "compare.json", &r, compare_write_json)) == 0 &&
                (err = compare_report_render(&r, od.stage)) == 0)
                err = outdir_commit(&od, 0);
            outdir_close(&od);
        }
        free(head);
        if (!err)
            term_say(VOICE_NOTE, "compare",
                     "wrote %s/: compare.txt compare.json compare.html compare.md compare.pdf compare.xlsx charts/",
                     o->out);
    }
    int rc = err ? cli_fail(&cli_compare, err) : compare_exit_status(&r);
    compare_result_free(&r);
    compare_profile_free(profile);
    return rc;
}

const struct cli_command cli_compare = {
    .name = "compare",
    .synopsis = "RUN_A RUN_B [RUN_C ...] [--out DIR] [--noise PCT] [--alpha A]\n"
                " [--intended PKG,...] [--json] [--force] [--profile FILE] [--save-profile FILE]\n"
                " [--quiet] [--progress MODE]\n"
                "AB_DIR [options]    (the DIR/a and DIR/b of `run --ab`)\n"
                "--plan RUN_DIR [--effect PCT] [--noise PCT] [--alpha A]",
    .summary = "A/B verdicts per cell with the environment diff (exit 3 if slower)",
    .about =
        "Compares runs cell by cell; every run after the first is compared with the first\n"
        "(the baseline). Cells match on model, task, batch and backend; a pair whose size,\n"
        "precision, input hash or method (workload, warm-up steps) differs is reported as a\n"
        "mismatch, not a delta. The process is the unit of replication: each repeat (spec\n"
        "`repeats:`, run --repeats) gives one number, its mean ms/step.\n"
        "\n"
        "Verdict per cell: slower / faster when each side has at least 5 processes, a\n"
        "t-test on the log per-process means (paired for the two arms of one `run --ab`)\n"
        "is significant after Benjamini-Hochberg correction over all tested cells, its\n"
        "confidence interval of the ratio B/A lies entirely beyond 1 +/- --noise, AND the\n"
        "ratio itself lies outside the cell's noise band (--noise, or the cell's measured\n"
        "between-process CV when larger); same when the interval lies entirely inside the\n"
        "band; ambiguous otherwise, with the reason and\n"
        "the processes per side that would settle it. The two arms of a sequential\n"
        "`run --ab` (its default) are judged by the same rule at the look each cell\n"
        "stopped at, with that look's alpha-spending boundary (Lan-DeMets, Pocock type)\n"
        "in place of the fixed t-test level, and `same` also when the interval lies\n"
        "inside +/- --effect; each cell says how many processes it took and why it\n"
        "stopped (docs/COMPARE.md, \"Sequential verdicts\"). A drift canary timed before every\n"
        "cell tells when the machine itself moved between runs: verdicts are then marked\n"
        "confounded by machine drift. Cells where a side is not ok get no verdict. The\n"
        "environment diff (packages, Python, CUDA, cuDNN, driver,\n"
        "GPU, CPU, benchgen) is shown next to the deltas, and cells where more than the\n"
        "intended component changed are flagged as confounded. See docs/COMPARE.md.\n",
    .exits = "0    no cell got slower\n"
             "1    a run could not be read, or DIR could not be written\n"
             "2    usage error, a run directory is missing, or DIR is refused (inside a run,\n"
             "     being written by another benchgen, or holding a file benchgen did not write)\n"
             "3    some cell got slower (a CI gate)",
    .spec = {compare_options, sizeof(compare_options) / sizeof(compare_options[0]), 0, -1, "RUN_A RUN_B"},
    .opts_size = sizeof(struct compare_cli_opts),
    .run = compare_cmd,
};
