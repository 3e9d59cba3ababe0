/*
 * cell.h - the body of a cell worker process (the child side of worker.c).
 *
 * Order of events, each reported as a marker: python (interpreter up),
 * import (workload imported), inputs (synthetic data made and hashed), setup
 * (model built), warmup, timed, done. Every step's duration is measured here,
 * in C, around one call of the step function the workload returned.
 */
#ifndef BENCHGEN_CELL_H
#define BENCHGEN_CELL_H

#include <stdint.h>

#include "runners/worker.h"

/* Never returns: ends with _exit(). */
_Noreturn void cell_main(const struct worker_job *job, int report_fd, int64_t t0_ns);

#endif /* BENCHGEN_CELL_H */
