/*
 * throughput.h - work per second beside ms/step, in the unit that fits the
 * task: samples/s for fit and predict, tokens/s for generate, images/s for
 * the diffusion model (docs/REPORT.md, "Throughput").
 *
 *   fit, predict  samples/s = batch / step time
 *   generate      tokens/s  = batch x new tokens per sequence / step time;
 *                 new tokens: the cell's `generate.new_tokens` fact (the
 *                 decoding steps its generate call ran, fewer after an EOS
 *                 stop), else its integer `method.new_tokens` fact (the
 *                 published torch method's max_new_tokens), else
 *                 THROUGHPUT_NEW_TOKENS (a total length of 50 from a 6-token
 *                 prompt, runners/workloads/sizes.py, both sizes). Runs
 *                 stored before the generate.* facts may have stopped at
 *                 EOS: the rate is then an upper bound, which the table
 *                 caption says.
 *   sd            images/s  = batch / step time for fit (the VAE encoder
 *                 trains on images); for predict a step is one denoising step,
 *                 so a whole image takes THROUGHPUT_SD_STEPS of them:
 *                 images/s = batch / (THROUGHPUT_SD_STEPS x step time).
 *
 * Everything is derived from the stored mean ms/step and the cell's plan and
 * facts; nothing is measured twice.
 */
#ifndef BENCHGEN_THROUGHPUT_H
#define BENCHGEN_THROUGHPUT_H

#include <stddef.h>

#include "store/rundata.h"

#define THROUGHPUT_NEW_TOKENS 44
#define THROUGHPUT_SD_STEPS 50

struct throughput {
    const char *unit; /* "samples/s", "tokens/s" or "images/s"; static */
    double per_step;  /* units of work one step does */
};

/* The unit and work per step of a cell (c may be NULL: no facts to read). */
void throughput_of(struct throughput *out, const char *model, const char *task, int batch,
                   const struct rd_cell *c);

/* Work per second at ms per step; NAN when ms is not a positive number. */
double throughput_rate(const struct throughput *t, double ms);

/* "1,234", "56.7", "8.90": three significant figures at least, thousands
 * separated; "NA" for NAN. */
void throughput_fmt(double rate, char *buf, size_t n);

#endif /* BENCHGEN_THROUGHPUT_H */
