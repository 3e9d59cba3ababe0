/*
 * catalog.h - the names a matrix spec may use: models, tasks, backends.
 *
 * This is the one place that says which backends exist, which Python
 * environment each runs in and which environment variables select it, and
 * which tasks each built-in model supports. Spec validation, matrix expansion
 * and the cell worker all read it. Everything here is static and borrowed.
 */
#ifndef BENCHGEN_CATALOG_H
#define BENCHGEN_CATALOG_H

#include <stddef.h>

enum catalog_task {
    CATALOG_TASK_FIT = 1 << 0,
    CATALOG_TASK_PREDICT = 1 << 1,
    CATALOG_TASK_GENERATE = 1 << 2
};

struct catalog_model {
    const char *name;    /* spec name: "bert" */
    const char *display; /* report name: "BERT" */
    unsigned tasks;      /* CATALOG_TASK_* bits it supports */
    double typical_s;    /* a first guess at one cell's wall time at size tiny on a CPU,
                          * for the ETA before any cell finished (docs/PERFORMANCE.md) */
};

struct catalog_backend {
    const char *name;    /* spec name: "keras3-jax" */
    const char *display; /* report name: "Keras 3 (JAX)" */
    const char *env;     /* default Python environment: data/envs/<env>.txt */
    const char *family;  /* workload family: "torch", "keras", "numpy" */
    /* NULL-terminated "NAME=VALUE" pairs set in the worker before Python starts. */
    const char *const *env_vars;
    int default_warmup;  /* -1: use the spec's warmup */
    /* 1: the first call traces and compiles the step (torch.compile,
     * tf.function/XLA, jax.jit); 0: eager, the first call only warms caches */
    int compiles;
    /* 1: runs on the CPU only (the NumPy reference): `device: auto` means
     * cpu for it even on a machine with a GPU (plan/device.h) */
    int cpu_only;
};

/* NULL when unknown. */
const struct catalog_model *catalog_model_find(const char *name);
const struct catalog_backend *catalog_backend_find(const char *name);
/* 0 when unknown, else one CATALOG_TASK_* bit. */
unsigned catalog_task_bit(const char *name);

/* A first guess at one cell's wall time, seconds: the model's typical_s at
 * size tiny, ten times that at the published size; a custom model counts as
 * the average built-in one. */
double catalog_typical_seconds(const char *model, const char *size);

/* Iteration: index 0..n-1, NULL past the end. */
const struct catalog_model *catalog_model_at(size_t i);
const struct catalog_backend *catalog_backend_at(size_t i);
const char *catalog_task_at(size_t i);

/* Comma-separated list of names, for error messages. Borrowed, static. */
const char *catalog_model_names(void);
const char *catalog_backend_names(void);
const char *catalog_task_names(void);

/* Status names a cell can end with; see store.h. */
extern const char *const catalog_statuses[];

#endif /* BENCHGEN_CATALOG_H */
