/*
 * ablate.h - test-only knobs that switch parts of a cell's surroundings off,
 * one at a time, so scripts/fidelity.sh can measure what each costs a step
 * (issue 29; docs/PERFORMANCE.md, "Fidelity").
 *
 * $BENCHGEN_ABLATE is a comma-separated list of knob names:
 *   cgroup       no cgroup: the cell is held by the tree backend (subreaper
 *                and sweep, runners/contain_tree.c), and the parent does not
 *                poll the cell's memory (the tree's poll is a /proc sweep,
 *                which would replace one cost with another)
 *   sampling     the parent samples nothing while the cell runs: no
 *                telemetry thread (host 1 Hz, GPU 20 Hz, the /proc scan
 *                for contention) and no 10 Hz memory poll (the peak is
 *                read once, at the end)
 *   env          the interpreter's plain environment: no -s -u -X utf8, no
 *                PYTHONHASHSEED, PYTHONUTF8, PYTHONUNBUFFERED or
 *                PYTHONNOUSERSITE, the user's PYTHON* variables kept
 *   inputs-copy  the workload gets Python-owned, writable, 64-byte aligned
 *                copies of the inputs instead of read-only views of the C
 *                buffers (runners/harness.py)
 *   pipe         the worker keeps every step's sample in memory and sends
 *                them after the last timed step: no write per step
 *   tmpdir       no per-cell TMPDIR and compiler cache directories: the
 *                worker keeps the variables it inherited
 * "all" names every knob. A cell run with knobs records the fact `ablate`
 * (the knobs, in the order above). Results measured with any knob on are
 * not benchgen's method: these are for measuring benchgen, never for a run
 * whose numbers are published.
 *
 * Ownership: plain values only.
 */
#ifndef BENCHGEN_ABLATE_H
#define BENCHGEN_ABLATE_H

#include <stddef.h>

#define ABLATE_VAR "BENCHGEN_ABLATE"

enum ablate_knob {
    ABLATE_CGROUP = 1u << 0,
    ABLATE_SAMPLING = 1u << 1,
    ABLATE_ENV = 1u << 2,
    ABLATE_INPUTS_COPY = 1u << 3,
    ABLATE_PIPE = 1u << 4,
    ABLATE_TMPDIR = 1u << 5,
};

/* The knobs a list names into *mask (0 for NULL or ""). Spaces around a
 * name are allowed, empty items are not. BG_EUSAGE naming the word that is
 * no knob, and the known ones. */
int ablate_parse(unsigned *mask, const char *list);

/* $BENCHGEN_ABLATE parsed (ablate_parse, its message prefixed with the
 * variable's name). */
int ablate_from_env(unsigned *mask);

/* $BENCHGEN_ABLATE's knobs; 0 when it is unset or names something that is
 * no knob (worker_run() refuses such a value before any cell starts). */
unsigned ablate_active(void);

/* The knobs as a canonical comma-separated list ("" for none) into buf. */
void ablate_format(unsigned mask, char *buf, size_t len);

#endif /* BENCHGEN_ABLATE_H */
