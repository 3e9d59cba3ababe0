/*
 * envs_cache.h - benchgen's cache: $BENCHGEN_CACHE, else
 * $XDG_CACHE_HOME/benchgen, else ~/.cache/benchgen. It holds envs/ (the
 * venvs), uv/ (uv's package cache, on the same file system so that venvs
 * hard-link from it), tools/uv, derived/ (`--with` locks) and external/
 * (`env add` registrations).
 */
#ifndef BENCHGEN_ENVS_CACHE_H
#define BENCHGEN_ENVS_CACHE_H

/* Cache root, created on demand; recomputed on every call (the environment
 * decides, and tests change it). Borrowed, static. */
const char *envs_cache_dir(void);

/* The user's home directory ($HOME, else the password database). Borrowed. */
const char *envs_user_home(void);

#endif /* BENCHGEN_ENVS_CACHE_H */
