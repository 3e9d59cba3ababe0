/*
 * envs_add.h - `env add`: an existing interpreter or venv as an environment.
 */
#ifndef BENCHGEN_ENVS_ADD_H
#define BENCHGEN_ENVS_ADD_H

#include <stddef.h>

/* Registers PYTHON (an interpreter or venv; with a prefix, the interpreter
 * as the prefixed command finds it) as environment NAME. */
int envs_add(const char *name, const char *python, const char *const *prefix, size_t nprefix);

#endif /* BENCHGEN_ENVS_ADD_H */
