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

struct cell;

/* Runs cell c with the interpreter bound to python (a venv's bin/python) and
 * home/runners on sys.path; reports on report_fd. Never returns: ends with
 * _exit(). The parameters are worker_job's (worker.h), passed one by one so
 * this module does not depend on its caller. */
_Noreturn void cell_main(const struct cell *c, const char *python, const char *home, int report_fd,
                         int64_t t0_ns);

#endif /* BENCHGEN_CELL_H */
