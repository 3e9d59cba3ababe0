/*
 * bisect_data.h - the state of one `benchgen bisect` (bisect.h has the
 * method and the functions; bisect_step.h runs one step of it).
 */
#ifndef BENCHGEN_BISECT_DATA_H
#define BENCHGEN_BISECT_DATA_H

#include "base/voice.h"
#include <stdbool.h>
#include <stddef.h>

#include "compare/compare_env.h"
#include "envs/envs_releases.h"

#define BISECT_STATE "bisect.json"
#define BISECT_FORMAT "benchgen-bisect/2"
#define BISECT_FORMAT_1 "benchgen-bisect/1" /* read: every step a fixed count (no sequential fields) */

enum bisect_verdict {
    BISECT_PENDING = 0, /* not finished */
    BISECT_BAD,         /* a bisected cell moved (the endpoints: some cell did) */
    BISECT_GOOD,        /* every bisected cell the same (or moved the other way) */
    BISECT_AMBIGUOUS,   /* neither, at this many processes */
    BISECT_SKIP         /* B's release cannot be built or its cells did not run */
};

enum bisect_outcome {
    BISECT_RUNNING = 0,
    BISECT_FOUND,     /* first bad and last good are adjacent (skipped releases aside) */
    BISECT_NOTHING,   /* the endpoints do not differ: nothing to bisect */
    BISECT_UNDECIDED  /* a step stayed ambiguous at the cap: the range narrowed so far */
};

struct bisect_options {
    const char *spec, *package, *good, *bad; /* required */
    const char *only;                        /* --only filter; NULL: every cell */
    const char *index;                       /* NULL: envs_releases_index() */
    const char *out;                         /* DIR; required */
    bool faster, pre, yanked;
    /* Each step stops as `run --ab` does (run/abseq.h, stats/seqtest.h)
     * unless processes (--repeats) asks for a fixed count a side. */
    bool sequential;   /* set by bisect_start(): processes == 0 */
    int first, cap;    /* sequential: the first batch and the cap a side; 0: the spec's ab_first /
                        * ab_cap, else SEQTEST_FIRST / SEQTEST_CAP */
    double effect;     /* sequential: the smallest change of interest (fraction); 0: the spec's
                        * ab_effect, else SEQTEST_EFFECT */
    int processes;     /* fixed: a side per step (--repeats); 0 when sequential */
    int max_processes; /* fixed: ambiguous doubles up to this; 0: 4 x processes */
    double noise;      /* compare's noise band (fraction) for the steps; 0: a third of the change
                        * the endpoints measured, at least SIGNIFICANCE_NOISE (the endpoints
                        * always use SIGNIFICANCE_NOISE unless it is given) */
};

/* One cell of one step. */
struct bisect_cell {
    char *id;        /* compare's "model/task/b<batch>/backend" */
    char *verdict;   /* significance_verdict_name(), or compare's verdict text */
    double ratio;    /* B/A; NAN when not tested */
    double lo, hi;   /* its interval; NAN when not tested */
    int processes;   /* processes a side it took (ok or not) */
};

struct bisect_step {
    int no;             /* 0: the endpoints; 1, 2, ...: bisection steps */
    int attempt;        /* 1, 2, ...: the same step again with more processes */
    size_t a, b;        /* indices of the releases compared (A known good) */
    char *dir;          /* its run directory, relative to DIR ("" for a skip) */
    int processes;      /* a side: the fixed count; sequential: the cap while pending, then the most
                         * any of its cells took */
    double noise;       /* the noise band compare judged it with (fraction) */
    enum bisect_verdict verdict;
    char *reason;       /* a skip's reason, an ambiguity's; "" otherwise */
    double ratio;       /* geometric mean of B/A over the bisected cells (at endpoints where no
                         * cell moved: over every tested cell); NAN when none */
    struct bisect_cell *cells;
    size_t ncells;
};

struct seqtest_design;

struct bisect {
    struct bisect_options o; /* strings owned (copies) */
    struct seqtest_design *design; /* sequential: the steps' design (bisect_design()), made once; owned */
    char *dir;               /* DIR */
    struct envs_releases rel;
    char **targets; /* the cells bisected: those that moved at the endpoints */
    size_t ntargets;
    struct bisect_step *steps;
    size_t nsteps;
    bool *skipped;       /* rel.n: a release skipped */
    size_t lo, hi;       /* the range left: rel.v[lo] good, rel.v[hi] bad */
    enum bisect_outcome outcome;
    struct compare_change *diff; /* environment diff of rel.v[lo] and rel.v[hi] (when found) */
    size_t ndiff;
    const struct voice *voice; /* bisect_run()'s listener, for its steps (not saved) */
};

#endif /* BENCHGEN_BISECT_DATA_H */
