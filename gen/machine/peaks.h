/*
 * peaks.h - dense peak FLOP/s of common GPUs per data type, from the
 * vendors' datasheets (docs/GPU.md lists each source), for model FLOPs
 * utilisation (MFU = achieved FLOP/s / peak).
 *
 * "Dense" means without 2:4 structured sparsity: NVIDIA's datasheets print
 * the sparse figure for tensor-core types with an asterisk; the table holds
 * half of it. float32 is the plain (non-tensor-core) FP32 rate; tf32 the
 * tensor-core rate a float32 matmul gets when TF32 is allowed.
 */
#ifndef BENCHGEN_PEAKS_H
#define BENCHGEN_PEAKS_H

#include <stdbool.h>

struct peak {
    const char *match;  /* "MODEL" or "MODEL VARIANT" (NVL, PCIe): matched against the NVML/CUDA device name (peaks.c) */
    const char *device; /* canonical name */
    double fp32, tf32, bf16, fp16; /* TFLOP/s, dense; 0 = not supported */
    const char *source;
};

/* The entry for a device name ("NVIDIA H100 80GB HBM3"), NULL when unknown. */
const struct peak *peaks_find(const char *device_name);

/* The peak in TFLOP/s for a cell's precision ("float32", "bfloat16",
 * "mixed_bfloat16", "float16"); tf32: float32 matmuls ran on TF32 tensor
 * cores. 0 when the device or type is unknown. *which names the column used. */
double peaks_tflops(const struct peak *p, const char *precision, bool tf32, const char **which);

/* Every entry, NULL-terminated by an entry with match == NULL. */
extern const struct peak peaks_table[];

#endif /* BENCHGEN_PEAKS_H */
