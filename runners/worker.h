/*
 * worker.h - runs one cell in an isolated, freshly forked process.
 *
 * The parent (this module's worker_run) never initialises Python or CUDA.
 * It forks; the child puts itself in its own process group, sends its
 * stdout/stderr to the cell's log, sets the backend's environment variables,
 * starts CPython bound to the cell's venv (runners/pyembed.c), and runs the
 * workload through runners/harness.py with every step timed in C
 * (runners/cell.c). It reports over a pipe, one JSON object per line, and
 * _exit()s without finalising the interpreter (frameworks crash or hang in
 * Py_Finalize). The parent enforces the wall-clock timeout and the memory
 * limit on the whole process group, and turns what it saw into exactly one
 * final status: ok, error, crash, timeout, oom, unsupported, interrupted
 * (skipped is decided before forking, when the environment is missing).
 *
 * Ownership: the job's strings are borrowed for the call; the result is the
 * caller's (result_free()).
 */
#ifndef BENCHGEN_WORKER_H
#define BENCHGEN_WORKER_H

#include <signal.h>

#include "plan/matrix.h"
#include "store/result.h"

struct worker_job {
    const struct cell *cell;
    const char *python;   /* the venv's bin/python the interpreter binds to */
    const char *log_path; /* the cell's log; created or appended */
    const char *home;     /* holds runners/harness.py and runners/workloads */
};

/* Optional hook called about every 250 ms while a cell runs (progress). */
typedef void (*worker_tick_fn)(void *arg, const struct result *partial, int64_t elapsed_ns);

/* Runs the cell and fills out. Returns 0 whenever a status was recorded (even
 * error/crash/timeout: those are results), negative only when the worker
 * could not be started at all. *stop becoming non-zero kills the cell and
 * records it as interrupted. */
int worker_run(const struct worker_job *job, struct result *out, volatile sig_atomic_t *stop,
               worker_tick_fn tick, void *tick_arg);

#endif /* BENCHGEN_WORKER_H */
