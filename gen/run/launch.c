/*
 * launch.c - a new run, a resume and an interleaved A/B run from one
 * request (run/launch.h): the rules `benchgen run` follows, callable
 * without argv.
 */
#include "run/launch.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "envs/envs_derive.h"
#include "envs/envs_sync.h"
#include "plan/abplan.h"
#include "plan/resources.h"
#include "plan/spec.h"
#include "plan/status.h"
#include "run/abarm.h"
#include "run/abseq.h"
#include "run/cellfile.h"
#include "run/collect.h"
#include "run/depends.h"
#include "run/slurm.h"
#include "run/slurmrun.h"
#include "run/sysinfo.h"
#include "run/workcheck.h"
#include "stats/seqtest.h"
#include "stats/significance.h"
#include "store/rundir.h"
#include "store/runinputs.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the request ------------------------------------------------------------ */

/* A request error: BG_EUSAGE, marked as the request's. */
static int refuse(struct run_outcome *out, const char *msg)
{
    out->usage = true;
    return error_set(BG_EUSAGE, "%s", msg);
}

/* The same for an error already set (its message is kept). */
static int refused(struct run_outcome *out, int err)
{
    out->usage = true;
    return err;
}

/* "STATUS[,...]" -> retry[STATUS_*] for the statuses to rerun; BG_EUSAGE for an unknown one. */
static int parse_retry(const char *list, bool retry[STATUS_COUNT])
{
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        char name[32];
        snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), p);
        int s = len && len < sizeof(name) ? status_parse(name) : -1;
        if (s <= STATUS_NONE) {
            struct strbuf known = {0};
            for (int k = STATUS_NONE + 1; k < STATUS_COUNT; k++)
                strbuf_printf(&known, "%s%s", k > STATUS_NONE + 1 ? ", " : "", status_name((enum status)k));
            int err = error_set(BG_EUSAGE, "--retry: unknown status '%.*s' (statuses: %s)", (int)len, p,
                                known.buf ? known.buf : "");
            strbuf_free(&known);
            return err;
        }
        retry[s] = true;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* "5" or "5%" -> 0.05; BG_EUSAGE outside (0, 100). */
static int parse_effect(const char *text, double *effect)
{
    char *end = NULL;
    *effect = strtod(text, &end) / 100.0;
    if (!end || end == text || (*end && strcmp(end, "%") != 0) || !(*effect > 0.0 && *effect < 1.0))
        return error_set(BG_EUSAGE, "--effect expects a percentage in (0, 100), e.g. 5 or 5%% (got '%s')", text);
    return 0;
}

enum request_kind { REQ_LAUNCH, REQ_RESUME, REQ_AB };

/* The options that do not go together, in the order the command line has
 * always reported them, for the entry point kind; clears *out first. */
static int check_request(struct run_outcome *out, const struct run_request *r, enum request_kind kind,
                         bool retry[STATUS_COUNT])
{
    memset(out, 0, sizeof(*out));
    bool ab = kind == REQ_AB;
    const struct exec_options *e = &r->exec;
    int err;
    if (!r->spec && !r->resume)
        return refuse(out, "missing SPEC");
    if (r->resume && (r->out || r->only || r->nwith || r->repeats || r->dry_run))
        return refuse(out, "--resume takes the plan from the run; drop --out/--only/--with/--repeats/--dry-run");
    if (r->retry && !r->resume)
        return refuse(out, "--retry only makes sense with --resume");
    if ((err = parse_retry(r->retry, retry)) < 0)
        return refused(out, err);
    if (r->nbenv && !ab)
        return refuse(out, "--b-env only makes sense with --ab");
    for (size_t i = 0; i < r->nwith; i++)
        if ((err = envs_derive_check_pin(r->with[i])) < 0)
            return refused(out, err);
    /* The same checks as the spec's resources: */
    const struct {
        const char *opt, *key, *value;
    } res[] = {{"partition", "partition", e->partition}, {"mem", "mem", e->mem}, {"time", "time", e->time_limit}};
    for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
        const char *bad = res[i].value ? resources_check(res[i].key, res[i].value) : NULL;
        if (bad)
            return refused(out, error_set(BG_EUSAGE, "--%s '%s' %s", res[i].opt, res[i].value, bad));
    }
    if (kind == REQ_LAUNCH && r->resume)
        return refuse(out, "a resume is run_resume()'s");
    if (kind == REQ_RESUME && !r->resume)
        return refuse(out, "run_resume() needs the run directory to resume");
    if (!ab)
        return 0;
    if (r->resume)
        return refuse(out, "--ab cannot resume; resume DIR/a and DIR/b one at a time");
    for (size_t i = 0; i < r->nbenv; i++)
        if (!strchr(r->benv[i], '=') || r->benv[i][0] == '=')
            return refused(out, error_set(BG_EUSAGE, "--b-env %s: expected NAME=VALUE", r->benv[i]));
    if (e->kind || e->devices || e->cpus_per_cell || e->partition || e->mem || e->time_limit || e->gpus_per_cell ||
        e->max_parallel || e->no_wait || e->nsbatch_args)
        return refuse(out, "--ab runs locally, one cell at a time: drop the executor options "
                      "(--executor, --devices, --cpus-per-cell, Slurm's)");
    double effect;
    if (r->effect && (err = parse_effect(r->effect, &effect)) < 0)
        return refused(out, err);
    if (r->repeats && (r->first || r->cap || r->effect))
        return refuse(out, "--repeats asks for a fixed count a side: drop --first, --cap and --effect, "
                      "or drop --repeats for sequential verdicts");
    return 0;
}

/* ---- what a new run and a resume share -------------------------------------- */

/* The default run directory: runs/<spec name><tag>-<UTC time>. */
static char *default_out(const char *name, const char *tag)
{
    char ts[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
    return xprintf("runs/%s%s-%s", name, tag, ts);
}

/* --with: every cell moves to "<env>+<pins>", built now (once, cached) so the
 * run measures the pinned stack rather than skipping it. */
static int derive_envs(struct matrix *plan, const char *const *with, size_t nwith, bool dry, const struct voice *v)
{
    if (nwith == 0)
        return 0;
    struct kvlist derived = {0}; /* env -> derived name */
    int err = 0;
    for (size_t i = 0; i < plan->ncells && !err; i++) {
        struct cell *c = &plan->cells[i];
        const char *name = kvlist_get(&derived, c->env);
        char *made = NULL;
        if (!name) {
            if ((err = envs_derive(c->env, with, nwith, &made)) < 0)
                break;
            err = kvlist_add(&derived, c->env, made);
            name = made;
        }
        if (!err) {
            free(c->env);
            c->env = xstrdup(name);
        }
        free(made);
    }
    if (!err && !dry) {
        const char **names = xcalloc(derived.n ? derived.n : 1, sizeof(*names));
        for (size_t i = 0; i < derived.n; i++)
            names[i] = derived.items[i].value;
        err = envs_sync(names, derived.n, v);
        free(names);
        if (err < 0) {
            /* The cells will end as skipped, with the reason; the run goes on. */
            voice_warn(v, "run", NULL, "benchgen: %s", error_last()); /* topic run: the line as it was */
            err = 0;
        }
    }
    kvlist_free(&derived);
    return err;
}

static void hook_plan(const struct run_request *r, const struct matrix *plan, const unsigned char *arm, bool upto)
{
    if (r->hooks && r->hooks->plan)
        r->hooks->plan(r->hooks->arg, plan, arm, upto);
}

static void hook_ready(const struct run_request *r, const struct run_outcome *out)
{
    if (r->hooks && r->hooks->ready)
        r->hooks->ready(r->hooks->arg, out);
}

/* What a new run and a resume hold while they run (plain_free()). */
struct plain_run {
    struct exec_options eo;
    struct spec *spec;
    struct store *st;
    struct matrix plan;
    struct kvlist host; /* a new run: the machine's facts */
    struct run_inputs inputs;
};

static void plain_free(struct plain_run *p)
{
    store_close(p->st);
    matrix_free(&p->plan);
    spec_free(p->spec);
    kvlist_free(&p->host);
    run_inputs_free(&p->inputs);
}

/* The run directory is ready: the caller hears where it is (and a new
 * run's GPU line), then the cells run. */
static int run_cells(struct run_outcome *out, const struct run_request *req, struct plain_run *p)
{
    hook_ready(req, out);
    if (out->gpu)
        voice_note(req->voice, "run", NULL, "%s", out->gpu); /* after the run directory */
    fflush(NULL); /* what the caller printed comes before the workers' output */
    int err = sched_run(p->st, &p->plan, &p->eo, &out->sum);
    out->ran = err == 0;
    return err;
}

/* ---- a new run ---------------------------------------------------------------- */

int run_launch(struct run_outcome *out, const struct run_request *req)
{
    bool retry[STATUS_COUNT] = {0};
    struct plain_run p = {.eo = req->exec};
    int err = check_request(out, req, REQ_LAUNCH, retry);
    if (err < 0)
        return err;
    if ((err = spec_load(&p.spec, req->spec)) < 0)
        goto done;
    if (req->repeats)
        p.spec->repeats = req->repeats;
    out->dir = req->out ? xstrdup(req->out) : default_out(p.spec->name, "");
    /* the out directory is checked before anything is built or downloaded */
    if ((err = matrix_expand(&p.plan, p.spec, req->only)) < 0 ||
        (!req->dry_run && (err = rundir_check_free(out->dir)) < 0) ||
        (err = derive_envs(&p.plan, req->with, req->nwith, req->dry_run, req->voice)) < 0)
        goto done;
    hook_plan(req, &p.plan, NULL, false);
    if (req->dry_run) {
        fflush(NULL); /* what the caller printed comes before the workers' output */
        err = workcheck_run(&p.plan, req->text_out);
        goto done;
    }
    if ((err = sysinfo_collect(&p.host)) < 0)
        goto done;
    for (size_t i = 0; i < req->nwith; i++)
        kvlist_add(&p.host, "run.with", req->with[i]);
    /* Options the executor refuses create no run directory. */
    if ((err = executor_check(&p.eo)) < 0)
        goto done;
    if (p.eo.kind && strcmp(p.eo.kind, "slurm") == 0 && (err = slurm_check_dir(out->dir)) < 0)
        goto done;
    if ((err = depends_collect(&p.inputs, p.spec, &p.plan)) < 0 ||
        (err = store_create(&p.st, out->dir, p.spec, &p.plan, &p.host, &p.inputs, req->cmdline ? req->cmdline : "",
                            req->voice)) < 0 ||
        (err = cellfile_write_plan(store_dir(p.st), &p.plan)) < 0)
        goto done;
    const char *gpu = kvlist_get(&p.host, "gpu.status");
    out->gpu = gpu ? xstrdup(gpu) : NULL;
    err = run_cells(out, req, &p);
done:
    plain_free(&p);
    return err;
}

/* ---- a resume ------------------------------------------------------------------- */

/* Keeps cells with no final status, interrupted ones, and those whose status is marked in retry. */
static int select_resumable(struct store *st, struct matrix *plan, const bool retry[STATUS_COUNT])
{
    unsigned char *keep = xcalloc(plan->ncells ? plan->ncells : 1, 1);
    int err = 0;
    for (size_t i = 0; i < plan->ncells && !err; i++) {
        enum status s;
        if ((err = store_cell_status(st, plan->cells[i].id, &s)) < 0)
            break;
        keep[i] = (unsigned char)(s == STATUS_NONE || s == STATUS_INTERRUPTED || retry[s]);
    }
    if (!err)
        matrix_filter(plan, keep);
    free(keep);
    return err;
}

/* A resumed run must finish the matrix it started; refuse an edited spec. */
static int check_same_spec(struct store *st, const struct spec *spec, const char *dir)
{
    char h[65];
    int err = store_spec_sha256(st, h);
    if (err < 0)
        return error_prefix(err, "%s", dir);
    if (strcmp(h, spec->sha256) != 0)
        return error_set(BG_EUSAGE,
                         "%s has changed since the run in %s was created (sha256 %.12s, run has %.12s); "
                         "resume without SPEC, or start a new run",
                         spec->path, dir, spec->sha256, h[0] ? h : "none");
    return 0;
}

/* Before a resume picks what is left: results of cells that ran elsewhere
 * are merged (with Slurm's verdicts on tasks it ended), and cells whose
 * Slurm task is still queued or running are left to it. A run submitted to
 * Slurm resumes there unless the request names an executor. */
static int resume_collect(struct store *st, struct matrix *plan, struct exec_options *eo)
{
    const struct voice *v = store_voice(st);
    int verdicts = 0, files = 0, cells = 0, still = 0, quarantined = 0, err = 0;
    bool slurm = slurmrun_submitted(st) && slurm_have("squeue");
    if (slurm && !eo->kind) {
        eo->kind = "slurm";
        voice_note(v, "run", NULL, "the run was submitted to Slurm: resuming with --executor slurm "
                                   "(--executor local runs the rest here)");
    }
    err = slurm ? slurmrun_collect(st, plan, &verdicts, &files, &cells, &still, &quarantined)
                : collect_run(st, plan, &files, &cells, &quarantined);
    if (err < 0)
        return err;
    if (files)
        voice_note(v, "run", NULL, "collected %d result file(s) of %d cell(s)", files, cells);
    if (!still)
        return 0;
    unsigned char *keep = xcalloc(plan->ncells ? plan->ncells : 1, 1);
    size_t n = 0;
    if ((err = slurmrun_active(st, plan, keep, &n)) == 0) {
        for (size_t i = 0; i < plan->ncells; i++)
            keep[i] = !keep[i];
        matrix_filter(plan, keep);
        voice_note(v, "run", NULL, "%zu cell(s) still queued or running in Slurm: left to it (`benchgen status %s`)",
                   n, store_dir(st));
    }
    free(keep);
    return err;
}

int run_resume(struct run_outcome *out, const struct run_request *req)
{
    bool retry[STATUS_COUNT] = {0};
    struct plain_run p = {.eo = req->exec};
    int err = check_request(out, req, REQ_RESUME, retry);
    if (err < 0)
        return err;
    if (req->spec && (err = spec_load(&p.spec, req->spec)) < 0)
        goto done;
    if ((err = store_open(&p.st, req->resume, false)) < 0 || (err = store_load_plan(p.st, &p.plan)) < 0)
        goto done;
    store_set_voice(p.st, req->voice);
    if (p.spec && (err = check_same_spec(p.st, p.spec, req->resume)) < 0)
        goto done;
    if ((err = store_inputs(p.st, &p.inputs)) < 0)
        goto done;
    if (req->text_err)
        depends_warn_changed(&p.inputs, req->text_err);
    if ((err = resume_collect(p.st, &p.plan, &p.eo)) < 0 || (err = select_resumable(p.st, &p.plan, retry)) < 0)
        goto done;
    out->dir = xstrdup(store_dir(p.st));
    out->left = p.plan.ncells;
    err = run_cells(out, req, &p);
done:
    plain_free(&p);
    return err;
}

/* ---- an interleaved A/B run ------------------------------------------------------- */

/* Sequential verdicts unless a fixed count a side is asked for (repeats, or
 * the spec's repeats with none of the sequential settings): the design, and
 * the spec's repeats become the cap. *seq says which. */
static int ab_design(struct run_outcome *out, const struct run_request *req, struct spec *spec,
                     struct seqtest_design *design)
{
    out->seq = !req->repeats && (!spec->repeats_given || req->first || req->cap || req->effect || spec->ab_first ||
                                 spec->ab_cap || spec->ab_effect > 0.0);
    if (!out->seq) {
        if (req->repeats)
            spec->repeats = req->repeats;
        return 0;
    }
    size_t first = req->first ? (size_t)req->first : spec->ab_first ? (size_t)spec->ab_first : SEQTEST_FIRST;
    size_t cap = req->cap ? (size_t)req->cap : spec->ab_cap ? (size_t)spec->ab_cap : SEQTEST_CAP;
    double effect = spec->ab_effect > 0.0 ? spec->ab_effect : SEQTEST_EFFECT;
    int err;
    if (req->effect && (err = parse_effect(req->effect, &effect)) < 0)
        return err;
    if (cap < first) {
        out->usage = true;
        return error_set(BG_EUSAGE, "the cap (%zu) is below the first batch (%zu) a side", cap, first);
    }
    if ((err = seqtest_design(design, first, SEQTEST_STEP, cap, SIGNIFICANCE_ALPHA, effect, SEQTEST_POCOCK)) < 0)
        return err;
    spec->repeats = (int)cap;
    voice_note(req->voice, "run", NULL,
               "run --ab: sequential verdicts: %zu processes a side first, then %d more a side at each look for the "
               "cells still undecided, up to %zu; a change of %g%% is the smallest of interest (docs/COMPARE.md)",
               first, SEQTEST_STEP, cap, effect * 100.0);
    return 0;
}

int run_launch_ab(struct run_outcome *out, const struct run_request *req)
{
    bool retry[STATUS_COUNT] = {0};
    int err = check_request(out, req, REQ_AB, retry);
    if (err < 0)
        return err;
    struct spec *spec = NULL;
    struct matrix pa = {0}, pb = {0}, both = {0};
    unsigned char *arm = NULL;
    struct store *sa = NULL, *sb = NULL;
    struct seqtest_design design;
    struct abseq *q = NULL;
    const char *cmdline = req->cmdline ? req->cmdline : "";

    if ((err = spec_load(&spec, req->spec)) < 0 || (err = ab_design(out, req, spec, &design)) < 0)
        goto done;
    out->dir = req->out ? xstrdup(req->out) : default_out(spec->name, "-ab");
    abarm_dirs(out->dir, &out->dir_a, &out->dir_b);
    if ((err = matrix_expand(&pa, spec, req->only)) < 0 || (err = matrix_expand(&pb, spec, req->only)) < 0 ||
        (!req->dry_run && ((err = rundir_check_free(out->dir_a)) < 0 || (err = rundir_check_free(out->dir_b)) < 0)) ||
        (err = derive_envs(&pb, req->with, req->nwith, req->dry_run, req->voice)) < 0 ||
        (err = abplan_interleave(&both, &arm, &pa, &pb)) < 0)
        goto done;
    hook_plan(req, &both, arm, out->seq);
    if (req->dry_run) {
        /* arm A's cells: the same workloads, in environments already built */
        fflush(NULL);
        err = workcheck_run(&pa, req->text_out);
        goto done;
    }
    if ((err = util_mkdir_p(out->dir, 0755)) < 0 ||
        (err = abarm_create(&sa, out->dir_a, spec, &pa, cmdline, "a", NULL, 0, NULL, 0, req->voice)) < 0 ||
        (err = abarm_create(&sb, out->dir_b, spec, &pb, cmdline, "b", req->with, req->nwith, req->benv, req->nbenv,
                            req->voice)) < 0)
        goto done;
    hook_ready(req, out);
    fflush(NULL);
    struct sched_arm arms[2] = {{.st = sa, .wait_idle = req->exec.wait_idle},
                                {.st = sb, .setenv = req->benv, .nsetenv = req->nbenv, .wait_idle = req->exec.wait_idle}};
    if (out->seq)
        q = abseq_new(&both, arm, &design, SIGNIFICANCE_NOISE);
    if ((err = sched_run_ab(arms, &both, arm, q, &out->sum)) < 0)
        goto done;
    if (q && ((err = abseq_finish(q, sa, sb, req->text_err)) < 0 || (err = store_drop_unstarted(sa, &out->dropped_a)) < 0 ||
              (err = store_drop_unstarted(sb, &out->dropped_b)) < 0))
        goto done;
    out->ran = true;
done:
    store_close(sa);
    store_close(sb);
    matrix_free(&pa);
    matrix_free(&pb);
    matrix_free(&both);
    abseq_free(q);
    free(arm);
    spec_free(spec);
    return err;
}

void run_outcome_free(struct run_outcome *out)
{
    if (!out)
        return;
    free(out->dir);
    free(out->dir_a);
    free(out->dir_b);
    free(out->gpu);
    memset(out, 0, sizeof(*out));
}
