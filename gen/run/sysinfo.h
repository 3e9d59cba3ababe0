/*
 * sysinfo.h - what a run was measured on: OS, kernel, CPU, memory, benchgen
 * version, git commit and dirty flag, and the GPU (name, driver, CUDA
 * runtime, cuDNN) when there is one.
 *
 * The parent never initialises CUDA (a process that did cannot fork workers
 * that use it), so GPU facts come from NVML (no CUDA context), cuDNN's
 * version calls, and a short-lived forked probe for the CUDA runtime.
 * Keys are dotted: os.name, os.kernel, cpu.model, cpu.cores, mem.total_bytes,
 * benchgen.version, benchgen.git_commit, benchgen.git_dirty, gpu.count,
 * gpu.0.name, gpu.driver, cuda.runtime, cudnn.version, gpu.status (a plain
 * sentence when there is no GPU).
 */
#ifndef BENCHGEN_SYSINFO_H
#define BENCHGEN_SYSINFO_H

#include "base/util.h"

int sysinfo_collect(struct kvlist *out);

/* Only the GPU part (also used by `benchgen info`). */
int sysinfo_gpu(struct kvlist *out);

/* Physical memory in bytes (0 if unknown). */
unsigned long long sysinfo_mem_total(void);

#endif /* BENCHGEN_SYSINFO_H */
