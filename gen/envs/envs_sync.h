/*
 * envs_sync.h - `env sync`: building lock-file environments (see envs.h for
 * where they live and when one is ready).
 */
#ifndef BENCHGEN_ENVS_SYNC_H
#define BENCHGEN_ENVS_SYNC_H

#include <stddef.h>

#include "base/voice.h"

/* Creates or repairs the named environments (all of data/envs when n == 0),
 * showing pip's progress (the installers write to this process's stdout and
 * stderr). What it does ("env NAME: ready", "creating", "FAILED: ...") goes
 * to voice (topic "env", the environment's name as subject; may be NULL). */
int envs_sync(const char *const *names, size_t n, const struct voice *voice);

#endif /* BENCHGEN_ENVS_SYNC_H */
