/*
 * envs_names.h - the names environments go by.
 */
#ifndef BENCHGEN_ENVS_NAMES_H
#define BENCHGEN_ENVS_NAMES_H

#include "base/util.h"

/* <home>/data/envs, malloc'd. */
char *envs_names_lock_dir(void);

/* Adds the names of <dir>/<name>.txt (dir: data/envs when NULL) to nl,
 * sorted. A missing directory holds none. */
int envs_names_locks(struct strlist *nl, const char *dir);

/* Adds the names registered with `env add` to nl, sorted. */
int envs_names_external(struct strlist *nl);

/* "a, b, c" of every lock and registration ("none"), malloc'd. */
char *envs_names_known(void);

#endif /* BENCHGEN_ENVS_NAMES_H */
