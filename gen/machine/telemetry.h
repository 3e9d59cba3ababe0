/*
 * telemetry.h - what the machine did while a cell ran, measured from the
 * parent: CPU time of processes outside benchgen (machine/hostload.h), load,
 * governor and turbo, and, where NVML is present (machine/nvml.h), every GPU's
 * clocks, power, energy, temperature, throttle reasons, utilisation, memory
 * and processes at about 20 Hz.
 *
 * telemetry_begin() waits for a quiet machine when asked (run --wait-idle),
 * measures a short window before the cell and starts a sampler thread;
 * telemetry_end() stops it and writes into the cell's result:
 *   - the series (result.telemetry; run.db's telemetry table), t_ns since
 *     the worker started (result.t0_ns, the markers' origin; samples taken
 *     before it have negative times), so the cell's markers place them and
 *     the timed-step windows of energy, clocks and throttling are exactly
 *     the markers': host.other_cpu, host.load1 at 1 Hz;
 *     gpu.N.sm_mhz, mem_mhz, power_w, energy_j, temp_c, throttle,
 *     util, mem_util, mem_used at 20 Hz (thinned 2:1 whenever a series
 *     passes TELEMETRY_MAX_POINTS);
 *   - a summary as facts (docs/GPU.md lists them): host.*, gpu.*, and
 *     contention = yes|no with contention.reason.
 * A cell is contended when processes outside benchgen used more than
 * HOSTLOAD_CONTENDED_CORES over the cell or over its timed steps, or when a
 * process that is not the cell's ran on the cell's GPU. A pid NVML lists
 * that /proc does not show (a host pid inside a PID namespace, from older
 * drivers) is unknown, not foreign: gpu.unresolved names it, and it never
 * makes a cell contended.
 *
 * The thread only reads /proc and calls NVML; it never touches the store,
 * Python or error_set(), so the worker forked beside it inherits nothing it
 * holds (glibc's fork resets malloc and stdio locks in the child).
 *
 * Ownership: telemetry_begin() gives a handle telemetry_end() (or, on an
 * error path, telemetry_cancel()) releases.
 */
#ifndef BENCHGEN_TELEMETRY_H
#define BENCHGEN_TELEMETRY_H

#include <signal.h>

#include "store/result.h"

#define TELEMETRY_GPU_HZ 20
#define TELEMETRY_HOST_HZ 1
#define TELEMETRY_MAX_POINTS 20000

struct telemetry;

/* Starts measuring, after waiting up to wait_idle seconds (run --wait-idle;
 * 0: no wait) for other processes to drop under the contention threshold.
 * Never fails for a missing GPU or /proc file: those are facts. BG_EIO when
 * the thread cannot start. *stop (may be NULL) becoming non-zero ends a
 * --wait-idle wait early. */
int telemetry_begin(struct telemetry **out, volatile sig_atomic_t *stop, double wait_idle);

/* Stops, and adds the series and summary facts to r. The cell's markers
 * (r->phases: "warmup" ends the warm-up, "timed" the timed steps), their
 * origin (r->t0_ns) and facts (device: "cuda..." or "gpu") must already be
 * in r. Releases t. */
int telemetry_end(struct telemetry *t, struct result *r);

/* Stops and releases without writing anything. */
void telemetry_cancel(struct telemetry *t);

#endif /* BENCHGEN_TELEMETRY_H */
