/*
 * peaks.c - the table of dense peaks (see peaks.h; sources in docs/GPU.md).
 *
 * Matching is exact on the variant: an entry's match is a model ("H200")
 * and, after a space, an optional variant ("H200 NVL"). A device name
 * matches when it holds the model as a word (not followed or preceded by a
 * letter or digit: "A10" does not match "A100", "H200" not "GH200") and its
 * own variant - the first of its words that is "NVL" or "PCIe", in any case
 * ("NVIDIA A100-PCIE-40GB", "NVIDIA H200 NVL") - is the entry's. So an NVL
 * or PCIe board never takes the SXM figures of its model, and a variant
 * without an entry has no peak (MFU NA) rather than a wrong one.
 */
#include "machine/peaks.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const struct peak peaks_table[] = {
    {"A100", "NVIDIA A100 (SXM4 and PCIe, 40/80 GB)", 19.5, 156, 312, 312,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), 'Peak' rows without sparsity"},
    {"A100 PCIe", "NVIDIA A100 (SXM4 and PCIe, 40/80 GB)", 19.5, 156, 312, 312,
     "NVIDIA A100 Tensor Core GPU datasheet (2021), 'Peak' rows without sparsity (PCIe as SXM4)"},
    {"H100 PCIe", "NVIDIA H100 PCIe", 51, 378, 756, 756,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), PCIe column, sparse figures halved"},
    {"H100 NVL", "NVIDIA H100 NVL", 60, 417.5, 835, 835,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), NVL column (per GPU), sparse figures halved"},
    {"H100", "NVIDIA H100 SXM5", 67, 494.5, 989, 989,
     "NVIDIA H100 Tensor Core GPU datasheet (2023), SXM column, sparse figures halved"},
    {"GH200", "NVIDIA GH200 (H100 GPU)", 67, 494.5, 989, 989,
     "NVIDIA GH200 Grace Hopper Superchip datasheet (2023), sparse figures halved"},
    {"H200", "NVIDIA H200 SXM", 67, 494.5, 989, 989,
     "NVIDIA H200 Tensor Core GPU datasheet (2024), SXM column, sparse figures halved"},
    {"H200 NVL", "NVIDIA H200 NVL", 60, 417.5, 835, 835,
     "NVIDIA H200 Tensor Core GPU datasheet (2024), NVL column, sparse figures halved"},
    {"L40S", "NVIDIA L40S", 91.6, 183, 362, 362, "NVIDIA L40S datasheet (2023), sparse figures halved"},
    {"L40", "NVIDIA L40", 90.5, 90.5, 181, 181, "NVIDIA L40 datasheet (2022), sparse figures halved"},
    {"L4", "NVIDIA L4", 30.3, 60, 121, 121, "NVIDIA L4 Tensor Core GPU datasheet (2023), sparse figures halved"},
    {"A10", "NVIDIA A10", 31.2, 62.5, 125, 125, "NVIDIA A10 Tensor Core GPU datasheet (2021), sparse figures halved"},
    {"V100", "NVIDIA V100 (SXM2)", 15.7, 0, 0, 125,
     "NVIDIA V100 Tensor Core GPU datasheet (2020), SXM2 column; no bfloat16 or TF32"},
    {"V100 PCIe", "NVIDIA V100 PCIe", 14, 0, 0, 112,
     "NVIDIA V100 Tensor Core GPU datasheet (2020), PCIe column; no bfloat16 or TF32"},
    {"T4", "NVIDIA T4", 8.1, 0, 0, 65, "NVIDIA T4 Tensor Core GPU datasheet (2019); no bfloat16 or TF32"},
    {NULL, NULL, 0, 0, 0, 0, NULL},
};

/* Whether name holds pat (no space in it) as a word. */
static bool word_in(const char *name, const char *pat, size_t n)
{
    for (const char *p = strstr(name, pat); p; p = strstr(p + 1, pat))
        if (!isalnum((unsigned char)p[n]) && (p == name || !isalnum((unsigned char)p[-1])))
            return true;
    return false;
}

/* The name's variant word ("NVL", "PCIe"), "" when it has none. */
static const char *variant_of(const char *name)
{
    static const char *const variants[] = {"NVL", "PCIe"};
    for (const char *p = name; *p;) {
        while (*p && !isalnum((unsigned char)*p))
            p++;
        size_t n = 0;
        while (isalnum((unsigned char)p[n]))
            n++;
        for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
            if (n == strlen(variants[i]) && strncasecmp(p, variants[i], n) == 0)
                return variants[i];
        p += n;
    }
    return "";
}

const struct peak *peaks_find(const char *device_name)
{
    if (!device_name || !*device_name)
        return NULL;
    const char *variant = variant_of(device_name);
    for (const struct peak *p = peaks_table; p->match; p++) {
        const char *sp = strchr(p->match, ' ');
        size_t n = sp ? (size_t)(sp - p->match) : strlen(p->match);
        char model[32];
        snprintf(model, sizeof(model), "%.*s", (int)n, p->match);
        if (word_in(device_name, model, n) && strcasecmp(variant, sp ? sp + 1 : "") == 0)
            return p;
    }
    return NULL;
}

double peaks_tflops(const struct peak *p, const char *precision, bool tf32, const char **which)
{
    const char *w = "";
    double v = 0;
    if (p && precision) {
        if (!strcmp(precision, "bfloat16") || !strcmp(precision, "mixed_bfloat16")) {
            v = p->bf16;
            w = "bfloat16 tensor";
        } else if (!strcmp(precision, "float16")) {
            v = p->fp16;
            w = "float16 tensor";
        } else if (tf32 && p->tf32 > 0) {
            v = p->tf32;
            w = "TF32 tensor";
        } else {
            v = p->fp32;
            w = "FP32";
        }
    }
    if (which)
        *which = w;
    return v;
}
