/*
 * workcheck.h - `run --dry-run`'s check of the custom workloads: every cell
 * whose row names a workload file is loaded in its environment by a worker
 * in declare-only mode (runners/worker.h): the workload is imported, its
 * supported() and inputs() are called and the input declarations checked
 * exactly as a run checks them, and nothing else runs (no inputs made, no
 * setup(), no step). So a declaration error (a bad dtype, an unknown key,
 * an inputs() that raises) is found before anything runs.
 *
 * Built-in workloads are not loaded (they are checked by the project's
 * tests, and importing a framework per cell would make a dry run slow). A
 * cell whose environment is not ready is said and not checked.
 *
 * Ownership: nothing is kept between calls.
 */
#ifndef BENCHGEN_WORKCHECK_H
#define BENCHGEN_WORKCHECK_H

#include <stdio.h>

#include "plan/matrix.h"

/* Checks the custom-workload cells of plan, one line each on out ("check
 * KEY: ok", "unsupported: WHY", "not checked: WHY"); a failing cell's whole
 * reason (its traceback included) goes to out too. Returns 0, or BG_ESPEC
 * naming the first failing cell and its reason's first line when any
 * failed (the others are on out), or another negative code when a worker
 * could not be started. */
int workcheck_run(const struct matrix *plan, FILE *out); /* out NULL: nothing printed */

#endif /* BENCHGEN_WORKCHECK_H */
