/*
 * envs_sync.h - `env sync`: building lock-file environments (see envs.h for
 * where they live and when one is ready).
 */
#ifndef BENCHGEN_ENVS_SYNC_H
#define BENCHGEN_ENVS_SYNC_H

#include <stddef.h>

/* Creates or repairs the named environments (all of data/envs when n == 0),
 * showing pip's progress. */
int envs_sync(const char *const *names, size_t n);

#endif /* BENCHGEN_ENVS_SYNC_H */
