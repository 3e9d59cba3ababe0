/*
 * gpu.h - what GPU, driver, CUDA runtime and cuDNN this machine has, gathered
 * without ever initialising CUDA in the calling process.
 *
 * Three probes fill one struct gpu_facts, and gpu_describe() turns it into
 * dotted keys and a plain-sentence gpu.status:
 *   cuda  - a forked child calls the statically linked CUDA runtime
 *           (HAVE_CUDA=1) and writes key=value lines to a pipe, then _exits;
 *           a process that initialised CUDA cannot fork workers that use it.
 *   nvml  - dlopen("libnvidia-ml.so.1"): driver version and device names
 *           (NVML creates no CUDA context).
 *   cudnn - dlopen("libcudnn.so.9", then .so.8): cudnnGetVersion needs no GPU.
 *
 * The probes sit in a function-pointer table (struct gpu_ops) so tests can
 * install fakes and exercise the "GPU present" formatting on a machine
 * without one.
 *
 * Ownership: gpu_describe() appends to a kvlist its caller owns.
 */
#ifndef BENCHGEN_GPU_H
#define BENCHGEN_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define GPU_MAX_DEVICES 16

struct gpu_device {
    char name[256];
    int cc_major, cc_minor;       /* compute capability */
    unsigned long long mem_bytes; /* totalGlobalMem */
    int sm_count;
    int sm_clock_khz, mem_clock_khz; /* 0 when unknown */
    char pci_bus_id[32];             /* "0000:19:00.0", "" when unknown */
    char uuid[48];                   /* "GPU-xxxxxxxx-...", "" when unknown */
};

struct gpu_facts {
    /* CUDA runtime probe */
    bool cuda_linked;           /* built with HAVE_CUDA=1 (static libcudart) */
    bool cuda_probed;           /* the probe child reported back */
    char cuda_probe_error[160]; /* why the probe child did not report, "" otherwise */
    int runtime_version;        /* cudaRuntimeGetVersion: 13000 */
    int driver_cuda_version;    /* cudaDriverGetVersion: 12080; 0 with no driver */
    int count_error;            /* cudaError_t of cudaGetDeviceCount, 0 = success */
    char count_error_name[64];  /* "cudaErrorInsufficientDriver" */
    int count;                  /* devices the CUDA runtime sees */
    struct gpu_device dev[GPU_MAX_DEVICES];

    /* NVML */
    bool nvml_ok;
    char nvml_error[160];    /* why NVML is unavailable, "" when nvml_ok */
    char driver_version[96]; /* nvmlSystemGetDriverVersion: "570.124.06" */
    int nvml_cuda_version;   /* nvmlSystemGetCudaDriverVersion_v2: 12080; 0 when unknown */
    int nvml_count;
    char nvml_name[GPU_MAX_DEVICES][96];
    char nvml_uuid[GPU_MAX_DEVICES][96]; /* "GPU-..."; "" when NVML gives none */

    /* cuDNN */
    size_t cudnn_version;    /* cudnnGetVersion: 91900 (v9), 8907 (v8); 0 = not found */
    size_t cudnn_cudart;     /* cudnnGetCudartVersion: the runtime cuDNN was built for */
    char cudnn_library[256]; /* what was dlopen'ed */
};

/* The probes. Each fills its part of *f and returns 0; a missing driver or
 * library is a fact recorded in *f, not an error. */
struct gpu_ops {
    int (*cuda)(struct gpu_facts *f);
    int (*nvml)(struct gpu_facts *f);
    int (*cudnn)(struct gpu_facts *f);
};

/* Replaces the probes (for tests); NULL restores the real ones. The table is
 * copied. */
void gpu_set_ops(const struct gpu_ops *ops);

/* Runs the probes into *f (zeroed first). */
int gpu_collect(struct gpu_facts *f);
/* NVML's part only (no CUDA probe child): the devices, names and UUIDs. */
int gpu_collect_nvml(struct gpu_facts *f);

/* Runs only the NVML probe into *f (zeroed first): no CUDA, no fork; for
 * choosing an environment's CUDA variant (envs/envs_variant.h). */
int gpu_collect_nvml(struct gpu_facts *f);

/* Appends gpu.count, gpu.N.name, gpu.N.compute_capability, gpu.N.memory_bytes,
 * gpu.N.sm_count, ..., gpu.driver, cuda.runtime, cuda.driver, cudnn.version
 * and gpu.status (one sentence) for facts f. */
int gpu_format(const struct gpu_facts *f, struct kvlist *out);

/* The GPUs NVML sees on this machine (0 without NVML), asked once per
 * process through the probe table: what `device: auto` resolves against
 * (plan/device.h). */
int gpu_nvml_count(void);

/* gpu_collect() then gpu_format(). */
int gpu_describe(struct kvlist *out);

/* The GPUs a cell of this process may be given, as CUDA_VISIBLE_DEVICES
 * values (the local executor sets CUDA_DEVICE_ORDER=PCI_BUS_ID, so an index
 * means NVML's device of that index). Without an inherited allocation
 * (inherited NULL): every NVML device, "0", "1", ... With one (the
 * CUDA_VISIBLE_DEVICES benchgen was started with, e.g. by a batch system on
 * a node without device cgroups): only the devices it names, in its order
 * and as it spells them - an index, a UUID or a UUID's prefix ("GPU-8f3c"),
 * or a MIG instance ("MIG-...", passed through unchecked). An inherited
 * value that is empty, "-1" or "NoDevFiles" allows none. An entry that names
 * no device NVML sees (when NVML sees any) is BG_EUSAGE, naming it. Appends
 * to out (the caller's); returns 0 or BG_EUSAGE. */
int gpu_allowed(struct strlist *out, const struct gpu_facts *f, const char *inherited);

/* NVML's index of a CUDA_VISIBLE_DEVICES entry (an index or a UUID or its
 * prefix), or -1 when it names none of f's devices. */
int gpu_entry_index(const struct gpu_facts *f, const char *entry);

/* "13.0" for 13000, "12.8" for 12080; buf of 32 bytes always suffices. */
const char *gpu_cuda_version_str(int v, char *buf, size_t len);

/* "9.19.0" for 91900, "8.9.7" for 8907; buf of 32 bytes always suffices. */
const char *gpu_cudnn_version_str(size_t v, char *buf, size_t len);

#endif /* BENCHGEN_GPU_H */
