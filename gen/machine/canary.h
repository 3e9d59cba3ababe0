/*
 * canary.h - the drift canary: a short, library-independent C kernel (a
 * fixed double-precision GEMM and a memory copy) timed before each cell with
 * the threads and CPU affinity the cell's worker will get.
 *
 * Two runs made at different times see different machines (other load,
 * clocks, thermal state). The canary measures the machine itself, with no
 * Python or framework involved, so `benchgen compare` can tell a change of
 * the code from a change of the machine: the canary ratio between two runs
 * (docs/COMPARE.md, "Drift canary"). Stored per cell as facts
 * canary.gemm_ms, canary.copy_ms, canary.threads.
 *
 * Ownership: nothing is kept between calls.
 */
#ifndef BENCHGEN_CANARY_H
#define BENCHGEN_CANARY_H

#include "base/util.h"

#define CANARY_GEMM_N 160            /* C = A * B, N x N doubles */
#define CANARY_COPY_BYTES (8u << 20) /* one memcpy of 8 MiB */
#define CANARY_REPS 9                /* the median of this many timings of each */

struct canary {
    double gemm_ms; /* median wall time of one GEMM */
    double copy_ms; /* median wall time of one copy */
    int threads;    /* threads the GEMM used: the CPUs of the affinity mask */
};

/* Times the kernels in the calling process, whose affinity the worker
 * inherits. Returns 0 (running out of memory exits, base/xalloc.h). */
int canary_measure(struct canary *out);

/* Adds canary.gemm_ms, canary.copy_ms and canary.threads to facts. */
int canary_facts(const struct canary *c, struct kvlist *facts);

#endif /* BENCHGEN_CANARY_H */
