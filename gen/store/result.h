/*
 * result.h - what one cell produced: its final status, every step time in
 * ns, the hash of its inputs, its fairness facts and environment.
 *
 * The cell worker (runners/worker.c) fills one; the store writes it in one
 * transaction. Ownership: the struct is the caller's; result_free() releases
 * the arrays and lists it points to (not the struct itself).
 */
#ifndef BENCHGEN_RESULT_H
#define BENCHGEN_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/util.h"

struct result {
    char status[16];          /* one of catalog_statuses */
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
};

int result_add_sample(struct result *r, int warmup, int64_t ns);
void result_free(struct result *r);

#endif /* BENCHGEN_RESULT_H */
