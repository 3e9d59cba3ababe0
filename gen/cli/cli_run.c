/*
 * cli_run.c - `benchgen run SPEC`, `run --resume DIR` and `run SPEC --ab`:
 * parses the options into a request, calls run/launch.h and prints the
 * plan, where the run went and how its cells ended.
 */
#include "base/error.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/term.h"
#include "run/launch.h"
#include "run/scheduler.h"

#include <stdio.h>

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

/* The plan, one line per cell; an A/B plan with each process's arm. */
static void print_plan(void *arg, const struct matrix *plan, const unsigned char *arm, bool upto)
{
    (void)arg;
    sched_print_plan_arms(plan, arm, upto, term_stdout());
}

/* Where the run went, before its cells start. */
static void print_ready(void *arg, const struct run_outcome *r)
{
    const struct run_opts *o = arg;
    if (o->ab)
        term_say(VOICE_NOTE, "run", "run directories: %s (A) and %s (B)", r->dir_a, r->dir_b);
    else if (o->resume)
        term_say(VOICE_NOTE, "run", "resuming %s: %zu cell(s) left to run", r->dir, r->left);
    else
        term_say(VOICE_NOTE, "run", "run directory: %s", r->dir); /* then the library's GPU line */
}

/* How the cells ended; the exit status. */
static int print_done(const struct run_opts *o, const struct run_outcome *r)
{
    const struct sched_summary *s = &r->sum;
    if (o->ab) {
        term_say(VOICE_NOTE, "run", "done: %d process(es): %d ok, %d unsupported, %d failed, %d skipped -> %s/{a,b}",
                 s->total, s->ok, s->unsupported, s->failed, s->skipped, r->dir);
        if (r->seq)
            term_say(VOICE_NOTE, "run",
                     "sequential: %d planned process(es) not needed, removed from the plans (%zu A, %zu B)",
                     s->skipped_seq, r->dropped_a, r->dropped_b);
        term_say(VOICE_NOTE, "run", "compare with: benchgen compare %s", r->dir);
        return (s->failed || s->skipped) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
    }
    if (o->no_wait) {
        if (*s->submitted) {
            term_say(VOICE_NOTE, "run", "queued; watch with `benchgen status %s`, merge with `benchgen collect %s`",
                     r->dir, r->dir);
            printf("%s\n", s->submitted); /* the job id, the one result of --no-wait */
        }
        return CLI_EXIT_OK;
    }
    char more[512] = "";
    if (s->interrupted)
        snprintf(more, sizeof(more), ", %d interrupted (`benchgen run --resume %s` reruns them)", s->interrupted,
                 r->dir);
    term_say(VOICE_NOTE, "run", "done: %d cell(s): %d ok, %d unsupported, %d failed, %d skipped%s -> %s", s->total,
             s->ok, s->unsupported, s->failed, s->skipped, more, r->dir);
    return (s->failed || s->skipped || s->interrupted) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

static int run_run(const struct cli_call *call)
{
    const struct run_opts *o = call->opts;
    if (term_setup(o->quiet, o->progress) < 0) /* before term_voice() and the streams are handed on */
        return cli_usage_error(&cli_run, "%s", error_last());
    struct strbuf cmdline = {0}; /* recorded in run.db */
    for (int i = 0; i < call->argc; i++)
        strbuf_printf(&cmdline, "%s%s", i ? " " : "", call->argv[i]);
    struct run_hooks hooks = {.plan = print_plan, .ready = print_ready, .arg = (void *)o};
    struct run_request req = {
        .spec = call->nargs ? call->args[0] : NULL, .out = o->out, .resume = o->resume, .only = o->only,
        .retry = o->retry, .dry_run = o->dry_run, .with = o->with.v, .nwith = o->with.n, .repeats = o->repeats,
        .cmdline = cmdline.buf, .benv = o->benv.v, .nbenv = o->benv.n, .first = o->first, .cap = o->cap,
        .effect = o->effect, .hooks = &hooks, .voice = term_voice(),
        .text_out = term_stdout(), .text_err = term_stderr(),
        .exec = {.kind = o->executor, .devices = o->devices, .cpus_per_cell = o->cpus_per_cell,
                 .partition = o->partition, .gpus_per_cell = o->gpus_per_cell, .mem = o->mem,
                 .time_limit = o->time_limit, .max_parallel = o->max_parallel, .sbatch_args = o->sbatch_args.v,
                 .nsbatch_args = o->sbatch_args.n, .max_attempts = o->max_attempts, .no_wait = o->no_wait,
                 .wait_idle = o->wait_idle}};
    struct run_outcome r;
    int err = o->ab ? run_launch_ab(&r, &req) : o->resume ? run_resume(&r, &req) : run_launch(&r, &req);
    int status = err < 0 ? (r.usage ? cli_usage_error(&cli_run, "%s", error_last()) : cli_fail(&cli_run, err))
                         : r.ran ? print_done(o, &r) : CLI_EXIT_OK;
    run_outcome_free(&r);
    strbuf_free(&cmdline);
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
