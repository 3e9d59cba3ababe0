/*
 * cli_report.c - `benchgen report RUN_DIR`: the command line over
 * report_render() (report.h).
 */
#include "base/error.h"
#include "base/escape.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/term.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

struct report_cli_opts {
    const char *out, *baseline, *reference, *format;
    int revision, jobs;
    bool quiet, force;
    const char *progress;
};

static const struct opt report_options[] = {
    OPT_STR(struct report_cli_opts, out, "out", 'o', "DIR", "where to write (default: reports/<name of RUN_DIR>)"),
    OPT_STR(struct report_cli_opts, baseline, "baseline", 0, "BACKEND",
            "speedup baseline (default: torch-eager, which every\npublished row has; else keras2-tensorflow; else "
            "the first backend)"),
    OPT_STR(struct report_cli_opts, reference, "reference", 0, "FILE.csv",
            "published results to show side by side with their ratio,\ne.g. data/reference/keras-benchmarks.csv"),
    OPT_INT(struct report_cli_opts, revision, "reference-revision", 0, "N", 0, 1000000,
            "which revision of FILE.csv (default: the one matching the\nmost cells of the run, the latest on a "
            "tie)"),
    OPT_STR(struct report_cli_opts, format, "format", 0, "LIST",
            "comma-separated: html, md, pdf, xlsx, charts, all (default all)"),
    OPT_INT(struct report_cli_opts, jobs, "jobs", 'j', "N", 1, 256,
            "processes drawing charts and documents side by side\n(default: the CPUs this process may use, at most 16)"),
    OPT_FLAG(struct report_cli_opts, force, "force", 0,
             "replace the report of another run in DIR (without it, a\ndirectory holding another run's report is "
             "refused)"),
    TERM_OPTIONS(struct report_cli_opts),
};

static void report_defaults(void *p)
{
    struct report_cli_opts *o = p;
    o->revision = -1;
}

/* reports/<name of the run directory>: runs/a and runs/b of one spec get
 * reports/a and reports/b. */
static char *default_out(const char *given)
{
    char *real = NULL;
    const char *run_dir = given;
    size_t n = strlen(given);
    if (!strcmp(given, ".") || !strcmp(given, "..") || (n >= 2 && !strcmp(given + n - 2, "/.")) ||
        (n >= 3 && !strcmp(given + n - 3, "/..")))
        run_dir = real = realpath(given, NULL); /* `report .`: the directory's own name */
    if (!run_dir) {
        error_set(BG_EUSAGE, "%s: no such run directory", given);
        return NULL;
    }
    size_t end = strlen(run_dir);
    while (end > 1 && run_dir[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && run_dir[start - 1] != '/')
        start--;
    char *name = xstrndup(run_dir + start, end - start);
    char *safe = strcmp(name, ".") && strcmp(name, "..") && *name ? escape_filename(name) : NULL;
    char *out = safe ? xprintf("reports/%s", safe) : NULL;
    if (!safe)
        error_set(BG_EUSAGE, "%s: name the run directory, or give --out DIR", given);
    free(name);
    free(safe);
    free(real);
    return out;
}

static int report_cmd(const struct cli_call *call)
{
    const struct report_cli_opts *o = call->opts;
    const char *run_dir = call->args[0];
    struct report_options ro = {.baseline = o->baseline,
                                .reference = o->reference,
                                .reference_revision = o->revision,
                                .formats = REPORT_ALL,
                                .jobs = o->jobs,
                                .force = o->force,
                                .voice = *term_voice()};
    char *out_dir = NULL;
    int err = 0;
    if (term_setup(o->quiet, o->progress) < 0)
        return cli_usage_error(&cli_report, "%s", error_last());
    if (o->format && report_parse_formats(&ro.formats, o->format) < 0)
        return cli_usage_error(&cli_report, "%s", error_last());
    if (o->revision >= 0 && !o->reference)
        return cli_usage_error(&cli_report, "--reference-revision needs --reference");
    out_dir = o->out ? xstrdup(o->out) : default_out(run_dir);
    if (!out_dir)
        err = error_code();
    if (!err)
        err = report_render(run_dir, out_dir, &ro);
    if (err < 0) {
        free(out_dir);
        return cli_fail(&cli_report, err);
    }
    /* where it is, and what is there: `make report` ends with this line (not under --quiet) */
    static const struct {
        unsigned bit;
        const char *name;
    } outputs[] = {{REPORT_HTML, " report.html"},
                   {REPORT_MD, " report.md"},
                   {REPORT_PDF, " report.pdf"},
                   {REPORT_XLSX, " report.xlsx"},
                   {REPORT_CHARTS, " charts/"}};
    FILE *out = term_stdout();
    fprintf(out, "report: %s/:", out_dir);
    for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
        if (ro.formats & outputs[i].bit)
            fputs(outputs[i].name, out);
    fputc('\n', out);
    free(out_dir);
    return CLI_EXIT_OK;
}

const struct cli_command cli_report = {
    .name = "report",
    .synopsis = "RUN_DIR [--out DIR] [--baseline BACKEND]\n"
                " [--reference FILE.csv [--reference-revision N]]\n"
                " [--format LIST] [--jobs N] [--force] [--quiet] [--progress MODE]",
    .summary = "render HTML, Markdown, PDF, XLSX and charts from a run",
    .about = "Renders the report of a stored run from its samples (RUN_DIR/run.db), the\n"
             "same bytes every time: report.html (self-contained), report.md (charts\n"
             "linked as PNG), report.pdf, report.xlsx and charts/ (PNG, SVG, PDF). A\n"
             "--format subset writes only those files, and links nothing it did not\n"
             "write. DIR/.benchgen-report names the run whose report DIR holds.\n",
    .exits = "0    rendered\n"
             "1    rendering failed\n"
             "2    usage error, RUN_DIR is not a run directory, or DIR holds another run's report",
    .spec = {report_options, sizeof(report_options) / sizeof(report_options[0]), 1, 1, "RUN_DIR"},
    .opts_size = sizeof(struct report_cli_opts),
    .defaults = report_defaults,
    .run = report_cmd,
};
