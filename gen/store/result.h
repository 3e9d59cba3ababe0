/*
 * result.h - what one cell produced: its final status, every step time in
 * ns, the hash of its inputs, its fairness facts and environment.
 *
 * The cell worker (runners/worker.c) fills one; the store writes it in one
 * transaction, and the reader (store/rundata.h) loads it back as part of a
 * stored cell's record (all but telemetry). Ownership: the struct is the
 * caller's; result_free() releases the strings, arrays and lists it points
 * to (not the struct itself).
 */
#ifndef BENCHGEN_RESULT_H
#define BENCHGEN_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/util.h"
#include "plan/status.h"

/* One point of a telemetry series (GPU clocks, power, ...; host load),
 * t_ns since the worker was started (result.t0_ns). Stored in run.db's telemetry table. */
struct tseries_row {
    int64_t t_ns;
    double value;
    char name[32]; /* "gpu.0.sm_mhz", "host.other_cpu" */
};
struct tseries {
    struct tseries_row *rows;
    size_t n, cap;
};

struct result {
    enum status status;       /* STATUS_NONE until the cell has a final status */
    char *detail;             /* traceback, signal, reason; NULL when ok */
    char input_sha256[65];    /* of every input buffer, in declaration order; "" if none */
    int64_t input_bytes;
    int64_t *warmup_ns;       /* untimed steps; [0] is the first call (compile time) */
    size_t nwarmup, capwarmup;
    int64_t *timed_ns;        /* the timed steps */
    size_t ntimed, captimed;
    struct kvlist phases;     /* marker name -> ns since the worker started (decimal) */
    struct kvlist facts;      /* fairness facts: name -> value */
    struct kvlist env;        /* per-cell environment: python.*, pkg.<dist>, env.<VAR>, ... */
    time_t started, finished; /* wall clock, UTC */
    double wall_s;            /* fork to reap */
    int64_t peak_rss;         /* bytes, highest seen for the worker's process group */
    int exit_code;            /* -1 when killed by a signal */
    int term_signal;          /* 0 when it exited */
    struct tseries telemetry;  /* sampled while the cell ran (machine/telemetry.h); may be empty */
    int64_t t0_ns;             /* CLOCK_MONOTONIC when the worker was started, the origin of the
                                * markers and series; 0 when unknown (not stored) */
};

int result_add_sample(struct result *r, int warmup, int64_t ns);
void result_free(struct result *r);

/* The kind of processor the cell ran on: the device guard's fact
 * placement.device (runners/workloads/placement.py), else the older
 * audit.device; NULL when the workload reported neither. */
const char *result_device(const struct result *r);

/* Whether the worker started with its compile cache holding an earlier
 * process's compiles (the fact compile.cache = warm, which an A/B arm's later
 * processes record: runners/worker.h). Its first call is then not compile
 * time. */
bool result_warm_cache(const struct result *r);

/* The first call in ms when it is compile time: there is a warm-up sample
 * and the cache was not warm; else NAN. */
double result_compile_ms(const struct result *r);

/* Appends a point; names longer than 31 bytes are cut. */
int tseries_add(struct tseries *s, const char *name, int64_t t_ns, double value);
void tseries_free(struct tseries *s);

#endif /* BENCHGEN_RESULT_H */
