/*
 * cli_run.c - `benchgen run SPEC` and `benchgen run --resume DIR`: expand a
 * spec into its plan, create the run directory, run the cells (scheduler.h).
 */
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "cli/term.h"
#include "plan/matrix.h"
#include "plan/resources.h"
#include "plan/spec.h"
#include "plan/status.h"
#include "run/abarm.h"
#include "run/abseq.h"
#include "run/depends.h"
#include "run/cellfile.h"
#include "run/collect.h"
#include "envs/envs.h"
#include "envs/envs_derive.h"
#include "envs/envs_sync.h"
#include "run/executor.h"
#include "run/scheduler.h"
#include "run/workcheck.h"
#include "run/slurm.h"
#include "run/slurmrun.h"
#include "plan/abplan.h"
#include "run/sysinfo.h"
#include "stats/seqtest.h"
#include "stats/significance.h"
#include "store/rundir.h"
#include "store/store.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct run_opts {
    const char *out, *only, *resume, *retry;
    bool dry_run;
    struct opt_list with;
    int repeats;
    const char *executor, *devices; /* struct exec_options (run/executor.h) */
    int cpus_per_cell;
    const char *partition, *mem, *time_limit;
    int gpus_per_cell, max_parallel, max_attempts;
    struct opt_list sbatch_args;
    bool no_wait;
    bool ab;
    struct opt_list benv;
    int first, cap;     /* run --ab, sequential (stats/seqtest.h) */
    const char *effect;
    int wait_idle; /* machine/telemetry.h */
    bool quiet;    /* cli/term.h */
    const char *progress;
};

static const struct opt run_options[] = {
    OPT_STR(struct run_opts, out, "out", 'o', "DIR",
            "run directory to create (default runs/<spec name>-<UTC time>;\nmust not hold a run already)"),
    OPT_STR(struct run_opts, only, "only", 0, "FILTER",
            "run a subset, KEY=VAL[,KEY=VAL...]: KEY is model, task, backend,\nbatch, env, method or key; the "
            "same KEY twice means either,\ndifferent KEYs mean both"),
    OPT_FLAG(struct run_opts, dry_run, "dry-run", 'n', "print the plan, load each custom workload and call its\nsupported() and inputs() (no setup(), no step), and exit"),
    OPT_LIST(struct run_opts, with, "with", 0, "PKG==V",
             "run in derived environments: each backend's environment plus\nthis pin (repeatable); built once, "
             "cached by hash"),
    OPT_INT(struct run_opts, repeats, "repeats", 0, "N", 1, 1000,
            "run every cell N times, in separate processes, interleaved\nacross the matrix (overrides the spec's "
            "repeats; with --ab: a\nfixed N a side instead of sequential verdicts)"),
    OPT_STR(struct run_opts, resume, "resume", 0, "DIR",
            "run the cells of DIR that have no final status (never ran, in\nflight when the run was killed, or "
            "interrupted)"),
    OPT_STR(struct run_opts, retry, "retry", 0, "STATUS[,...]",
            "with --resume, also rerun cells that ended with these statuses\n(ok, error, crash, timeout, oom, "
            "unsupported, skipped)"),
    OPT_FLAG(struct run_opts, ab, "ab",  0,
             "interleaved A/B: A is the spec as it is, B the same with --with\npins and --b-env variables; each "
             "cell's A and B processes run\nnext to each other in ABBA order, locally, into DIR/a and DIR/b\n"
             "(benchgen compare DIR). Without --with or --b-env: an A/A run"),
    OPT_LIST(struct run_opts, benv, "b-env", 0, "NAME=VALUE", "with --ab: set NAME to VALUE for B's workers only"),
    OPT_INT(struct run_opts, first, "first", 0, "N", 3, 1000,
            "with --ab: sequential verdicts; N processes a side before the\nfirst look (default 4; spec ab_first)"),
    OPT_INT(struct run_opts, cap, "cap", 0, "N", 3, 1000,
            "with --ab: at most N processes a side for a cell still\nundecided (default 12; spec ab_cap)"),
    OPT_STR(struct run_opts, effect, "effect", 0, "PCT",
            "with --ab: the smallest change of interest, in percent (default\n5; spec ab_effect): `same` within it "
            "stops a cell"),
    OPT_STR(struct run_opts, executor, "executor", 0, "E", "local (default) or slurm (docs/CLUSTER.md)"),
    OPT_STR(struct run_opts, devices, "devices", 0, "LIST",
            "local: one cell per GPU at once, bound with\nCUDA_VISIBLE_DEVICES; LIST is 0,1,... or auto (NVML's "
            "GPUs)"),
    OPT_INT(struct run_opts, cpus_per_cell, "cpus-per-cell", 0, "N", 1, 4096,
            "local: pin each cell to N cores of its own and set\nOMP_NUM_THREADS and kin to N; alone, runs as many "
            "cells\nat once as there are sets of N cores. slurm: --cpus-per-task"),
    OPT_STR(struct run_opts, partition, "partition", 0, "P", "slurm: the partition of every cell"),
    OPT_INT(struct run_opts, gpus_per_cell, "gpus-per-cell", 0, "N", 1, 64, "slurm: GPUs per cell (--gres=gpu:N)"),
    OPT_STR(struct run_opts, mem, "mem", 0, "SIZE", "slurm: memory per cell (--mem, e.g. 64G)"),
    OPT_STR(struct run_opts, time_limit, "time", 0, "LIMIT",
            "slurm: time limit per cell (--time, e.g. 2:00:00); the spec's\nper-row and per-backend resources come "
            "first"),
    OPT_INT(struct run_opts, max_parallel, "max-parallel", 0, "K", 1, 100000,
            "slurm: at most K tasks of the array at once"),
    OPT_LIST(struct run_opts, sbatch_args, "sbatch-arg", 0, "ARG", "slurm: passed to sbatch as it is (repeatable)"),
    OPT_INT(struct run_opts, max_attempts, "max-attempts", 0, "N", 1, 100,
            "slurm: a task started more than N times is left\ninterrupted (default 3)"),
    OPT_FLAG(struct run_opts, no_wait, "no-wait", 0,
             "slurm: return once the array is queued, printing its job id;\nthen `benchgen status` and `benchgen "
             "collect`"),
    OPT_INT(struct run_opts, wait_idle, "wait-idle", 0, "SECONDS", 0, 86400,
            "before each cell, wait up to SECONDS for other processes to use\nunder 10% of a core (cells measured "
            "beside busy processes or\nanother process on their GPU are flagged contended either way;\n"
            "docs/GPU.md)"),
    TERM_OPTIONS(struct run_opts),
};

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

static char *join_args(int argc, char **argv)
{
    struct strbuf sb = {0};
    for (int i = 0; i < argc; i++)
        strbuf_printf(&sb, "%s%s", i ? " " : "", argv[i]);
    return strbuf_detach(&sb); /* "%s" cannot fail to format */
}

/* --retry LIST -> retry[STATUS_*] for the statuses to rerun; BG_EUSAGE for an unknown one. */
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

/* Keeps cells with no final status, interrupted ones, and those whose status is marked in retry. */
static int select_resumable(struct store *st, struct matrix *plan, const bool retry[STATUS_COUNT])
{
    unsigned char *keep = xcalloc(plan->ncells, 1);
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

/* --with: every cell moves to "<env>+<pins>", built now (once, cached) so the
 * run measures the pinned stack rather than skipping it. */
static int derive_envs(struct matrix *plan, const char *const *with, size_t nwith, int dry)
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
        const char **names = xcalloc(derived.n, sizeof(*names));
        for (size_t i = 0; i < derived.n; i++)
            names[i] = derived.items[i].value;
        err = envs_sync(names, derived.n, term_voice());
        free(names);
        if (err < 0) {
            /* The cells will end as skipped, with the reason; the run goes on. */
            fprintf(stderr, "benchgen: %s\n", error_last());
            err = 0;
        }
    }
    kvlist_free(&derived);
    return err;
}

/* Before --resume picks what is left: results of cells that ran elsewhere
 * are merged (with Slurm's verdicts on tasks it ended), and cells whose
 * Slurm task is still queued or running are left to it. A run submitted to
 * Slurm resumes there unless --executor says otherwise. */
static int resume_collect(struct store *st, struct matrix *plan, struct exec_options *eo)
{
    int verdicts = 0, files = 0, cells = 0, still = 0, quarantined = 0, err = 0;
    bool slurm = slurmrun_submitted(st) && slurm_have("squeue");
    if (slurm && !eo->kind) {
        eo->kind = "slurm";
        term_say(VOICE_NOTE, "run", "the run was submitted to Slurm: resuming with --executor slurm "
                                    "(--executor local runs the rest here)");
    }
    err = slurm ? slurmrun_collect(st, plan, &verdicts, &files, &cells, &still, &quarantined)
                : collect_run(st, plan, &files, &cells, &quarantined);
    if (err < 0)
        return err;
    if (files)
        term_say(VOICE_NOTE, "run", "collected %d result file(s) of %d cell(s)", files, cells);
    if (!still)
        return 0;
    unsigned char *keep = xcalloc(plan->ncells ? plan->ncells : 1, 1);
    size_t n = 0;
    if ((err = slurmrun_active(st, plan, keep, &n)) == 0) {
        for (size_t i = 0; i < plan->ncells; i++)
            keep[i] = !keep[i];
        matrix_filter(plan, keep);
        term_say(VOICE_NOTE, "run", "%zu cell(s) still queued or running in Slurm: left to it (`benchgen status %s`)",
                 n, store_dir(st));
    }
    free(keep);
    return err;
}

/* run --ab: two plans (B with the pins), one ABBA-ordered loop, two runs. */
static int run_ab(const struct cli_call *call, const char *spec_path)
{
    const struct run_opts *o = call->opts;
    struct spec *spec = NULL;
    struct matrix pa = {0}, pb = {0}, both = {0};
    unsigned char *arm = NULL;
    struct store *sa = NULL, *sb = NULL;
    char *outdir = NULL, *da = NULL, *db = NULL, *cmdline = NULL;
    struct seqtest_design design;
    struct abseq *q = NULL;
    int err = 0, status = 0;

    for (size_t i = 0; i < o->benv.n; i++)
        if (!strchr(o->benv.v[i], '=') || o->benv.v[i][0] == '=')
            return cli_usage_error(&cli_run, "--b-env %s: expected NAME=VALUE", o->benv.v[i]);
    if (o->executor || o->devices || o->cpus_per_cell || o->partition || o->mem || o->time_limit ||
        o->gpus_per_cell || o->max_parallel || o->no_wait || o->sbatch_args.n)
        return cli_usage_error(&cli_run, "--ab runs locally, one cell at a time: drop the executor options "
                                         "(--executor, --devices, --cpus-per-cell, Slurm's)");
    double effect = 0.0;
    if (o->effect) {
        char *end = NULL;
        effect = strtod(o->effect, &end) / 100.0;
        if (!end || end == o->effect || (*end && strcmp(end, "%") != 0) || !(effect > 0.0 && effect < 1.0))
            return cli_usage_error(&cli_run, "--effect expects a percentage in (0, 100), e.g. 5 or 5%% (got '%s')",
                                   o->effect);
    }
    if (o->repeats && (o->first || o->cap || o->effect))
        return cli_usage_error(&cli_run, "--repeats asks for a fixed count a side: drop --first, --cap and --effect, "
                                         "or drop --repeats for sequential verdicts");
    if ((err = spec_load(&spec, spec_path)) < 0)
        goto done;
    bool seq = !o->repeats && (!spec->repeats_given || o->first || o->cap || o->effect || spec->ab_first ||
                               spec->ab_cap || spec->ab_effect > 0.0);
    if (seq) {
        size_t first = o->first ? (size_t)o->first : spec->ab_first ? (size_t)spec->ab_first : SEQTEST_FIRST;
        size_t cap = o->cap ? (size_t)o->cap : spec->ab_cap ? (size_t)spec->ab_cap : SEQTEST_CAP;
        if (!o->effect)
            effect = spec->ab_effect > 0.0 ? spec->ab_effect : SEQTEST_EFFECT;
        if (cap < first) {
            status = cli_usage_error(&cli_run, "the cap (%zu) is below the first batch (%zu) a side", cap, first);
            goto done;
        }
        if ((err = seqtest_design(&design, first, SEQTEST_STEP, cap, SIGNIFICANCE_ALPHA, effect, SEQTEST_POCOCK)) < 0)
            goto done;
        spec->repeats = (int)cap;
        term_say(VOICE_NOTE, "run",
                 "run --ab: sequential verdicts: %zu processes a side first, then %d more a side at each look for the "
                 "cells still undecided, up to %zu; a change of %g%% is the smallest of interest (docs/COMPARE.md)",
                 first, SEQTEST_STEP, cap, effect * 100.0);
    } else if (o->repeats) {
        spec->repeats = o->repeats;
    }
    outdir = o->out ? xstrdup(o->out) : default_out(spec->name, "-ab");
    da = xprintf("%s/a", outdir);
    db = xprintf("%s/b", outdir);
    cmdline = join_args(call->argc, call->argv);
    if ((err = matrix_expand(&pa, spec, o->only)) < 0 || (err = matrix_expand(&pb, spec, o->only)) < 0 ||
        (!o->dry_run && ((err = rundir_check_free(da)) < 0 || (err = rundir_check_free(db)) < 0)) ||
        (err = derive_envs(&pb, o->with.v, o->with.n, o->dry_run)) < 0 ||
        (err = abplan_interleave(&both, &arm, &pa, &pb)) < 0)
        goto done;
    fprintf(term_stdout(), "interleaved A/B plan: %s%zu process(es), A and B in ABBA order\n", seq ? "up to " : "",
            both.ncells);
    for (size_t i = 0; i < both.ncells; i++)
        fprintf(term_stdout(), "  %4zu  %c  %-40s env=%s\n", i + 1, arm[i] ? 'B' : 'A', both.cells[i].key,
                both.cells[i].env);
    if (o->dry_run) {
        /* arm A's cells: the same workloads, in environments already built */
        fflush(stdout);
        err = workcheck_run(&pa, term_stdout());
        goto done;
    }
    if ((err = util_mkdir_p(outdir, 0755)) < 0 ||
        (err = abarm_create(&sa, da, spec, &pa, cmdline, "a", NULL, 0, NULL, 0, term_voice())) < 0 ||
        (err = abarm_create(&sb, db, spec, &pb, cmdline, "b", o->with.v, o->with.n, o->benv.v, o->benv.n,
                            term_voice())) < 0)
        goto done;
    term_say(VOICE_NOTE, "run", "run directories: %s (A) and %s (B)", da, db);
    fflush(stdout);
    struct sched_arm arms[2] = {{.st = sa, .wait_idle = o->wait_idle},
                                {.st = sb, .setenv = o->benv.v, .nsetenv = o->benv.n, .wait_idle = o->wait_idle}};
    struct sched_summary sum;
    if (seq)
        q = abseq_new(&both, arm, &design, SIGNIFICANCE_NOISE);
    if ((err = sched_run_ab(arms, &both, arm, q, &sum)) == 0) {
        size_t dropped_a = 0, dropped_b = 0;
        if (q && ((err = abseq_finish(q, sa, sb, term_stderr())) < 0 ||
                  (err = store_drop_unstarted(sa, &dropped_a)) < 0 || (err = store_drop_unstarted(sb, &dropped_b)) < 0))
            goto done;
        term_say(VOICE_NOTE, "run", "done: %d process(es): %d ok, %d unsupported, %d failed, %d skipped -> %s/{a,b}",
                 sum.total, sum.ok, sum.unsupported, sum.failed, sum.skipped, outdir);
        if (q)
            term_say(VOICE_NOTE, "run",
                     "sequential: %d planned process(es) not needed, removed from the plans (%zu A, %zu B)",
                     sum.skipped_seq, dropped_a, dropped_b);
        term_say(VOICE_NOTE, "run", "compare with: benchgen compare %s", outdir);
        status = (sum.failed || sum.skipped) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
    }
done:
    if (err < 0)
        status = cli_fail(&cli_run, err);
    store_close(sa);
    store_close(sb);
    matrix_free(&pa);
    matrix_free(&pb);
    matrix_free(&both);
    abseq_free(q);
    free(arm);
    spec_free(spec);
    free(outdir);
    free(da);
    free(db);
    free(cmdline);
    return status;
}

static int run_run(const struct cli_call *call)
{
    const struct run_opts *o = call->opts;
    const char *spec_path = call->nargs ? call->args[0] : NULL;
    bool retry[STATUS_COUNT] = {0};
    if (!spec_path && !o->resume)
        return cli_usage_error(&cli_run, "missing SPEC");
    struct exec_options eo = {.kind = o->executor,
                              .devices = o->devices,
                              .cpus_per_cell = o->cpus_per_cell,
                              .partition = o->partition,
                              .gpus_per_cell = o->gpus_per_cell,
                              .mem = o->mem,
                              .time_limit = o->time_limit,
                              .max_parallel = o->max_parallel,
                              .sbatch_args = o->sbatch_args.v,
                              .nsbatch_args = o->sbatch_args.n,
                              .max_attempts = o->max_attempts,
                              .no_wait = o->no_wait,
                              .wait_idle = o->wait_idle};
    if (term_setup(o->quiet, o->progress) < 0)
        return cli_usage_error(&cli_run, "%s", error_last());
    if (o->resume && (o->out || o->only || o->with.n || o->repeats || o->dry_run))
        return cli_usage_error(&cli_run,
                               "--resume takes the plan from the run; drop --out/--only/--with/--repeats/--dry-run");
    if (o->retry && !o->resume)
        return cli_usage_error(&cli_run, "--retry only makes sense with --resume");
    if (parse_retry(o->retry, retry) < 0)
        return cli_usage_error(&cli_run, "%s", error_last());
    if (o->benv.n && !o->ab)
        return cli_usage_error(&cli_run, "--b-env only makes sense with --ab");
    for (size_t i = 0; i < o->with.n; i++)
        if (envs_derive_check_pin(o->with.v[i]) < 0)
            return cli_usage_error(&cli_run, "%s", error_last());
    /* The same checks as the spec's resources: */
    const struct {
        const char *opt, *key, *value;
    } res[] = {{"partition", "partition", o->partition}, {"mem", "mem", o->mem}, {"time", "time", o->time_limit}};
    for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
        const char *bad = res[i].value ? resources_check(res[i].key, res[i].value) : NULL;
        if (bad)
            return cli_usage_error(&cli_run, "--%s '%s' %s", res[i].opt, res[i].value, bad);
    }
    if (o->ab && o->resume)
        return cli_usage_error(&cli_run, "--ab cannot resume; resume DIR/a and DIR/b one at a time");
    if (o->ab)
        return run_ab(call, spec_path);

    struct spec *spec = NULL;
    struct store *st = NULL;
    struct matrix plan = {0};
    struct kvlist host = {0};
    struct run_inputs inputs = {0};
    char *outdir = NULL, *cmdline = NULL;
    int err = 0, status = 0;

    if (spec_path && (err = spec_load(&spec, spec_path)) < 0)
        goto done;
    if (o->resume) {
        if ((err = store_open(&st, o->resume, false)) < 0 || (err = store_load_plan(st, &plan)) < 0)
            goto done;
        store_set_voice(st, term_voice());
        if (spec && (err = check_same_spec(st, spec, o->resume)) < 0)
            goto done;
        if ((err = store_inputs(st, &inputs)) < 0)
            goto done;
        depends_warn_changed(&inputs, term_stderr());
        if ((err = resume_collect(st, &plan, &eo)) < 0 || (err = select_resumable(st, &plan, retry)) < 0)
            goto done;
        term_say(VOICE_NOTE, "run", "resuming %s: %zu cell(s) left to run", o->resume, plan.ncells);
    } else {
        if (o->repeats)
            spec->repeats = o->repeats;
        outdir = o->out ? xstrdup(o->out) : default_out(spec->name, "");
        cmdline = join_args(call->argc, call->argv);
        /* --out is checked before anything is built or downloaded */
        if ((err = matrix_expand(&plan, spec, o->only)) < 0 ||
            (!o->dry_run && (err = rundir_check_free(outdir)) < 0) ||
            (err = derive_envs(&plan, o->with.v, o->with.n, o->dry_run)) < 0)
            goto done;
        sched_print_plan(&plan, term_stdout());
        if (o->dry_run) {
            fflush(stdout);
            err = workcheck_run(&plan, term_stdout());
            goto done;
        }
        if ((err = sysinfo_collect(&host)) < 0)
            goto done;
        for (size_t i = 0; i < o->with.n; i++)
            kvlist_add(&host, "run.with", o->with.v[i]);
        /* Options the executor refuses create no run directory. */
        struct executor probe;
        if ((err = executor_open(&probe, &eo, NULL, NULL, NULL)) < 0)
            goto done;
        probe.ops->close(&probe);
        if (eo.kind && strcmp(eo.kind, "slurm") == 0 && (err = slurm_check_dir(outdir)) < 0)
            goto done;
        if ((err = depends_collect(&inputs, spec, &plan)) < 0 ||
            (err = store_create(&st, outdir, spec, &plan, &host, &inputs, cmdline, term_voice())) < 0 ||
            (err = cellfile_write_plan(store_dir(st), &plan)) < 0)
            goto done;
        const char *gpu = kvlist_get(&host, "gpu.status");
        term_say(VOICE_NOTE, "run", "run directory: %s", outdir);
        if (gpu)
            term_say(VOICE_NOTE, "run", "%s", gpu);
    }
    fflush(stdout);
    struct sched_summary sum;
    err = sched_run(st, &plan, &eo, &sum);
    if (!err && eo.no_wait) {
        if (*sum.submitted) {
            term_say(VOICE_NOTE, "run", "queued; watch with `benchgen status %s`, merge with `benchgen collect %s`",
                     store_dir(st), store_dir(st));
            printf("%s\n", sum.submitted);
        }
    } else if (!err) {
        char more[512] = "";
        if (sum.interrupted)
            snprintf(more, sizeof(more), ", %d interrupted (`benchgen run --resume %s` reruns them)",
                     sum.interrupted, store_dir(st));
        term_say(VOICE_NOTE, "run", "done: %d cell(s): %d ok, %d unsupported, %d failed, %d skipped%s -> %s",
                 sum.total, sum.ok, sum.unsupported, sum.failed, sum.skipped, more, store_dir(st));
        status = (sum.failed || sum.skipped || sum.interrupted) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
    }
done:
    if (err < 0)
        status = cli_fail(&cli_run, err);
    store_close(st);
    matrix_free(&plan);
    spec_free(spec);
    kvlist_free(&host);
    run_inputs_free(&inputs);
    free(outdir);
    free(cmdline);
    return status;
}

const struct cli_command cli_run = {
    .name = "run",
    .synopsis = "SPEC [--out DIR] [--only KEY=VAL,...] [--dry-run]\n"
                " [--with PKG==V ...] [--repeats N]\n"
                " [--executor E] [--devices LIST|auto] [--cpus-per-cell N]\n"
                " [--wait-idle SECONDS] [--quiet] [--progress MODE]\n"
                "SPEC --executor slurm [--partition P] [--gpus-per-cell N] [--cpus-per-cell N]\n"
                " [--mem SIZE] [--time LIMIT] [--max-parallel K] [--sbatch-arg ARG]...\n"
                " [--max-attempts N] [--no-wait]\n"
                "SPEC --ab [--out DIR] [--only KEY=VAL,...] [--dry-run] [--with PKG==V ...]\n"
                " [--b-env NAME=VALUE ...] [--first N] [--cap N] [--effect PCT] [--repeats N]\n"
                " [--wait-idle SECONDS]\n"
                "--resume DIR [SPEC] [--retry STATUS,...]",
    .summary = "run a matrix spec (or finish an interrupted run with --resume)",
    .about = "Expands SPEC (a YAML matrix spec, see docs/SPEC.md), prints the plan and runs\n"
             "every cell, one at a time, each in a fresh worker process. Results go to DIR:\n"
             "run.db (SQLite) and logs/. --devices/--cpus-per-cell run several cells at once\n"
             "on this machine; --executor slurm submits one Slurm job array, one task per\n"
             "cell, and waits for it (docs/CLUSTER.md).\n",
    .exits = "0    every cell ok or unsupported (--no-wait: the array is queued)\n"
             "1    some cell failed, was skipped or was interrupted by Slurm (the run is\n"
             "     complete and reportable; --resume reruns the interrupted ones)\n"
             "2    usage error, bad spec, missing SPEC or run directory, unknown --retry status\n"
             "130  interrupted (`benchgen run --resume DIR` finishes it)",
    .spec = {run_options, sizeof(run_options) / sizeof(run_options[0]), 0, 1, "SPEC"},
    .opts_size = sizeof(struct run_opts),
    .run = run_run,
};
