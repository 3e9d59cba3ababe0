/*
 * calibrate.h - `benchgen info --calibrate`: this CPU's float32 GEMM rate,
 * measured with a C microbenchmark (a register-blocked, packed SGEMM on
 * every CPU benchgen may use, one thread per CPU), as the peak that MFU of
 * CPU cells is measured against (report/hardware.h).
 *
 * A simple C GEMM reaches a good share of the hardware's FMA peak but not
 * all of it (no assembly, no cache-size tuning), so the number is a lower
 * bound of the true peak and MFU on CPU an upper bound: docs/GPU.md says so.
 *
 * The result is kept in $BENCHGEN_CACHE (the environments' cache directory)
 * as calibration-cpu.txt ($BENCHGEN_CALIBRATION names another file), keyed
 * by the CPU model and the CPU count; every run
 * created afterwards on the same CPU records it in its run-wide environment
 * as cpu.peak_gflops.float32 (sysinfo.h).
 */
#ifndef BENCHGEN_CALIBRATE_H
#define BENCHGEN_CALIBRATE_H

#include <stdio.h>

#include "base/util.h"

/* Measures (about `seconds` per thread count), prints progress and the
 * result to out, and stores it. 0 or a negative code. */
int calibrate_cpu(double seconds, FILE *out);

/* Adds cpu.peak_gflops.float32 (and .source) to kl when a calibration for
 * this CPU model and count is stored; nothing otherwise. */
int calibrate_describe(struct kvlist *kl);

#endif /* BENCHGEN_CALIBRATE_H */
