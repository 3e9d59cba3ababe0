/*
 * synth.c - Philox4x32-10 and the fill rules for synthetic inputs (see synth.h).
 *
 * Philox is from Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"
 * (SC'11); constants and round structure follow Random123, and the unit test
 * checks its published known-answer vectors.
 */
#include "runners/synth.h"
#include "base/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void synth_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n1 = (uint32_t)p1;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        uint32_t n3 = (uint32_t)p0;
        c0 = n0;
        c1 = n1;
        c2 = n2;
        c3 = n3;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* FNV-1a then a splitmix64 finaliser: a stable 64-bit name hash that needs
 * no table and is identical on every platform. */
static uint64_t mix64(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; s && *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h ^ 0xff; /* separator, so ("ab","c") != ("a","bc") */
}

uint64_t synth_stream_key(uint64_t seed, const char *model, const char *task, int batch, const char *size,
                          const char *input_name)
{
    char b[24];
    snprintf(b, sizeof(b), "%d", batch);
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv1a(h, model);
    h = fnv1a(h, task);
    h = fnv1a(h, b);
    h = fnv1a(h, size);
    h = fnv1a(h, input_name);
    return mix64(h ^ mix64(seed));
}

size_t synth_dtype_size(enum synth_dtype t)
{
    switch (t) {
    case SYNTH_INT32:
    case SYNTH_FLOAT32:
        return 4;
    case SYNTH_INT64:
        return 8;
    case SYNTH_UINT8:
        return 1;
    }
    return 0;
}

static const char *const dtype_names[] = {"int32", "int64", "float32", "uint8"};

int synth_dtype_parse(const char *s)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, dtype_names[i]) == 0)
            return i;
    return -1;
}

const char *synth_dtype_name(enum synth_dtype t) { return (unsigned)t < 4 ? dtype_names[t] : "?"; }

int synth_dist_parse(const char *s)
{
    if (strcmp(s, "uniform") == 0)
        return SYNTH_UNIFORM;
    if (strcmp(s, "normal") == 0)
        return SYNTH_NORMAL;
    if (strcmp(s, "const") == 0)
        return SYNTH_CONST;
    return -1;
}

size_t synth_nbytes(const struct synth_input *in)
{
    if (in->ndim < 0 || in->ndim > SYNTH_MAX_DIMS)
        return 0;
    size_t n = synth_dtype_size(in->dtype);
    for (int i = 0; i < in->ndim; i++) {
        if (in->shape[i] <= 0 || (uint64_t)in->shape[i] > SIZE_MAX / n)
            return 0;
        n *= (size_t)in->shape[i];
    }
    return n;
}

/* Four 32-bit words for element block i: counter = (i, 0, 0, 0). */
static void block(uint64_t key64, uint64_t i, uint32_t out[4])
{
    uint32_t ctr[4] = {(uint32_t)i, (uint32_t)(i >> 32), 0, 0};
    uint32_t key[2] = {(uint32_t)key64, (uint32_t)(key64 >> 32)};
    synth_philox4x32(ctr, key, out);
}

/* 24 random bits -> [0, 1), exactly representable in float32 and double. */
static double unit(uint32_t w) { return (double)(w >> 8) * (1.0 / 16777216.0); }

int synth_fill(const struct synth_input *in, uint64_t key, void *buf)
{
    size_t nb = synth_nbytes(in);
    if (nb == 0)
        return error_set(BG_EUSAGE, "input %s: invalid shape", in->name);
    size_t n = nb / synth_dtype_size(in->dtype);
    int is_int = in->dtype != SYNTH_FLOAT32;
    if (is_int && in->dist == SYNTH_NORMAL)
        return error_set(BG_EUSAGE, "input %s: a normal distribution needs float32", in->name);
    double lo = in->low, hi = in->high;
    uint64_t span = 0;
    if (is_int && in->dist == SYNTH_UNIFORM) {
        if (!(hi > lo) || hi - lo > 4294967296.0)
            return error_set(BG_EUSAGE, "input %s: integer range [%g, %g) is empty or wider than 2^32",
                             in->name, lo, hi);
        span = (uint64_t)(hi - lo);
    }
    uint32_t w[4];
    for (size_t i = 0; i < n; i++) {
        /* One Philox block per element keeps element i independent of n. */
        block(key, i, w);
        double v;
        if (in->dist == SYNTH_CONST) {
            v = lo;
        } else if (is_int) {
            /* Plain modulo of a 64-bit draw: span <= 2^32, so the bias is
             * below 2^-32, far under anything a benchmark could notice. */
            uint64_t r = ((uint64_t)w[0] << 32) | w[1];
            v = lo + (double)(r % span);
        } else if (in->dist == SYNTH_UNIFORM) {
            v = lo + (hi - lo) * unit(w[0]);
        } else {
            /* Box-Muller on two 24-bit uniforms; u1 in (0, 1]. */
            double u1 = 1.0 - unit(w[0]), u2 = unit(w[1]);
            v = lo + hi * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        }
        switch (in->dtype) {
        case SYNTH_INT32:
            ((int32_t *)buf)[i] = (int32_t)v;
            break;
        case SYNTH_INT64:
            ((int64_t *)buf)[i] = (int64_t)v;
            break;
        case SYNTH_UINT8:
            ((uint8_t *)buf)[i] = (uint8_t)v;
            break;
        case SYNTH_FLOAT32:
            ((float *)buf)[i] = (float)v;
            break;
        }
    }
    return 0;
}
