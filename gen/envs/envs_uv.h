/*
 * envs_uv.h - uv, the installer environments are built with when it can be
 * had; pip is the fallback.
 *
 * uv installs from one global cache ($BENCHGEN_CACHE/uv, beside envs/ so
 * the two share a file system) by hard-linking: a package that is already
 * in the cache is neither downloaded nor copied again. So a derived `--with`
 * environment costs only the packages its pins change, and rebuilding an
 * environment costs no download.
 */
#ifndef BENCHGEN_ENVS_UV_H
#define BENCHGEN_ENVS_UV_H

#include "base/voice.h"

/* The uv pinned when benchgen installs it itself. */
#define ENVS_UV_VERSION "0.13.8"

/* The uv to use, malloc'd; NULL for pip (with a note to voice, topic "env",
 * saying why; voice may be NULL).
 * In order: $BENCHGEN_UV (a path; "pip" forces pip), `uv` on PATH,
 * CACHE/tools/uv/bin/uv, or that venv created with builder and
 * uv ENVS_UV_VERSION installed into it from PyPI. Sets UV_CACHE_DIR (unless
 * the user set it) and UV_LINK_MODE=hardlink for the installs that follow.
 * cache_dir is benchgen's cache ($BENCHGEN_CACHE, envs_cache_dir()). */
char *envs_uv_find(const char *builder, const char *cache_dir, const struct voice *voice);

#endif /* BENCHGEN_ENVS_UV_H */
