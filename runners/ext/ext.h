/*
 * ext.h - shared by the files of `_benchgen`, the worker's Python module.
 *
 * The module is built once against CPython's stable ABI (Py_LIMITED_API
 * 3.9), so one _benchgen.abi3.so loads into every interpreter from 3.9 on:
 * a venv, another minor version, a conda env or a container's python. It is
 * what a cell worker runs after benchgen exec()s the environment's
 * interpreter (runners/worker.c builds the command line):
 *
 *   module.c  the module object: now_ns, mark, fact, cell, and _main(), the
 *             entry point the bootstrap calls with the cell description
 *   channel_open.c  the report channel: the inherited fd 3, or the socket
 *             in the cell's directory when no descriptor crossed the prefix
 *   steps.c   the cell itself: the harness, C-generated inputs, the timed
 *             step loop and the final report
 */
#ifndef BENCHGEN_EXT_H
#define BENCHGEN_EXT_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x03090000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

/* Read-only flag of PyMemoryView_FromMemory (stable ABI since 3.3; the
 * limited headers only name it from 3.11). */
#ifndef PyBUF_READ
#define PyBUF_READ 0x100
#endif

/* What the parent told the worker about its cell (argv key=value pairs). */
struct ext_cell {
    const char *key, *model, *task, *backend, *family, *size, *precision, *env, *workload;
    const char *method; /* published | corrected (docs/METHOD.md) */
    const char *device, *device_rule; /* gpu | cpu required, and the spec's gpu | cpu | auto (plan/device.h) */
    long long batch, steps, warmup, repeat;
    unsigned long long seed;
    int check; /* 1: only load the workload and check its declarations (runners/worker.h, declare_only) */
    const char *ablate;  /* the test-only knobs in effect (runners/ablate.h), as benchgen listed them; NULL: none */
    unsigned ablate_mask;
};

extern int ext_report_fd;
extern int64_t ext_t0;

/* CLOCK_MONOTONIC in ns: the clock every step is timed with. */
int64_t ext_now_ns(void);

/* str(o) as malloc'd UTF-8 (undecodable characters replaced); NULL with a
 * Python exception set on failure. */
char *ext_str(PyObject *o);

/* Opens the report channel: fd FDSPEC when it arrived as a pipe (FDSPEC "-"
 * offers none), else the socket at SOCKET_PATH (NULL: none offered), which
 * is moved to fd 3 when that is free. Returns the descriptor, or -1 with the
 * reason in why (channel_open.c). */
int ext_channel_open(const char *fdspec, const char *socket_path, char *why, size_t len);

/* Runs the cell and exits the process (steps.c). */
_Noreturn void ext_run_cell(const struct ext_cell *c);

#endif /* BENCHGEN_EXT_H */
