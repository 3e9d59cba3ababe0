/*
 * methodref.h - whether a measured cell may be set beside the published
 * table (docs/METHOD.md, "Measured vs published").
 *
 * Only a cell run with `method: published` on the environment the original
 * benchmark pinned for its backend (torch-2024 for native PyTorch,
 * keras3-2024 for Keras 3, keras2 for Keras 2) did the same work as the
 * published number. Any other cell that a reference comparison includes is
 * marked "method differs", with the reason this returns.
 */
#ifndef BENCHGEN_METHODREF_H
#define BENCHGEN_METHODREF_H

#include <stddef.h>

#include "store/rundata.h"

/* The environment the original pinned for backend, or NULL when the
 * original had no such backend. */
const char *methodref_env_2024(const char *backend);

/* NULL when cell is comparable with the published table; else writes
 * "method differs: <reason>" to buf (cap bytes) and returns buf. */
const char *methodref_differs(const struct rd_cell *cell, char *buf, size_t cap);

#endif /* BENCHGEN_METHODREF_H */
