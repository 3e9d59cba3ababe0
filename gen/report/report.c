/*
 * report.c - `benchgen report`: options, then run -> grid -> figures ->
 * documents (see report.h).
 *
 * Reproducibility is the design constraint: nothing rendered reads the clock
 * or the machine. Dates come from the run (created_utc), fonts from fonts/
 * (FONTCONFIG_FILE is pointed there unless the user set it), figures are drawn
 * in a fixed order, and the workbook's creation time is the run's.
 */
#include "report/report.h"
#include "charts/chart.h"
#include "report/doc_html.h"
#include "report/doc_md.h"
#include "report/doc_pdf.h"
#include "base/error.h"
#include "base/escape.h"
#include "report/figures.h"
#include "report/rctx.h"
#include "report/report_doc.h"
#include "store/rundata.h"
#include "base/util.h"
#include "report/workbook.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
    "usage: benchgen report RUN_DIR [--out DIR] [--baseline BACKEND]\n"
    "                       [--reference FILE.csv [--reference-revision N]]\n"
    "                       [--format LIST] [--jobs N] [--quiet]\n"
    "\n"
    "Renders the report of a stored run from its samples (RUN_DIR/run.db), the\n"
    "same bytes every time: report.html (self-contained), report.md (charts\n"
    "linked as PNG), report.pdf, report.xlsx and charts/ (PNG, SVG, PDF).\n"
    "\n"
    "options:\n"
    "  --out DIR                 where to write (default: reports/<run-name>)\n"
    "  --baseline BACKEND        speedup baseline (default: keras2-tensorflow, as the\n"
    "                            published figure; else torch-eager; else the first backend)\n"
    "  --reference FILE.csv      published results to show side by side with their ratio,\n"
    "                            e.g. data/reference/keras-benchmarks.csv\n"
    "  --reference-revision N    which revision of FILE.csv (default: the one matching the\n"
    "                            most cells of the run, the latest on a tie)\n"
    "  --format LIST             comma-separated: html, md, pdf, xlsx, charts, all (default all)\n"
    "  -j, --jobs N              processes drawing charts and documents side by side\n"
    "                            (default: the number of CPUs, at most 16)\n"
    "  -q, --quiet               no progress lines\n"
    "  -h, --help                this help\n"
    "\n"
    "exit status: 0 rendered; 1 rendering failed; 2 usage error or not a run directory.\n";

struct report_opts {
    const char *run_dir, *out, *baseline, *reference;
    int revision, jobs;
    unsigned formats;
    int quiet;
};

static int parse_formats(const char *list, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"html", RCTX_HTML}, {"md", RCTX_MD},         {"markdown", RCTX_MD}, {"pdf", RCTX_PDF},
                 {"xlsx", RCTX_XLSX}, {"charts", RCTX_CHARTS}, {"all", RCTX_ALL}};
    *out = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        size_t i = 0;
        while (i < sizeof(names) / sizeof(names[0]) &&
               !(strlen(names[i].name) == len && strncmp(names[i].name, p, len) == 0))
            i++;
        if (i == sizeof(names) / sizeof(names[0]))
            return error_set(BG_EUSAGE,
                             "--format: unknown format \"%.*s\" (use html, md, pdf, xlsx, charts, all)",
                             (int)len, p);
        *out |= names[i].bit;
        p += len;
        if (*p == ',')
            p++;
    }
    return *out ? 0 : error_set(BG_EUSAGE, "--format: empty list");
}

/* Value of an option given as "--opt VALUE" or "--opt=VALUE"; NULL if argv[*i] is not opt. */
static int take_value(int argc, char **argv, int *i, const char *opt, const char **value)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0)
        return 0;
    if (argv[*i][n] == '=') {
        *value = argv[*i] + n + 1;
        return 1;
    }
    if (argv[*i][n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return error_set(BG_EUSAGE, "%s needs a value", opt);
    *value = argv[++*i];
    return 1;
}

static int parse_args(int argc, char **argv, struct report_opts *o, int *help)
{
    memset(o, 0, sizeof(*o));
    o->revision = -1;
    o->formats = RCTX_ALL;
    *help = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int rc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            *help = 1;
            return 0;
        }
        if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if ((rc = take_value(argc, argv, &i, "--out", &v)) != 0) {
            if (rc < 0)
                return rc;
            o->out = v;
        } else if ((rc = take_value(argc, argv, &i, "--baseline", &v)) != 0) {
            if (rc < 0)
                return rc;
            o->baseline = v;
        } else if ((rc = take_value(argc, argv, &i, "--reference-revision", &v)) != 0) {
            if (rc < 0)
                return rc;
            char *end;
            long r = strtol(v, &end, 10);
            if (!*v || *end || r < 0 || r > 1000000)
                return error_set(BG_EUSAGE, "--reference-revision: \"%s\" is not a revision number", v);
            o->revision = (int)r;
        } else if ((rc = take_value(argc, argv, &i, "--reference", &v)) != 0) {
            if (rc < 0)
                return rc;
            o->reference = v;
        } else if ((rc = take_value(argc, argv, &i, "--jobs", &v)) != 0 ||
                   (rc = take_value(argc, argv, &i, "-j", &v)) != 0) {
            if (rc < 0)
                return rc;
            char *end;
            long j = strtol(v, &end, 10);
            if (!*v || *end || j < 1 || j > 256)
                return error_set(BG_EUSAGE, "--jobs: \"%s\" is not a number from 1 to 256", v);
            o->jobs = (int)j;
        } else if ((rc = take_value(argc, argv, &i, "--format", &v)) != 0) {
            if (rc < 0 || (rc = parse_formats(v, &o->formats)) < 0)
                return rc;
        } else if (a[0] == '-' && a[1] != '\0') {
            return error_set(BG_EUSAGE, "unknown option %s (see benchgen report --help)", a);
        } else if (!o->run_dir) {
            o->run_dir = a;
        } else {
            return error_set(BG_EUSAGE, "one RUN_DIR only (got %s and %s)", o->run_dir, a);
        }
    }
    if (!o->run_dir)
        return error_set(BG_EUSAGE, "missing RUN_DIR (see benchgen report --help)");
    if (o->revision >= 0 && !o->reference)
        return error_set(BG_EUSAGE, "--reference-revision needs --reference");
    return 0;
}

static void progress(const struct report_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(const struct report_opts *o, const char *fmt, ...)
{
    if (o->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("report: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- jobs: forked processes drawing charts and documents side by side ---- */

enum job_kind { JOB_CHARTS, JOB_PDF, JOB_XLSX, JOB_MD };

struct job {
    enum job_kind kind;
    size_t shard, nshards;
};

struct job_ctx {
    struct rctx *x;
    const struct doc *doc;
    const char *out_dir, *charts;
    unsigned chart_files;
};

static int doc_path(char *buf, size_t n, const char *dir, const char *file)
{
    if ((size_t)snprintf(buf, n, "%s/%s", dir, file) >= n)
        return error_set(BG_EUSAGE, "output path too long: %s/%s", dir, file);
    return 0;
}

static int run_job(const struct job *j, struct job_ctx *c)
{
    char path[PATH_MAX];
    int err = 0;
    switch (j->kind) {
    case JOB_CHARTS: return figures_render(c->x, c->charts, c->chart_files, 0, j->shard, j->nshards);
    case JOB_PDF: {
        char footer[400];
        snprintf(footer, sizeof(footer), "%s \xC2\xB7 %s \xC2\xB7 benchgen report", c->x->rd->name,
                 c->x->created_text);
        if ((err = doc_path(path, sizeof(path), c->out_dir, "report.pdf")) == 0)
            err = doc_pdf_write(c->doc, path, "ms/step benchmark results", c->x->pdf_date, footer);
        break;
    }
    case JOB_XLSX:
        if ((err = doc_path(path, sizeof(path), c->out_dir, "report.xlsx")) == 0)
            err = workbook_write(c->x, path);
        break;
    case JOB_MD:
        if ((err = doc_path(path, sizeof(path), c->out_dir, "report.md")) == 0)
            err = doc_md_write(c->doc, "report.md", path, "charts");
        break;
    }
    return err < 0 ? error_prefix(err, "%s", path) : 0;
}

/* Runs the jobs with at most par of them at a time, each in a forked child
 * (par 1: one after another in this process). Children inherit the built
 * report (copy-on-write) and report failure by their exit status, having
 * printed the reason. */
static int run_jobs(const struct job *jobs, size_t n, int par, struct job_ctx *c)
{
    if (par <= 1) {
        for (size_t i = 0; i < n; i++) {
            int err = run_job(&jobs[i], c);
            if (err < 0)
                return err;
        }
        return 0;
    }
    size_t next = 0, running = 0, failed = 0;
    while (next < n || running > 0) {
        while (next < n && running < (size_t)par) {
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid < 0) {
                /* no more processes: finish this job here */
                int err = run_job(&jobs[next++], c);
                if (err < 0)
                    return err;
                continue;
            }
            if (pid == 0) {
                int err = run_job(&jobs[next], c);
                if (err < 0)
                    fprintf(stderr, "benchgen report: %s\n", error_last());
                fflush(stderr);
                _exit(err < 0 ? 1 : 0);
            }
            next++;
            running++;
        }
        int status;
        pid_t done = waitpid(-1, &status, 0);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            return error_set(BG_EIO, "waitpid: %s", strerror(errno));
        }
        running--;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    return failed ? error_set(BG_EGENERIC, "%zu rendering process%s failed (see above)", failed,
                              failed == 1 ? "" : "es")
                  : 0;
}

static int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

static int render(const struct report_opts *o, char *out_dir, size_t out_cap)
{
    struct rundata *rd = NULL;
    struct rctx x;
    struct doc doc = {0};
    int have_ctx = 0, err;
    char charts[PATH_MAX], path[PATH_MAX];
    int64_t t0 = util_now_ns();

    if (!util_is_dir(o->run_dir))
        return error_set(BG_EUSAGE, "%s: no such run directory", o->run_dir);
    if ((err = chart_fonts_init(util_home_dir())) < 0)
        return err;
    if ((err = rundata_load(&rd, o->run_dir)) < 0) {
        if (err == BG_ENOTFOUND)
            err = error_set(BG_EUSAGE, "%s is not a run directory (no run.db)", o->run_dir);
        goto done;
    }
    if ((err = rctx_init(&x, rd, o->baseline, o->reference, o->revision)) < 0)
        goto done;
    have_ctx = 1;
    x.formats = o->formats;
    x.quiet = o->quiet;
    progress(o, "run %s: %zu cells, %zu rows x %zu backends", rd->name, rd->ncells, x.g->nrows, x.g->ncols);

    if (o->out) {
        snprintf(out_dir, out_cap, "%s", o->out);
    } else {
        char *safe = escape_filename(rd->name);
        if (!safe) {
            err = error_set(BG_ENOMEM, "out of memory");
            goto done;
        }
        snprintf(out_dir, out_cap, "reports/%s", safe);
        free(safe);
    }
    if ((err = doc_path(charts, sizeof(charts), out_dir, "charts")) < 0 ||
        (err = util_mkdir_p(out_dir, 0755)) < 0)
        goto done;

    unsigned chart_files = 0;
    if (o->formats & RCTX_CHARTS)
        chart_files = CHART_PNG | CHART_SVG | CHART_PDF;
    if (o->formats & RCTX_MD)
        chart_files |= CHART_PNG; /* the Markdown links PNGs */
    if (chart_files &&
        ((err = util_mkdir_p(charts, 0755)) < 0 || (err = figures_clean_dir(charts, NULL)) < 0))
        goto done;
    if ((err = figures_build(&x)) < 0 || (err = report_doc_build(&doc, &x)) < 0)
        goto done;

    int par = o->jobs > 0 ? o->jobs : default_jobs();
    struct job jobs[32 + 3];
    size_t njobs = 0, nshards = chart_files ? (size_t)(par > 32 ? 32 : par) : 0;
    if (nshards > x.nfigs)
        nshards = x.nfigs;
    /* documents first: the PDF is the longest single job */
    if (o->formats & RCTX_PDF)
        jobs[njobs++] = (struct job){JOB_PDF, 0, 0};
    if (o->formats & RCTX_XLSX)
        jobs[njobs++] = (struct job){JOB_XLSX, 0, 0};
    for (size_t k = 0; k < nshards; k++)
        jobs[njobs++] = (struct job){JOB_CHARTS, k, nshards};
    if (o->formats & RCTX_MD)
        jobs[njobs++] = (struct job){JOB_MD, 0, 0};
    progress(o, "drawing %zu charts%s%s%s%s (%d process%s)", chart_files ? x.nfigs : 0,
             o->formats & RCTX_PDF ? ", report.pdf" : "", o->formats & RCTX_XLSX ? ", report.xlsx" : "",
             o->formats & RCTX_MD ? ", report.md" : "", o->formats & RCTX_HTML ? ", report.html" : "", par,
             par == 1 ? "" : "es");
    struct job_ctx jc = {&x, &doc, out_dir, charts, chart_files};
    if ((err = run_jobs(jobs, njobs, par, &jc)) < 0)
        goto done;
    if (o->formats & RCTX_HTML) {
        /* the HTML inlines every chart's SVG: read back what the jobs drew,
         * or draw it here when no chart files were asked for */
        err = (chart_files & CHART_SVG) ? figures_load_svg(&x, charts) : figures_render(&x, NULL, 0, 1, 0, 1);
        if (err < 0 || (err = doc_path(path, sizeof(path), out_dir, "report.html")) < 0)
            goto done;
        if ((err = doc_html_write(&doc, "report.html", path)) < 0) {
            error_prefix(err, "%s", path);
            goto done;
        }
    }
    progress(o, "done in %.2f s", (double)(util_now_ns() - t0) / 1e9);
done:
    doc_free(&doc);
    if (have_ctx)
        rctx_free(&x);
    rundata_free(rd);
    return err;
}

int report_main(int argc, char **argv)
{
    struct report_opts o;
    int help = 0;
    char out_dir[PATH_MAX];
    error_clear();
    int err = parse_args(argc, argv, &o, &help);
    if (help) {
        fputs(usage, stdout);
        return 0;
    }
    if (err == 0)
        err = render(&o, out_dir, sizeof(out_dir));
    if (err < 0) {
        fprintf(stderr, "benchgen report: %s\n", error_last());
        return error_exit_status(err);
    }
    /* where it is, and what is there: `make report` ends with this line */
    static const struct {
        unsigned bit;
        const char *name;
    } outputs[] = {{RCTX_HTML, " report.html"},
                   {RCTX_MD, " report.md"},
                   {RCTX_PDF, " report.pdf"},
                   {RCTX_XLSX, " report.xlsx"},
                   {RCTX_CHARTS, " charts/"}};
    printf("report: %s/:", out_dir);
    for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
        if (o.formats & outputs[i].bit)
            fputs(outputs[i].name, stdout);
    putchar('\n');
    return 0;
}
