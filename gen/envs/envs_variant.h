/*
 * envs_variant.h - an environment's CPU and CUDA variants.
 *
 * data/envs/NAME.txt is the CPU lock. When data/envs/cuda/NAME-cuN.txt
 * exists (N a CUDA major: keras3-cu13.txt, keras2-cu12.txt), NAME also has
 * a CUDA N variant: the same stack with JAX's CUDA plugin and TensorFlow's
 * CUDA extra, built in a venv of its own (<cache>/envs/NAME-cuN-<hash>), so
 * the variants coexist. A CUDA lock may send one backend to another lock
 * with a line `# backend: BACKEND STEM` (data/envs/cuda/STEM.txt, else
 * data/envs/STEM.txt): two frameworks whose CUDA wheels overwrite each
 * other's files cannot share a venv (docs/ENVIRONMENTS.md).
 *
 * Which variant: `env sync --cpu` / `--cuda[=N]` force one
 * (envs_variant_set()), as does BENCHGEN_ENV_VARIANT=cpu|cuda|cudaN for
 * everything else; otherwise ("auto") a machine whose NVML sees an NVIDIA
 * GPU gets the newest CUDA variant its driver supports (the CUDA version
 * NVML reports, else the driver's branch: R580 for 13, R525 for 12), and a
 * machine without one the CPU variant. Runs use the first of those that is
 * ready, so a GPU node whose CUDA variant was never built runs the CPU one,
 * and every cell records which (environment.variant).
 */
#ifndef BENCHGEN_ENVS_VARIANT_H
#define BENCHGEN_ENVS_VARIANT_H

#include <stdbool.h>

#include "base/util.h"

enum envs_want { ENVS_WANT_AUTO = 0, ENVS_WANT_CPU, ENVS_WANT_CUDA };

/* Forces a variant for this process (env sync's --cpu / --cuda[=N]); major
 * 0 = the newest the driver supports. ENVS_WANT_AUTO returns to
 * BENCHGEN_ENV_VARIANT, else the machine. */
void envs_variant_set(enum envs_want want, int major);

/* This machine as NVML sees it; probed once per process. */
struct envs_gpu {
    int gpus;          /* devices NVML sees; 0 without a driver */
    int cuda_major;    /* the newest CUDA major the driver supports; 0 when unknown */
    char driver[96];   /* "570.124.06", "" */
    char why[256];     /* one phrase: "NVIDIA driver 570.124.06 supports CUDA 12.8", "no NVIDIA GPU (...)" */
};
const struct envs_gpu *envs_variant_gpu(void);

/* The oldest driver branch that runs CUDA major (525 for 12, 580 for 13). */
int envs_variant_min_driver(int major);

/* The locks NAME (CPU lock base_lock) may run from, best first; with
 * backend, `# backend:` lines are followed. *strict: only the first may be
 * used (a forced variant); otherwise the first ready one is. BG_EUSAGE when
 * a forced CUDA variant does not exist or the driver is too old for every
 * one; *note (may be NULL) gets a sentence saying why this choice. */
int envs_variant_candidates(const char *name, const char *base_lock, const char *backend, struct strlist *locks,
                            bool *strict, char **note);

/* Every lock of NAME: base_lock first, then its CUDA locks newest first. */
int envs_variant_all(const char *name, const char *base_lock, struct strlist *locks);

/* "cu13" for .../NAME-cu13.txt, "cpu" for a lock with CUDA siblings, "-"
 * for one without (base, torch: one build for both). */
void envs_variant_label(const char *name, const char *lock, char out[16]);

/* The STEM of every `# backend: BACKEND STEM` line of lock, as lock paths. */
int envs_variant_splits(const char *lock, struct strlist *locks);

/* True when lock has a `# install: no-deps` line: install exactly its pins,
 * without resolving (their metadata conflicts on purpose). */
bool envs_variant_no_deps(const char *lock);

#endif /* BENCHGEN_ENVS_VARIANT_H */
