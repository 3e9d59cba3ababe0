/*
 * compare.h - `benchgen compare RUN_A RUN_B [RUN_C ...]`: did a library
 * upgrade (or anything else) make cells faster or slower, and what else
 * changed in the environment next to each delta?
 *
 * Every run after the first is compared with the first (the baseline). A
 * cell's identity is model/task/b<batch>/backend; its repeats (key "#r<k>")
 * are pooled as separate processes. A pair whose size, precision, input hash
 * or method (workload, warm-up steps) differs is a mismatch, never a delta.
 * Verdicts (same, faster, slower, ambiguous) come from significance.h, with
 * Benjamini-Hochberg over every tested cell of one comparison.
 *
 * The environment diff covers the run-wide facts (OS, CPU, GPU, driver, CUDA,
 * cuDNN, benchgen) and each cell's Python and package versions. Differences
 * are "counted" when they can change performance, and "intended" when they
 * match --intended or a `--with PKG==VER` pin on either run's command line.
 * A cell is confounded when a counted change is not intended (or, when no
 * intent is known, when more than one component changed).
 *
 * docs/COMPARE.md has the rules, the text layout and the JSON fields
 * ("format": "benchgen-compare/1").
 *
 * Ownership: compare_load() fills a struct compare_result that
 * compare_result_free() releases, runs included. Strings in it are owned by
 * it except those documented as borrowed from the runs.
 */
#ifndef BENCHGEN_COMPARE_H
#define BENCHGEN_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "compare/compare_env.h"
#include "plan/status.h"
#include "store/rundata.h"
#include "stats/significance.h"

#define COMPARE_JSON_FORMAT "benchgen-compare/1"
#define COMPARE_EXIT_SLOWER 3

/* a cell that moved this much with only the host changed is flagged (compare.c, "scope") */
#define COMPARE_HOST_MOVE 0.15

struct compare_options {
    double alpha;         /* default SIGNIFICANCE_ALPHA */
    double noise;         /* fraction; default SIGNIFICANCE_NOISE */
    size_t resamples;     /* 0: SIGNIFICANCE_RESAMPLES */
    const char *intended; /* "pat[,pat...]" (fnmatch; "diffusers" or "pkg.diffusers"), may be NULL */
    const struct compare_profile *profile; /* a noise profile (compare_profile.h), borrowed; NULL: none */
};

struct compare_profile;

enum compare_match {
    COMPARE_MATCHED = 0, /* same identity and every must-be-equal field equal */
    COMPARE_MISMATCH,    /* same identity, but size/precision/input/method differ */
    COMPARE_ONLY_BASE,   /* the cell is not in the compared run */
    COMPARE_ONLY_RUN     /* the cell is not in the baseline */
};


/* One identity in one run: its repeats, pooled. */
struct compare_side {
    const struct rd_cell **reps; /* borrowed from the run, in repeat order */
    size_t nreps;
    enum status status;        /* STATUS_OK when every repeat is ok, else the first
                                * other status (STATUS_NONE: pending); STATUS_NONE
                                * on a side with no repeat */
    size_t n;                  /* timed samples of all repeats */
    double mean_ms;            /* pooled mean; NAN without samples */
    double ci_lo_ms, ci_hi_ms; /* 95% bootstrap CI of the pooled mean (stats.h) */
};

struct compare_cell {
    char *id;                           /* "<model>/<task>/b<batch>/<backend>" */
    const char *model, *task, *backend; /* borrowed from a run */
    int batch;
    enum compare_match match;
    char *mismatch;                 /* "precision float32 vs bfloat16; ..." ("" unless COMPARE_MISMATCH) */
    struct compare_side a, b;       /* nreps == 0 on a side the cell is missing from */
    struct significance_test t;     /* t.verdict SIGNIFICANCE_NONE when not tested */
    struct compare_change *changes; /* this cell's own environment differences */
    size_t nchanges;
    bool confounded;
    char *unintended; /* "huggingface-hub 0.20.3 -> 0.24.0, ..." ("" when not confounded) */
    double canary_ratio; /* this cell's drift canary B/A (geometric means); NAN without canary */
    bool drift;          /* tested, and the comparison's machine drifted: confounded by drift */
    bool affected;       /* the change can affect it (compare.c, "scope") */
    /* the two arms of one sequential `run --ab` (compare_seq.c): the
     * verdict is the sequential rule's at the look the cell stopped at */
    bool sequential;
    size_t seq_look, seq_looks; /* 1-based look, and the design's looks (0: not at a look) */
    const char *seq_stop;       /* the run's note: how many processes and why it stopped; borrowed; NULL */
    char host_changed[160]; /* "bench-a -> bench-b": moved >= 15% with only the host changed; "" */
};

/* A geometric mean of ratios B/A, stated only over decided cells
 * (docs/COMPARE.md, "Headlines"): a headline never says more than the
 * verdicts it is made of. */
struct compare_geomean {
    size_t ncells;   /* tested cells with a ratio */
    size_t ndecided; /* ... of them with a decided verdict: same, faster or slower */
    double ratio;    /* geometric mean of B/A over the decided cells; NAN when none */
    double lo, hi;   /* geometric means of the interval bounds over all ncells (NAN when
                      * none): where the geometric mean lies if every cell's interval
                      * holds, the "cannot tell" range when nothing is decided */
};

struct compare_backend {
    char *backend;
    struct compare_geomean g;
};

/* The baseline (runs[0]) against runs[run]. */
struct compare_pair {
    size_t run;
    bool ab; /* the two runs are the arms of one interleaved `run --ab`: paired tests */
    struct compare_change *env; /* run-wide environment differences */
    size_t nenv;
    char **intended; /* patterns: --intended plus --with pins of either run */
    size_t nintended;
    struct compare_cell *cells; /* baseline plan order, then cells only in the run */
    size_t ncells;
    struct compare_backend *backends; /* sorted by name */
    size_t nbackends;
    struct compare_geomean all; /* over every tested cell */
    /* the overall speed-up's cells: those the change can affect, and the
     * rest (compare.c, "scope") */
    struct compare_geomean affected, unaffected;
    /* The drift canary (machine/canary.h) over every process of each run that
     * recorded it: the ratio B/A of geometric means and its t-interval. */
    size_t canary_a, canary_b;            /* processes with a canary */
    double canary_ratio, canary_lo, canary_hi; /* NAN below 2 processes a side */
    bool drift;                           /* the interval lies outside the noise band */
    bool canary_unsure;                   /* not drift, but the interval reaches past the band:
                                           * cannot tell whether the machine moved */
    size_t ndrift;                        /* tested cells marked confounded by drift */
    size_t nsame, nfaster, nslower, nambiguous, nuntested, nmismatch, nonly_base, nonly_run, nconfounded;
    /* the noise profile (compare_profile.h): used, and what was decided */
    bool profile_used;
    size_t profile_cells;   /* cells whose band came from it */
    char profile_note[320]; /* "" without --profile */
};

/* The sequential rule (stats/seqtest.h) for the cells of p when both runs
 * are the arms of one sequential `run --ab` (their run.seq.design): each
 * tested cell's verdict, interval and why are replaced by the rule's at
 * its look; faster and slower also need Benjamini-Hochberg over the cells
 * (each p scaled by alpha over its look's nominal level) below alpha.
 * tests[i] is cell i's test, already decided (significance_decide). 0, or
 * BG_EUSAGE for a design note that cannot be read. */
int compare_seq_apply(struct compare_pair *p, const struct rundata *A, const struct rundata *B,
                      const struct compare_options *o, struct significance_test *tests);

/* (compare_profile.c) Decides whether pair p may use the noise profile (host, CPU, canary), writing
 * why into p->profile_note; when it may, marks each matched test in
 * tests[0..p->ncells) with the profile's CV for its cell. */
void compare_profile_apply(struct compare_pair *p, const struct compare_profile *pf, const struct rundata *A,
                           const struct rundata *B, const struct compare_options *o,
                           struct significance_test *tests);

/* One identity across every run, for the trend chart. */
struct compare_trend {
    char *id;
    struct compare_side *points; /* nruns; nreps == 0 where the run lacks it */
};

struct compare_result {
    struct compare_options opt;
    struct rundata **runs;
    size_t nruns;
    struct compare_pair *pairs; /* nruns - 1 */
    size_t npairs;
    struct compare_trend *trend; /* baseline order, then first appearance */
    size_t ntrend;
};

/* Loads run_dirs[0..n) (n >= 2) and compares. opt may be NULL (defaults).
 * BG_EUSAGE for n < 2 or bad options, BG_ENOTFOUND / BG_EDB for a run that
 * cannot be read. */
int compare_load(struct compare_result *out, const char *const *run_dirs, size_t n,
                 const struct compare_options *opt);

/* The same from runs already loaded; takes ownership of runs[0..n) (and
 * frees them even on failure); the runs array itself stays the caller's. */
int compare_build(struct compare_result *out, struct rundata **runs, size_t n,
                  const struct compare_options *opt);

int compare_write_text(const struct compare_result *r, FILE *out);
int compare_write_json(const struct compare_result *r, FILE *out);

/* COMPARE_EXIT_SLOWER when some cell of some comparison is slower, else 0. */
int compare_exit_status(const struct compare_result *r);

void compare_result_free(struct compare_result *r);

/* The verdict column of the text output, for the other formats to say the
 * same: "slower", "none (ok / error)", "mismatch", "only in baseline". */
void compare_verdict_text(char *buf, size_t n, const struct compare_cell *c);

/* How a cell of a sequential run stopped, from the run's note: "slower; 6
 * processes a side" ("" when the run has no note for it). */
void compare_seq_summary(char *buf, size_t n, const struct compare_cell *c);

/* log(canary.gemm_ms + canary.copy_ms) of one process, NAN without one. */
double compare_canary_log(const struct rd_cell *c);

/* The drift canary's reading in words, for every format: "the machine MOVED
 * beyond the noise band; ...", "cannot tell whether the machine moved: ...",
 * "the machine did not move beyond the noise band". Static storage. */
const char *compare_canary_words(const struct compare_pair *p);

/* Tested cells of p (a verdict other than none) and those decided (same,
 * faster, slower). */
size_t compare_ntested(const struct compare_pair *p);
size_t compare_ndecided(const struct compare_pair *p);

/* A side's status as text: its status name, "pending" for a repeat with no
 * final status, "missing" for a side with no repeat. Static storage. */
const char *compare_side_status(const struct compare_side *s);

/* The repeat whose environment stands for a side (the first ok one, else
 * the first), and that side's input hash ("" when none). Borrowed. */
const struct rd_cell *compare_side_rep(const struct compare_side *s);
const char *compare_side_input(const struct compare_side *s);

/* The JSON's "match": "matched", "mismatch", "only_baseline", "only_run". */
const char *compare_match_name(enum compare_match m);

/* Whether pair p measured cell id under other conditions than the baseline
 * (COMPARE_MISMATCH): its number is not comparable, and the trend shows none. */
bool compare_pair_mismatch(const struct compare_pair *p, const char *id);

/* A side's compile time (store/result.h): *cold_ms the first call of its
 * first ok process whose compile cache was cold (NAN when none), *nwarm how
 * many of its processes started with a warm one (an A/B arm's later
 * processes: their first calls are not compile time). False when no process
 * recorded compile.cache (runs from before it was recorded). */
bool compare_side_compile(const struct compare_side *s, double *cold_ms, size_t *nwarm);

/* A cell's compile times in words when a side had warm caches, else "":
 * "compile (first call, cold cache): A 812.30 ms, B 790.10 ms; warm caches in
 * 2 A and 2 B processes, whose first calls are not compile time". */
void compare_compile_text(char *buf, size_t n, const struct compare_cell *c);

/* A mean ms/step as the text output prints it: 2 decimals from 100 ms, 3 from
 * 1 ms, else 4 significant digits; "-" for NAN. */
void compare_fmt_ms(char *buf, size_t n, double ms);

#endif /* BENCHGEN_COMPARE_H */
