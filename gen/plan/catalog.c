/*
 * catalog.c - the built-in models, tasks and backends (see catalog.h).
 *
 * Why the environment variables: Keras 3 chooses its backend once, at import,
 * from KERAS_BACKEND; JAX and TensorFlow grab most of a GPU's memory at their
 * first op unless told not to, which would distort memory figures. TF32 is left to each
 * framework's default and recorded per cell as a fairness fact instead of
 * being silently forced one way. The worker also sets BENCHGEN_BACKEND.
 */
#include "plan/catalog.h"

#include <stdio.h>
#include <string.h>

/* typical_s: the cpu-tiny matrix on 2 shared cores took 1,559 s for 72 cells
 * (docs/PERFORMANCE.md), about 22 s a cell whatever the model; the NumPy MLP
 * takes about 2 s. Only the ETA's first guess uses it: once cells finish, the
 * ETA scales it by how long they really took. */
static const struct catalog_model models[] = {
    {"bert", "BERT", CATALOG_TASK_FIT | CATALOG_TASK_PREDICT, 22},
    {"gemma", "Gemma", CATALOG_TASK_FIT | CATALOG_TASK_GENERATE, 22},
    {"mistral", "Mistral", CATALOG_TASK_FIT | CATALOG_TASK_GENERATE, 22},
    {"sd", "StableDiffusion", CATALOG_TASK_FIT | CATALOG_TASK_PREDICT, 22},
    {"sam", "SegmentAnything", CATALOG_TASK_FIT | CATALOG_TASK_PREDICT, 22},
    /* A small real reference workload (a two-layer MLP in NumPy): proves the
     * pipeline end to end without a deep-learning framework. */
    {"mlp", "MLP (NumPy)", CATALOG_TASK_FIT | CATALOG_TASK_PREDICT, 2},
};

static const char *const tasks[] = {"fit", "predict", "generate"};

static const char *const env_torch_eager[] = {"BENCHGEN_TORCH_COMPILE=0", NULL};
static const char *const env_torch_compiled[] = {"BENCHGEN_TORCH_COMPILE=1", NULL};
static const char *const env_keras2[] = {"TF_USE_LEGACY_KERAS=1", "TF_CPP_MIN_LOG_LEVEL=2",
                                         "TF_FORCE_GPU_ALLOW_GROWTH=true", NULL};
static const char *const env_keras3_tf[] = {"KERAS_BACKEND=tensorflow", "TF_CPP_MIN_LOG_LEVEL=2",
                                            "TF_FORCE_GPU_ALLOW_GROWTH=true", NULL};
static const char *const env_keras3_jax[] = {"KERAS_BACKEND=jax", "XLA_PYTHON_CLIENT_PREALLOCATE=false",
                                             "TF_CPP_MIN_LOG_LEVEL=2", NULL};
static const char *const env_keras3_torch[] = {"KERAS_BACKEND=torch", "TF_CPP_MIN_LOG_LEVEL=2", NULL};
static const char *const env_numpy[] = {NULL};

/* compiles: Keras 2 and Keras 3 on TensorFlow run the step as a traced
 * tf.function (XLA where jit_compile applies), Keras 3 on JAX as jax.jit;
 * Keras 3 on PyTorch runs eagerly (its jit_compile is off for torch), like
 * PyTorch eager and NumPy. */
static const struct catalog_backend backends[] = {
    {"torch-eager", "PyTorch (eager)", "torch", "torch", env_torch_eager, -1, 0, 0},
    /* torch.compile(mode="reduce-overhead") records CUDA graphs on its
     * second call, so its first two steps are warm-up, as published. */
    {"torch-compiled", "PyTorch (compiled)", "torch", "torch", env_torch_compiled, 2, 1, 0},
    {"keras2-tensorflow", "Keras 2 (TensorFlow)", "keras2", "keras", env_keras2, -1, 1, 0},
    {"keras3-tensorflow", "Keras 3 (TensorFlow)", "keras3", "keras", env_keras3_tf, -1, 1, 0},
    {"keras3-jax", "Keras 3 (JAX)", "keras3", "keras", env_keras3_jax, -1, 1, 0},
    {"keras3-torch", "Keras 3 (PyTorch)", "keras3", "keras", env_keras3_torch, -1, 0, 0},
    {"numpy", "NumPy (CPU reference)", "base", "numpy", env_numpy, -1, 0, 1},
};

const char *const catalog_statuses[] = {"ok", "error", "crash", "timeout", "oom",
                                        "unsupported", "skipped", "interrupted", NULL};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

double catalog_typical_seconds(const char *model, const char *size)
{
    const struct catalog_model *m = catalog_model_find(model);
    double t = m ? m->typical_s : 22;
    return size && !strcmp(size, "published") ? 10 * t : t;
}

const struct catalog_model *catalog_model_find(const char *name)
{
    for (size_t i = 0; name && i < COUNT(models); i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

const struct catalog_backend *catalog_backend_find(const char *name)
{
    for (size_t i = 0; name && i < COUNT(backends); i++)
        if (strcmp(backends[i].name, name) == 0)
            return &backends[i];
    return NULL;
}

unsigned catalog_task_bit(const char *name)
{
    for (size_t i = 0; name && i < COUNT(tasks); i++)
        if (strcmp(tasks[i], name) == 0)
            return 1u << i;
    return 0;
}

const struct catalog_model *catalog_model_at(size_t i) { return i < COUNT(models) ? &models[i] : NULL; }
const struct catalog_backend *catalog_backend_at(size_t i) { return i < COUNT(backends) ? &backends[i] : NULL; }
const char *catalog_task_at(size_t i) { return i < COUNT(tasks) ? tasks[i] : NULL; }

static void join_names(char *buf, size_t cap, const char *(*at)(size_t))
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; at(i); i++)
        off += (size_t)snprintf(buf + off, off < cap ? cap - off : 0, "%s%s", i ? ", " : "", at(i));
}

static const char *model_name_at(size_t i) { return i < COUNT(models) ? models[i].name : NULL; }
static const char *backend_name_at(size_t i) { return i < COUNT(backends) ? backends[i].name : NULL; }

const char *catalog_model_names(void)
{
    static char buf[256];
    if (!buf[0])
        join_names(buf, sizeof(buf), model_name_at);
    return buf;
}

const char *catalog_backend_names(void)
{
    static char buf[256];
    if (!buf[0])
        join_names(buf, sizeof(buf), backend_name_at);
    return buf;
}

const char *catalog_task_names(void)
{
    static char buf[64];
    if (!buf[0])
        join_names(buf, sizeof(buf), catalog_task_at);
    return buf;
}
