/*
 * benchmod.h - `_benchgen`, the built-in module every workload can import.
 *
 *   _benchgen.now_ns()         the same CLOCK_MONOTONIC the C step timer reads
 *   _benchgen.mark(name)       records a phase marker (ns since the worker forked)
 *   _benchgen.fact(name, val)  records a fairness fact for this cell (str(val))
 *   _benchgen.cell             dict: key, model, task, batch, backend, family,
 *                              size, precision, seed, steps, warmup, env
 *
 * Steps themselves are timed by runners/cell.c around each call of the
 * workload's step function, never by Python code.
 */
#ifndef BENCHGEN_BENCHMOD_H
#define BENCHGEN_BENCHMOD_H

#include <stdint.h>

#include "plan/matrix.h"

/* Where messages go and when the worker started; call before Python starts. */
void benchmod_configure(int report_fd, int64_t t0_ns, const struct cell *cell);

/* The module's init function, for pyembed_register_builtin("_benchgen", ...). */
void *benchmod_init(void);

#endif /* BENCHGEN_BENCHMOD_H */
