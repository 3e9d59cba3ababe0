/*
 * envs_needs.h - what an environment must import for the backends mapped
 * to it, checked when `env add` registers an interpreter.
 *
 * Every cell needs numpy (the harness hands a workload its inputs as NumPy
 * arrays); torch-eager and torch-compiled need torch; keras2-tensorflow
 * tensorflow and keras; keras3-X keras (imported with KERAS_BACKEND=X) and
 * X's framework (tensorflow, jax, torch). The backends mapped to an
 * environment NAME are those `env add --for` names, else those whose
 * default environment is NAME (a registration named `torch` takes the torch
 * backends' cells).
 *
 * The check runs the interpreter as envs_probe.h runs a candidate:
 * contained, with a deadline (BENCHGEN_PROBE_TIMEOUT) and bounded output.
 *
 * Ownership: nothing is kept between calls.
 */
#ifndef BENCHGEN_ENVS_NEEDS_H
#define BENCHGEN_ENVS_NEEDS_H

#include "base/util.h"

/* Adds to backends (no duplicates) each of the comma-separated list
 * `extra` (`env add --for`: the backends this interpreter will run), or,
 * when extra is NULL, the backends whose default environment is name;
 * BG_EUSAGE for a name in extra that is no backend. */
int envs_needs_backends(struct strlist *backends, const char *name, const char *extra);

/* Imports in python (after cmd_prefix, NULL-terminated, when given) what
 * the backends need. 0 with *found a malloc'd "numpy 2.2.6, torch 2.5.1"
 * when everything imports; BG_ENOTFOUND naming each missing module, the
 * backends that need it and how to add it otherwise (BG_EUSAGE when the
 * check had to be stopped, BG_EPYTHON when it reported nothing). */
int envs_needs_check(const char *python, const char *const *cmd_prefix, const struct strlist *backends,
                     char **found);

#endif /* BENCHGEN_ENVS_NEEDS_H */
