/*
 * device.h - the spec's `device:` key: which kind of processor a cell must
 * run on (docs/SPEC.md, "device").
 *
 *   gpu   every parameter of the model and every input of the step on a GPU
 *   cpu   all of them on the host
 *   auto  gpu when the machine the cell runs on has one (NVML, as `benchgen
 *         info` sees it), else cpu; cpu for a backend that runs on the CPU
 *         only (the NumPy reference). The default.
 *
 * The spec gives it spec-wide, per backend ({default: gpu, numpy: cpu}) or
 * per row; a cell gets the row's, then its backend's, then the spec's. The
 * plan stores the spec's value (cells.device); the node that runs the cell
 * resolves auto (device_resolve()) and the worker refuses a cell whose model
 * or inputs are elsewhere before its first step (runners/harness.py).
 *
 * Ownership: the parsers replace *out with a malloc'd copy and add to a
 * kvlist their caller owns.
 */
#ifndef BENCHGEN_DEVICE_H
#define BENCHGEN_DEVICE_H

#include "base/util.h"

struct spec_ctx;    /* plan/spec_node.h */
struct yaml_node_s; /* yaml_node_t */

/* gpu, cpu, auto; NULL-terminated. */
extern const char *const device_values[];

/* The spec-wide key: a value, or {default: V, <backend>: V, ...}. */
int device_parse_spec(const struct spec_ctx *c, const struct yaml_node_s *n, char **out,
                      struct kvlist *by_backend);

/* A row's key: a value. */
int device_parse_row(const struct spec_ctx *c, const struct yaml_node_s *n, char **out);

/* What a cell of backend must run on, "gpu" or "cpu" (static), for the
 * spec's value (NULL: a plan stored before the key, auto) on a machine
 * where NVML sees gpus devices. */
const char *device_resolve(const char *spec_value, const char *backend, int gpus);

#endif /* BENCHGEN_DEVICE_H */
