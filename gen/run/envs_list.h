/*
 * envs_list.h - `env list`.
 */
#ifndef BENCHGEN_ENVS_LIST_H
#define BENCHGEN_ENVS_LIST_H

#include <stdio.h>

/* Prints name, hash, path, state and resolved package versions. */
int envs_list(FILE *out);

#endif /* BENCHGEN_ENVS_LIST_H */
