/*
 * worker.h - runs one cell in a freshly exec'd interpreter.
 *
 * The parent (this module's worker_run) never loads Python or CUDA. It
 * forks a child that joins the cell's container (runners/contain.h), gets
 * /dev/null on stdin, a pipe to the capped log (runners/logcap.h) on stdout
 * and stderr, the report pipe on fd 3 and nothing else, and exec()s the
 * environment's interpreter (after its command prefix, if it has one). The
 * interpreter imports `_benchgen` (runners/ext, one .abi3.so for every
 * Python from 3.9 on), which runs the workload through runners/harness.py
 * with every step timed in C and reports over the pipe, one JSON object per
 * line (runners/channel.h).
 *
 * The channel crosses a container boundary. Without a prefix it is the pipe
 * on fd 3. With a prefix, the cell's directory (mode 0700, which also holds
 * the cell's TMPDIR and compiler caches) gets a Unix socket, report.sock,
 * and the worker uses fd 3 when it arrives as a pipe, else connects to the
 * socket with the one-time token in $BENCHGEN_CHANNEL_TOKEN. A prefix word
 * containing `{cell}` is replaced by that directory and makes the socket the
 * only channel (`docker run -v {cell}:{cell} --env-file {cell}/env ...`);
 * {cell}/env then lists the variables the worker would get (PYTHON*,
 * BENCHGEN_*, the caches, CUDA_VISIBLE_DEVICES, the recorded numerics and
 * threading settings), since a container runtime passes none by itself.
 * $BENCHGEN_CELL_DIR names the directory for a prefix script. The parent
 * accepts one connection, and judges what arrives exactly as the pipe's.
 *
 * Every wait of the parent has a deadline: the cell's timeout, the memory
 * limit, Ctrl-C and SIGTERM hold whether the pipe is closed, full, or held
 * open by a grandchild. The parent turns what it saw into exactly one final
 * status: ok, error, crash, timeout, oom, unsupported, interrupted (skipped
 * is decided before forking, when the environment is missing). `ok` needs a
 * `done` report, every step's sample, and an exit status of 0.
 *
 * Ownership: the job's strings are borrowed for the call; the result is the
 * caller's (result_free()).
 */
#ifndef BENCHGEN_WORKER_H
#define BENCHGEN_WORKER_H

#include <signal.h>
#include <stdbool.h>

#include "plan/matrix.h"
#include "store/result.h"

struct worker_job {
    const struct cell *cell;
    const char *python;         /* the interpreter: a venv's bin/python, or a path inside a container */
    const char *const *prefix;  /* NULL, or a NULL-terminated command put before python */
    const char *log_path;       /* the cell's log; created or appended */
    const char *home;           /* holds runners/harness.py and runners/workloads */
    const char *device;         /* gpu | cpu: what the cell must run on, the cell's device resolved on
                                 * this machine (plan/device.h); NULL: cpu */
    bool declare_only;          /* load the workload, call supported() and inputs(), check the declarations
                                 * and end `ok` (or unsupported, or error): no inputs made, no setup(),
                                 * no step; what `run --dry-run` does (run/workcheck.h) */
    const char *compile_cache;  /* NULL: the compilers' caches are the cell's own, empty and removed with
                                 * it; else a directory kept across processes (an A/B arm's, for this
                                 * cell: run/scheduler.h) that they are pointed at instead. Created when
                                 * missing. The result's fact compile.cache says "cold" (the directory
                                 * held no file when the worker started) or "warm" */
};

/* Optional hook called about every 250 ms while a cell runs (progress). */
typedef void (*worker_tick_fn)(void *arg, const struct result *partial, int64_t elapsed_ns);

/* Runs the cell and fills out. Returns 0 whenever a status was recorded (even
 * error/crash/timeout: those are results), negative only when the worker
 * could not be started at all. *stop becoming non-zero kills the cell and
 * records it as interrupted. */
int worker_run(const struct worker_job *job, struct result *out, volatile sig_atomic_t *stop,
               worker_tick_fn tick, void *tick_arg);

/* The directory holding _benchgen.abi3.so ($BENCHGEN_EXT_DIR, else the
 * build's, under the benchgen home). Static storage. */
const char *worker_ext_dir(void);

/* The prefix with every `{cell}` replaced by cell_dir: a NULL-terminated
 * copy the caller frees with worker_prefix_free(). */
char **worker_prefix_expand(const char *const *prefix, const char *cell_dir);
void worker_prefix_free(char **argv);

/* The -c program that puts the module and runners/ on sys.path and hands
 * over to _benchgen._main(); argv[1] and [2] are those two directories. */
extern const char worker_bootstrap[];

#endif /* BENCHGEN_WORKER_H */
