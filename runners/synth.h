/*
 * synth.h - fixed synthetic inputs, generated in C from the run's seed.
 *
 * Every input buffer a workload receives (token ids, masks, images, targets,
 * prompt points) is filled here with Philox4x32-10, a counter-based
 * generator: element i of an input is a pure function of (stream key, i), so
 * the bytes do not depend on the backend, the order inputs are declared in,
 * or how many threads fill them. The stream key mixes the seed with what
 * defines a cell's data (model, task, batch, size, input name) and nothing
 * else, so cells that share them get byte-identical inputs on every backend.
 *
 * Ownership: plain values and caller-provided buffers only.
 */
#ifndef BENCHGEN_SYNTH_H
#define BENCHGEN_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#define SYNTH_MAX_DIMS 8

enum synth_dtype { SYNTH_INT32, SYNTH_INT64, SYNTH_FLOAT32, SYNTH_UINT8 };
enum synth_dist {
    SYNTH_UNIFORM, /* ints: [low, high); floats: [low, high) */
    SYNTH_NORMAL,  /* floats only: mean low, standard deviation high */
    SYNTH_CONST    /* every element = low */
};

struct synth_input {
    char name[64];
    enum synth_dtype dtype;
    int ndim;
    int64_t shape[SYNTH_MAX_DIMS];
    enum synth_dist dist;
    double low, high;
};

/* Philox4x32-10 block: out = philox(counter, key). Exposed for the known-answer test. */
void synth_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

uint64_t synth_stream_key(uint64_t seed, const char *model, const char *task, int batch, const char *size,
                          const char *input_name);

/* Bytes needed for in; 0 when the shape is invalid or overflows. */
size_t synth_nbytes(const struct synth_input *in);
size_t synth_dtype_size(enum synth_dtype t);
/* "int32" etc.; -1 when unknown. */
int synth_dtype_parse(const char *s);
const char *synth_dtype_name(enum synth_dtype t);
int synth_dist_parse(const char *s);

/* Fills buf (synth_nbytes(in) bytes). 0, or BG_EUSAGE for an impossible
 * request (e.g. an int range that is empty). */
int synth_fill(const struct synth_input *in, uint64_t stream_key, void *buf);

#endif /* BENCHGEN_SYNTH_H */
