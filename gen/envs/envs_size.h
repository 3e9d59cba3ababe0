/*
 * envs_size.h - announcing an environment build with its expected download.
 *
 * Before `env sync` (or `run --with`) starts its installer it says how much
 * the build will download: runners/envs_size.py, run with the interpreter
 * that makes the environment, asks the package index's JSON API (PEP 691
 * and 700: every file with its size) for each pinned package, picks the
 * wheel that interpreter installs and adds its size, skipping what uv's
 * cache already holds. The index is $UV_DEFAULT_INDEX, $UV_INDEX_URL or (with
 * pip) $PIP_INDEX_URL, else PyPI's https://pypi.org/simple. Best effort: an
 * index that cannot be asked within $BENCHGEN_SIZE_TIMEOUT seconds (15)
 * makes the line say "download size unknown" and why; the build goes on.
 * BENCHGEN_SIZE=0 skips the estimate, and so does an installer told to
 * use no index (UV_OFFLINE, UV_NO_INDEX; PIP_NO_INDEX with pip).
 */
#ifndef BENCHGEN_ENVS_SIZE_H
#define BENCHGEN_ENVS_SIZE_H

#include <stdbool.h>

#include "base/voice.h"
#include "envs/envs.h"

/* Tells voice (topic "env", subject NAME) e's expected download (e a lock-file
 * environment about to be built; with_uv: uv builds it, so its cache,
 * $UV_CACHE_DIR, counts as already downloaded; parent, or NULL: the venv
 * whose packages e starts from, envs_seed.h, which count as present too). */
void envs_size_announce(const struct env_info *e, bool with_uv, const struct env_info *parent,
                        const struct voice *voice);

#endif /* BENCHGEN_ENVS_SIZE_H */
