/*
 * envs_add.h - `env add`: an existing interpreter or venv as an environment.
 */
#ifndef BENCHGEN_ENVS_ADD_H
#define BENCHGEN_ENVS_ADD_H

#include <stddef.h>

#include "base/voice.h"

/* Registers PYTHON (an interpreter or venv; with a prefix, the interpreter
 * as the prefixed command finds it) as environment NAME, once it imports
 * `_benchgen` and what the backends mapped to NAME need (envs/envs_needs.h:
 * those whose default environment is NAME, and the comma-separated
 * for_backends, NULL for none); BG_ENOTFOUND naming what is missing. Tells
 * voice (topic "env", subject NAME; may be NULL) what it registered, and
 * when it replaces an earlier registration of NAME. */
int envs_add(const char *name, const char *python, const char *const *prefix, size_t nprefix,
             const char *for_backends, const struct voice *voice);

#endif /* BENCHGEN_ENVS_ADD_H */
