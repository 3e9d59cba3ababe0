/*
 * compare_profile.h - noise profiles (issue 22, item 2; docs/COMPARE.md,
 * "Noise profiles"): a stored, per-machine, per-cell between-process
 * scatter, made from an A/A comparison (`compare A A' --save-profile FILE`)
 * and kept with the drift canary's reading of that A/A. A later comparison
 * (`compare ... --profile FILE`) takes each cell's band and planning from
 * the profile instead of from its own few processes, but only on the same
 * host and CPU and only when the canary says the machine has not moved
 * since the profile was made; otherwise the profile is refused, the
 * comparison says why, and the verdicts are made as without it.
 *
 * Ownership: compare_profile_load() returns a profile compare_profile_free()
 * releases; the comparison borrows it.
 */
#ifndef BENCHGEN_COMPARE_PROFILE_H
#define BENCHGEN_COMPARE_PROFILE_H

#include <stddef.h>

#include "compare/compare.h"

#define COMPARE_PROFILE_FORMAT "benchgen-noise-profile/1"

struct compare_profile_cell {
    char *id;
    double cv; /* between-process CV measured by the A/A */
    size_t processes;
};

struct compare_profile {
    char *host, *cpu, *made; /* os.hostname, cpu.model, the A/A baseline's created_utc */
    double canary_mean, canary_sd; /* of log(canary.gemm_ms + canary.copy_ms), every process of the A/A */
    size_t canary_n;
    struct compare_profile_cell *cells;
    size_t ncells;
};

/* Writes the profile of comparison r->pairs[0] to path (a new file, written
 * whole or not at all). BG_EUSAGE when it is not an A/A (a counted
 * environment difference, run-wide or in a cell) or has no canary. */
int compare_profile_save(const struct compare_result *r, const char *path);

/* BG_ENOTFOUND, or BG_EDAMAGED for a file that is not a profile. */
int compare_profile_load(struct compare_profile **out, const char *path);
void compare_profile_free(struct compare_profile *pf);

/* The canary check: logs[0..n) of the compared runs' processes against the
 * profile's; ratio and Welch interval (level 1 - alpha) into ratio/lo/hi.
 * 1 when the interval lies inside [1 - noise, 1 + noise] (the machine has
 * not moved), else 0. */
int compare_profile_canary_ok(const struct compare_profile *pf, const double *logs, size_t n, double noise,
                              double alpha, double *ratio, double *lo, double *hi);

/* compare_profile_apply(), which compare.c calls, is declared in compare.h. */

#endif /* BENCHGEN_COMPARE_PROFILE_H */
