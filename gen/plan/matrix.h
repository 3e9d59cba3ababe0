/*
 * matrix.h - expands a spec into the ordered list of cells to run.
 *
 * A cell is one (model, task, batch, backend[, repeat]) with every inherited
 * setting resolved: steps, method (row, then the spec's per-backend map, then
 * the spec; a list of both makes one cell per method), warm-up (row, then the
 * spec's per-backend map, then 2 for native PyTorch under the published
 * method, then the backend's own default, then the spec), precision, timeout, memory limit, environment,
 * device (row, then the spec's per-backend map, then the spec). Order: repeat, then row,
 * then backend, so repeats are interleaved across the whole matrix and a
 * cell's id is stable for a given spec.
 *
 * Key format, unique within a run: "<model>/<task>/b<batch>/<backend>", with
 * "@<method>" appended when the cell runs under both methods (method:
 * [published, corrected]; one cell per method, adjacent, in the listed order)
 * and "#r<k>" after it for repeat k >= 2. Keys are also file names for logs
 * after '/' is replaced by '_'.
 *
 * Ownership: the matrix owns its cells and their strings; matrix_free().
 */
#ifndef BENCHGEN_MATRIX_H
#define BENCHGEN_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "plan/spec.h"

struct cell {
    int id;               /* 1-based position in the plan */
    char *key;
    char *model, *task, *backend, *size, *precision;
    char *env;            /* Python environment name */
    char *workload;       /* absolute path, or NULL: built-in for model+backend */
    char *method;         /* published | corrected; NULL only in plans stored before the key existed */
    char *device;         /* gpu | cpu | auto as the spec gave it (row, backend, spec; plan/device.h);
                           * NULL only in plans stored before the key existed, which means auto */
    int batch, steps, warmup, repeat; /* repeat is 1-based */
    uint64_t seed;
    double timeout;       /* seconds */
    uint64_t memory_limit;/* bytes, resolved (never 0) */
    struct resources res; /* cluster resources: the row's, then the backend's, then the spec's */
    uint64_t log_limit;   /* bytes of log kept; 0 = the default (runners/logcap.h) */
};

struct matrix {
    struct cell *cells;
    size_t ncells;
    size_t cap;           /* allocated cells; only matrix.c touches it */
};

/* Expands spec. only may be NULL or "KEY=VAL[,KEY=VAL...]" with KEY one of
 * model, task, backend, batch, env, method, key; values of the same key are OR'd,
 * different keys AND'd. An unknown KEY is BG_EUSAGE; a filter matching no
 * cell is BG_EUSAGE too (almost always a typo). */
int matrix_expand(struct matrix *out, const struct spec *spec, const char *only);

/* Keeps only cells for which keep[i] is non-zero (used by --resume). */
void matrix_filter(struct matrix *m, const unsigned char *keep);

/* Appends a deep copy of c (used when loading a plan back from run.db). */
int matrix_add(struct matrix *m, const struct cell *c);

void matrix_free(struct matrix *m);

/* Releases the strings and resources one cell owns (not the struct itself);
 * for a cell built outside a matrix, such as a stored run's (store/rundata.h). */
void cell_free(struct cell *c);

/* "bert_fit_b32_keras3-jax" style file-name form of a key; malloc'd. */
char *matrix_key_filename(const char *key);

#endif /* BENCHGEN_MATRIX_H */
