/*
 * abarm.h - the run directory of one arm of an interleaved A/B run, the
 * same for `run --ab` (gen/run/launch.c) and each step of `benchgen
 * bisect` (gen/bisect/bisect_step.c): run.db is created with the machine's
 * facts (run/sysinfo.h), the files the run depends on (run/depends.h) and
 * the facts that mark the arm:
 *   run.ab      "a" or "b";
 *   run.with    each pin the arm's environments were derived with;
 *   run.setenv  each NAME=VALUE set for the arm's processes (--b-env).
 * compare reads them back to name the intended difference.
 */
#ifndef BENCHGEN_ABARM_H
#define BENCHGEN_ABARM_H

#include "plan/matrix.h"
#include "plan/spec.h"
#include "store/store.h"

#include <stddef.h>

/* Creates the arm's run in dir (the caller has checked that dir is free:
 * store/rundir.h) and sets *st. with and setenv may be NULL when their
 * count is 0. voice (may be NULL) becomes the store's (store_create()).
 * Returns 0 or a negative BG_E* code; on error *st is not set. */
int abarm_create(struct store **st, const char *dir, const struct spec *spec, const struct matrix *plan,
                 const char *cmdline, const char *which, const char *const *with, size_t nwith,
                 const char *const *setenv, size_t nsetenv, const struct voice *voice);

/* The layout of an A/B run in dir: its arms' run directories, dir/a and
 * dir/b, malloc'd into *a and *b (never NULL: base/xalloc.h). run --ab
 * creates them (run/launch.h), compare reads them. */
void abarm_dirs(const char *dir, char **a, char **b);

#endif /* BENCHGEN_ABARM_H */
