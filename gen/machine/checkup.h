/*
 * checkup.h - `benchgen info --check`: what on this machine is not set up
 * for benchmarking, and what to do about each (in the spirit of pyperf's
 * `system show`, plus GPUs).
 *
 * Checks: other processes using the CPUs now (measured over one second,
 * with the biggest named), the load average, the CPU frequency governor,
 * turbo/boost, the kernel's NMI watchdog and ASLR (both add jitter), free
 * memory and swap; on every GPU NVML sees: other processes, persistence
 * mode, application clocks below the maximum, clocks throttled now; and
 * whether NVML is there at all when a GPU is expected.
 *
 * Each check prints one line "ok   WHAT" or "warn WHAT -> WHAT TO DO".
 */
#ifndef BENCHGEN_CHECKUP_H
#define BENCHGEN_CHECKUP_H

#include <stdio.h>

/* Writes the checks to out; returns how many warned (0: ready). */
int checkup_run(FILE *out);

#endif /* BENCHGEN_CHECKUP_H */
