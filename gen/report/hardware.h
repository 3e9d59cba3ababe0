/*
 * hardware.h - the report's view of how a cell used the hardware, from the
 * facts machine/telemetry.c and the workloads' flops/audit modules record:
 * achieved TFLOP/s and MFU (against machine/peaks.h, or the CPU peak that
 * `benchgen info --calibrate` measured), energy per step, GPU throttling,
 * peak GPU memory, CPU time of other processes, contention; plus the
 * method-audit warnings when backends of one row differ in synchronisation,
 * TF32, bf16 handling, memory policy or torch.compile mode.
 *
 * Runs made before these facts existed give an empty table and no warnings,
 * so their reports are unchanged.
 */
#ifndef BENCHGEN_HARDWARE_H
#define BENCHGEN_HARDWARE_H

#include <stddef.h>

#include "report/rctx.h"
#include "report/tables.h"

/* Appends "contended: ...; GPU throttled 51% (sw power cap 51%)" to buf
 * (after a "; " when buf is not empty) for one cell. */
void hardware_cell_warnings(const struct rd_cell *c, char *buf, size_t n);

/* One row per ok cell that has hardware facts: cell, device, GFLOP/step,
 * TFLOP/s, MFU, J/step, throttled, peak GPU memory, other CPU, contended.
 * An empty table (no rows) when no cell has any. Returns table_finish()'s
 * result: 0, or the table's first error (the caller releases t either way). */
int hardware_table(const struct rctx *x, struct table *t);

/* The method-audit differences of the run's rows, one malloc'd sentence
 * each ("BERT (fit), batch 32: TF32 differs: on (keras3-jax) vs off (...)").
 * *out is NULL-terminated; free with hardware_free_lines(). 0, or BG_EGENERIC
 * for a sentence that could not be formatted (then *out is NULL). */
int hardware_audit_lines(const struct rctx *x, char ***out, size_t *n);
void hardware_free_lines(char **lines, size_t n);

/* Achieved TFLOP/s of a cell (median step) and its MFU in percent; NAN when
 * unknown. *peak_name says which peak ("NVIDIA H100 SXM5 bfloat16 tensor
 * 989 TFLOP/s"), "" when none. For the roofline chart too. */
void hardware_mfu(const struct rundata *rd, const struct rd_cell *c, double *tflops, double *mfu_pct,
                  char *peak_name, size_t n);

#endif /* BENCHGEN_HARDWARE_H */
