/*
 * launch.h - `run` as a library call: a new run, a resume and an
 * interleaved A/B run, from one request struct, returning the scheduler's
 * summary (run/scheduler.h). The command line (gen/cli/cli_run.c) fills
 * the request from its options, calls one entry point and prints; a test
 * or an embedding program does the same without argv.
 *
 * What an entry point does, in order:
 *   run_launch     checks the request, loads SPEC, expands its plan (with
 *                  `only`), refuses an out directory that is not free,
 *                  derives and syncs the `with` environments, hands the
 *                  plan to hooks->plan; with dry_run, checks each workload
 *                  (run/workcheck.h) and stops there; otherwise checks the
 *                  executor options (executor_check()), creates the run
 *                  directory (run.db with the plan, the machine's facts,
 *                  the input files; the cells' plan file), calls
 *                  hooks->ready and runs the cells (sched_run()).
 *   run_resume     opens the run `resume`, refuses a SPEC that is not the
 *                  run's, collects results that came back elsewhere
 *                  (Slurm's verdicts where the run was submitted there;
 *                  cells Slurm still has are left to it), keeps the cells
 *                  with no final status, interrupted ones and those whose
 *                  status `retry` names, calls hooks->ready and runs them.
 *   run_launch_ab  A is the spec as it is, B the same with the `with` pins
 *                  and `benv` variables: two plans into abarm_dirs(out)
 *                  (DIR/a, DIR/b), one ABBA-ordered loop (sched_run_ab()),
 *                  sequential verdicts (run/abseq.h) unless repeats is set
 *                  or the spec fixes its repeats.
 *
 * Errors: 0 or a negative BG_E* code with its message (base/error.h).
 * A request the entry point refuses before doing anything (options that do
 * not go together, a bad --retry status, a cap below the first batch) is
 * BG_EUSAGE with out->usage set, so a command line can print its usage.
 * BG_EINTR when the user stopped the run (the run stays resumable).
 *
 * Prints: hooks print the plan and where the run went; what the library
 * still prints itself goes to stderr (a failed `with` sync, depends'
 * changed-input warnings, Slurm collect notes, the sequential design and
 * per-cell stop lines) and, with dry_run, the workload check to stdout.
 *
 * Ownership: the request and its strings are borrowed for the call; the
 * outcome's strings are malloc'd, released by run_outcome_free().
 */
#ifndef BENCHGEN_LAUNCH_H
#define BENCHGEN_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/voice.h"
#include "plan/matrix.h"
#include "run/executor.h"
#include "run/scheduler.h"

struct run_outcome;

/* Where the library hands information to its caller, which prints it; every
 * member may be NULL. */
struct run_hooks {
    /* The plan, expanded and with its derived environments, before anything
     * is created. arm is NULL for a plain run; for an A/B plan arm[i] is 0
     * (A) or 1 (B) and upto says the count is a cap (sequential verdicts). */
    void (*plan)(void *arg, const struct matrix *plan, const unsigned char *arm, bool upto);
    /* The run directory exists (or was opened) and the cells start next:
     * out->dir, out->gpu (a new run), out->left (a resume), out->dir_a and
     * out->dir_b (A/B) are set. A new run's GPU line follows as a note on
     * the request's voice. */
    void (*ready)(void *arg, const struct run_outcome *out);
    void *arg;
};

struct run_request {
    const char *spec;    /* SPEC's path; run_resume: optional, must be the run's spec */
    const char *out;     /* the directory to create; NULL: runs/<spec name>[-ab]-<UTC time> */
    const char *resume;  /* run_resume: the run to finish */
    const char *only;    /* KEY=VAL[,KEY=VAL...] subset of the plan; NULL: all */
    const char *retry;   /* run_resume: "STATUS[,...]" to rerun too; NULL: none */
    bool dry_run;        /* print the plan (hooks), check the workloads, create nothing */
    const char *const *with; /* "PKG==V" pins: cells run in derived environments */
    size_t nwith;
    int repeats;         /* > 0: overrides the spec's repeats (A/B: a fixed count a side) */
    const char *cmdline; /* recorded in run.db; NULL: "" */
    struct exec_options exec; /* the executor (run_launch, run_resume; A/B runs locally) */
    /* run_launch_ab */
    const char *const *benv; /* "NAME=VALUE" set for B's workers only */
    size_t nbenv;
    int first, cap;      /* sequential: processes a side before the first look, at most; 0: spec or default */
    const char *effect;  /* sequential: the smallest change of interest, "5" or "5%"; NULL: spec or default */
    const struct run_hooks *hooks; /* may be NULL */
    const struct voice *voice; /* progress, notes and warnings (base/voice.h); NULL: silent */
    FILE *text_out;      /* --dry-run's workload check; NULL: not printed */
    FILE *text_err;      /* text blocks shown beside the events: the inputs that changed since the run
                          * was created (a resume), run --ab's sequential verdicts; NULL: not printed */
};

struct run_outcome {
    struct sched_summary sum; /* how the cells ended (zero after a dry run) */
    bool ran;                 /* the scheduler ran: sum is filled */
    bool usage;               /* the error was the request's (BG_EUSAGE) */
    char *dir;                /* the run directory; A/B: DIR, holding DIR/a and DIR/b */
    char *dir_a, *dir_b;      /* A/B: the arms' run directories */
    char *gpu;                /* a new run: the machine's GPU line (fact gpu.status), or NULL */
    size_t left;              /* a resume: cells left to run */
    bool seq;                 /* A/B: sequential verdicts */
    size_t dropped_a, dropped_b; /* A/B, sequential: planned processes not needed, removed */
};

/* A new run of req->spec. */
int run_launch(struct run_outcome *out, const struct run_request *req);

/* Finishes the run req->resume (req->spec, when given, must be its spec). */
int run_resume(struct run_outcome *out, const struct run_request *req);

/* An interleaved A/B run of req->spec into DIR/a and DIR/b. */
int run_launch_ab(struct run_outcome *out, const struct run_request *req);

void run_outcome_free(struct run_outcome *out);

#endif /* BENCHGEN_LAUNCH_H */
