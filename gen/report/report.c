/*
 * report.c - report_render(): run -> grid -> figures ->
 * documents (see report.h).
 *
 * Reproducibility is the design constraint: nothing rendered reads the clock
 * or the machine. Dates come from the run (created_utc), fonts from fonts/
 * (FONTCONFIG_FILE is pointed there unless the user set it), figures are drawn
 * in a fixed order, and the workbook's creation time is the run's.
 */
#include "report/report.h"
#include "charts/chart.h"
#include "report/doc.h"
#include "report/doc_html.h"
#include "report/doc_md.h"
#include "report/doc_pdf.h"
#include "base/error.h"
#include "base/escape.h"
#include "report/figures.h"
#include "report/outdir.h"
#include "report/rctx.h"
#include "report/answer.h"
#include "report/report_doc.h"
#include "report/report_json.h"
#include "store/rundata.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "report/workbook.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

_Static_assert((int)REPORT_HTML == RCTX_HTML && (int)REPORT_MD == RCTX_MD && (int)REPORT_PDF == RCTX_PDF &&
                   (int)REPORT_XLSX == RCTX_XLSX && (int)REPORT_CHARTS == RCTX_CHARTS &&
                   (int)REPORT_ALL == RCTX_ALL,
               "report.h and rctx.h name the same format bits");

int report_parse_formats(unsigned *formats, const char *list)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"html", RCTX_HTML}, {"md", RCTX_MD},         {"markdown", RCTX_MD}, {"pdf", RCTX_PDF},
                 {"xlsx", RCTX_XLSX}, {"charts", RCTX_CHARTS}, {"all", RCTX_ALL}};
    *formats = 0;
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
        *formats |= names[i].bit;
        p += len;
        if (*p == ',')
            p++;
    }
    return *formats ? 0 : error_set(BG_EUSAGE, "--format: empty list");
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
            err = workbook_write(c->x, c->doc, path);
        break;
    case JOB_MD:
        if ((err = doc_path(path, sizeof(path), c->out_dir, "report.md")) == 0)
            err = doc_md_write(c->doc, "report.md", path, "charts");
        break;
    }
    return err < 0 ? error_prefix(err, "%s", path) : 0;
}

/* The first failed child's message, in memory the children share with the
 * parent (mmap MAP_SHARED before the first fork): the parent's error names
 * it, so nothing below the command line prints an error. */
struct job_errors {
    volatile int taken; /* set once, by the first child that failed */
    char message[1024];
};

/* Runs the jobs with at most par of them at a time, each in a forked child
 * (par 1: one after another in this process). Children inherit the built
 * report (copy-on-write) and report failure by their exit status, the first
 * one's reason in shared memory for the parent's error. */
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
    struct job_errors *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return error_set(BG_EIO, "mmap: %s", strerror(errno));
    shared->taken = 0;
    shared->message[0] = '\0';
    int err = 0;
    while (!err && (next < n || running > 0)) {
        while (next < n && running < (size_t)par) {
            fflush(NULL); /* a child must not inherit and repeat buffered output */
            pid_t parent = getpid();
            pid_t pid = fork();
            if (pid < 0) {
                /* no more processes: finish this job here */
                if ((err = run_job(&jobs[next++], c)) < 0)
                    break;
                continue;
            }
            if (pid == 0) {
                /* in the report's process group (inherited), and dying with it even
                 * when it is killed with SIGKILL: no renderer outlives the report */
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
                    _exit(1);
                int jerr = run_job(&jobs[next], c);
                if (jerr < 0 && __sync_bool_compare_and_swap(&shared->taken, 0, 1))
                    snprintf(shared->message, sizeof(shared->message), "%s", error_last());
                fflush(NULL);
                _exit(jerr < 0 ? 1 : 0);
            }
            next++;
            running++;
        }
        if (err < 0 || running == 0)
            break;
        int status;
        pid_t done = waitpid(-1, &status, 0);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            err = error_set(BG_EIO, "waitpid: %s", strerror(errno));
            break;
        }
        running--;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    while (running > 0) { /* after an error here: the children still drawing end first */
        int status;
        if (waitpid(-1, &status, 0) < 0 && errno != EINTR)
            break;
        running--;
    }
    if (!err && failed)
        err = error_set(BG_EGENERIC, "%zu rendering process%s failed: %s", failed, failed == 1 ? "" : "es",
                        shared->message[0] ? shared->message : "killed by a signal, or exited without a reason");
    munmap(shared, sizeof(*shared));
    return err;
}

/* A report's documents: present without a mark, they are of unknown origin. */
static const char *const report_docs[] = {"report.html", "report.md",   "report.pdf", "report.xlsx",
                                          "report.json", "summary.csv", NULL};

/* The CPUs this process may use (taskset, cpusets), at most 16. */
static int default_jobs(void)
{
    int n = util_cpus_usable();
    return n > 16 ? 16 : n;
}

int report_render(const char *run_dir, const char *out_dir, const struct report_options *opt)
{
    struct report_options defaults = {.reference_revision = -1, .formats = RCTX_ALL};
    struct report_options oo = opt ? *opt : defaults;
    const struct report_options *o = &oo;
    if (!oo.formats)
        oo.formats = RCTX_ALL;
    struct rundata *rd = NULL;
    struct rctx x;
    struct doc doc = {0};
    struct answer ans = {0};
    struct outdir od;
    char *full_description = NULL, *short_description = NULL;
    int have_ctx = 0, have_od = 0, err;
    char charts[PATH_MAX], path[PATH_MAX];
    int64_t t0 = util_now_ns();

    if (o->reference_revision >= 0 && !o->reference)
        return error_set(BG_EUSAGE, "--reference-revision needs --reference");
    if (!util_is_dir(run_dir))
        return error_set(BG_EUSAGE, "%s: no such run directory", run_dir);
    if ((err = chart_fonts_init(util_home_dir())) < 0)
        return err;
    if ((err = rundata_load(&rd, run_dir)) < 0) {
        if (err == BG_ENOTFOUND)
            err = error_set(BG_EUSAGE, "%s is not a run directory (no run.db)", run_dir);
        goto done;
    }
    /* the documents show a page of the description at most; report.json
     * gets it whole (below), so layout cost never grows with its length */
    full_description = rd->description;
    if ((short_description = doc_cap(full_description, DOC_TEXT_MAX, "report.json")))
        rd->description = short_description;
    if ((err = rctx_init(&x, rd, o->baseline, o->reference, o->reference_revision)) < 0)
        goto done;
    have_ctx = 1;
    if ((err = answer_build(&ans, &x)) < 0)
        goto done;
    x.answer = &ans;
    x.formats = o->formats;
    x.voice = &o->voice;
    voice_progress(&o->voice, "report", NULL, "run %s: %zu cells, %zu rows x %zu backends", rd->name, rd->ncells,
                   x.g->nrows, x.g->ncols);

    /* everything is written into the stage, then moved into out_dir (outdir.h) */
    char id[65];
    outdir_run_id(rd, id);
    char *head = xprintf("run: %s\ncreated: %s\n", rd->name, rd->created_utc);
    const struct outdir_owner who = {"report", head, id, rd->name, rd->created_utc, report_docs};
    err = outdir_open(&od, out_dir, &who, o->force);
    free(head);
    if (err < 0)
        goto done;
    have_od = 1;
    const char *stage = od.stage;
    if ((err = doc_path(charts, sizeof(charts), stage, "charts")) < 0)
        goto done;

    unsigned chart_files = 0;
    if (o->formats & RCTX_CHARTS)
        chart_files = CHART_PNG | CHART_SVG | CHART_PDF;
    if (o->formats & RCTX_MD)
        chart_files |= CHART_PNG; /* the Markdown links PNGs */
    if (chart_files && (err = util_mkdir_p(charts, 0755)) < 0)
        goto done;
    if ((err = figures_build(&x)) < 0 || (err = report_doc_build(&doc, &x)) < 0)
        goto done;
    doc.chart_files = chart_files; /* the HTML links only the chart files written */
    rd->description = full_description;
    err = report_json_write(&x, stage); /* beside every format: small and quick */
    rd->description = short_description ? short_description : full_description;
    if (err < 0)
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
    voice_progress(&o->voice, "report", NULL, "drawing %zu charts%s%s%s%s (%d process%s)",
                   chart_files ? x.nfigs : 0, o->formats & RCTX_PDF ? ", report.pdf" : "",
                   o->formats & RCTX_XLSX ? ", report.xlsx" : "", o->formats & RCTX_MD ? ", report.md" : "",
                   o->formats & RCTX_HTML ? ", report.html" : "", par, par == 1 ? "" : "es");
    struct job_ctx jc = {&x, &doc, stage, charts, chart_files};
    if ((err = run_jobs(jobs, njobs, par, &jc)) < 0)
        goto done;
    if (o->formats & RCTX_HTML) {
        /* the HTML inlines every chart's SVG: read back what the jobs drew,
         * or draw it here when no chart files were asked for */
        err = (chart_files & CHART_SVG) ? figures_load_svg(&x, charts) : figures_render(&x, NULL, 0, 1, 0, 1);
        if (err < 0 || (err = doc_path(path, sizeof(path), stage, "report.html")) < 0)
            goto done;
        if ((err = doc_html_write(&doc, "report.html", path)) < 0) {
            error_prefix(err, "%s", path);
            goto done;
        }
    }
    /* this run's documents not rendered this time stay; its old charts go */
    if ((err = outdir_commit(&od, 1)) < 0)
        goto done;
    voice_note(&o->voice, "report", NULL, "done in %.2f s", (double)(util_now_ns() - t0) / 1e9);
done:
    if (have_od)
        outdir_close(&od);
    doc_free(&doc);
    answer_free(&ans);
    if (have_ctx)
        rctx_free(&x);
    if (rd)
        rd->description = full_description;
    free(short_description);
    rundata_free(rd);
    return err;
}
