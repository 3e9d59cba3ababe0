/*
 * executor.h - starts cells and hands back their results.
 *
 * The scheduler (scheduler.h) plans and records; an executor only starts
 * cells and returns what each produced. One interface, one file per
 * executor (like redis's ae.c and its ae_epoll.c/ae_kqueue.c):
 *
 *   executor_local.c  one cell at a time in this process's worker
 *                     (runners/worker.h); with --devices and/or
 *                     --cpus-per-cell, one `benchgen cell` process per
 *                     device or core set at once (run/cellrun.h)
 *
 * Life of an executor: executor_open() checks the options and picks the
 * table (executor_check() does the same checks and opens nothing);
 * start() begins every cell of a plan (an executor runs them as its
 * resources allow); next() blocks until one cell has finished and hands
 * back its result, until none is left; close() releases everything. A
 * non-zero *stop (SIGINT/SIGTERM in the scheduler) makes a local executor
 * kill the cell in flight, which then comes back from next() as
 * `interrupted`, and return 0 after it.
 *
 * Ownership: the options' strings are borrowed for the executor's life;
 * the event's result and log path are the caller's after next()
 * (exec_event_free()).
 */
#ifndef BENCHGEN_EXECUTOR_H
#define BENCHGEN_EXECUTOR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/matrix.h"
#include "store/result.h"
#include "store/store.h"

/* What the command line (or a test) asks of the executor. Zero = defaults. */
struct exec_options {
    const char *kind;    /* "local" (NULL means local) or "slurm" */
    const char *devices; /* local: NULL, "auto" (the GPUs NVML reports) or "0,1,3" */
    int cpus_per_cell;   /* local: pin N disjoint cores per cell (0: no pinning);
                          * slurm: --cpus-per-task */
    /* slurm: the defaults for every cell (the spec's per-row and per-backend
     * resources, where given, come first) */
    const char *partition;
    int gpus_per_cell;      /* --gres=gpu:N */
    const char *mem;        /* --mem, e.g. "16G" */
    const char *time_limit; /* --time, e.g. "2:00:00" */
    int max_parallel;       /* the array's %K throttle; 0 = none */
    const char *const *sbatch_args; /* passed to sbatch as they are */
    size_t nsbatch_args;
    int max_attempts; /* starts of one task before it is left interrupted; 0 = 3 */
    bool no_wait;     /* return once queued */
    int poll_ms;      /* how often to look at the queue; 0 = 2000 */
    double wait_idle; /* run --wait-idle: seconds to wait for a quiet machine before each cell
                       * (0: none); `benchgen cell` processes get it as --wait-idle */
};

/* One finished cell. */
struct exec_event {
    const struct cell *cell; /* borrowed from the plan given to start() */
    struct result result;
    char *log_path;
    /* Results that came back through attempt files (run/cellfile.h): the
     * files, the attempt each belongs to and its status, for store_merge().
     * Empty for results from this process's own worker (store_record()). */
    struct strlist files, tags, statuses;
};

/* Progress hooks; every member may be NULL. */
struct exec_hooks {
    /* About every 250 ms while a cell runs in this process. */
    void (*tick)(void *arg, const struct cell *c, const struct result *partial, int64_t elapsed_ns);
    /* A cell is about to start; where is "device 0, cores 2-3" or NULL. */
    void (*started)(void *arg, const struct cell *c, const char *where);
    /* What is running now, one short line ("2 running: ..."), about once a
     * second, from executors that run cells in other processes. */
    void (*state)(void *arg, const char *line);
    void *arg;
};

struct executor;

struct executor_ops {
    const char *name;
    /* Checks the options against this machine or cluster; 0 or an error. */
    int (*open)(struct executor *ex);
    /* The same checks as open(), with no executor and nothing changed in this
     * process (no environment variable set); 0 or an error. */
    int (*check)(const struct exec_options *opt);
    /* Begins every cell of todo (borrowed until close()). */
    int (*start)(struct executor *ex, const struct matrix *todo);
    /* 1 and *ev filled when a cell finished; 0 when none is left; < 0 error. */
    int (*next)(struct executor *ex, struct exec_event *ev);
    void (*close)(struct executor *ex);
};

struct executor {
    char submitted[256];             /* what start() queued, e.g. "Slurm job 1234" ("" locally) */
    const struct executor_ops *ops;
    const struct exec_options *opt;
    struct store *st;                /* the run being executed (borrowed) */
    volatile sig_atomic_t *stop;     /* set by the scheduler's signal handler */
    struct exec_hooks hooks;
    void *priv;                      /* the executor's own state */
};

extern const struct executor_ops executor_local_ops;
extern const struct executor_ops executor_slurm_ops;

/* Picks the table for opt->kind (opt may be NULL: local) and opens it.
 * BG_EUSAGE for an unknown kind or options the executor refuses. */
int executor_open(struct executor *ex, const struct exec_options *opt, struct store *st,
                  volatile sig_atomic_t *stop, const struct exec_hooks *hooks);

/* Checks opt as executor_open() would (opt may be NULL: local), opening
 * nothing: what a run does before it creates its directory, so options the
 * executor refuses leave nothing behind. 0, or BG_EUSAGE (and the like) with
 * the message executor_open() would give. */
int executor_check(const struct exec_options *opt);

/* What an executor does to start one cell where it runs: resolves the
 * cell's Python environment (missing -> `skipped`, with the command that
 * fixes it), waits up to wait_idle seconds for a quiet machine
 * (machine/telemetry.h; 0: no wait), runs it in a worker and notes where it
 * ran (executor_note_place). compile_cache: NULL (the cell compiles into its
 * own empty caches), or the directory an A/B arm keeps for this cell
 * (runners/worker.h). 0 whenever a status was recorded in *r. */
int executor_run_cell(const struct cell *c, const char *log_path, const char *compile_cache,
                      volatile sig_atomic_t *stop, const struct exec_hooks *hooks, double wait_idle,
                      struct result *r);

/* Adds where the calling process runs to r->env: where.host, where.cores
 * (its CPU affinity, "0-3,8"), where.devices (CUDA_VISIBLE_DEVICES, ""
 * when unset), where.cpu (the CPU model), where.gpu (the NVML names of the
 * visible GPUs, "" without) and, inside a Slurm job, slurm.job_id, slurm.array_job_id,
 * slurm.array_task_id, slurm.node, slurm.partition, slurm.job_gpus
 * (SLURM_JOB_GPUS), slurm.restart_count, slurm.cpus_per_task. */
int executor_note_place(struct result *r);

/* Sets OMP_NUM_THREADS and its kin (MKL, OpenBLAS, BLIS, vecLib, numexpr,
 * TensorFlow intra- and inter-op) to n in this process's environment;
 * variables already set are kept unless overwrite. */
void executor_set_threads(int n, bool overwrite);

/* RUN_DIR/logs/<key as file name>.log, malloc'd; never NULL (base/xalloc.h). */
char *executor_log_path(const char *run_dir, const struct cell *c);

void exec_event_free(struct exec_event *ev);

#endif /* BENCHGEN_EXECUTOR_H */
