/*
 * placement.h - the report's "Where cells ran" section: for runs whose cells
 * recorded where they ran (where.*, slurm.*: run/executor.h), one table row
 * per cell (node, job, devices, GPU kind, cores) and a warning for every
 * spec row (model, task, batch) whose cells ran on different kinds of node
 * (CPU model) or GPU, which makes its backends' numbers incomparable. Runs
 * without that information get no section.
 */
#ifndef BENCHGEN_PLACEMENT_H
#define BENCHGEN_PLACEMENT_H

#include "report/doc.h"
#include "report/rctx.h"

void placement_section(struct doc *d, const struct rctx *x);

/* An alert, placed before the report's first table, when the timed cells ran
 * on different kinds of processor (placement.device, else audit.device);
 * nothing otherwise. */
void placement_device_alert(struct doc *d, const struct rctx *x);

#endif /* BENCHGEN_PLACEMENT_H */
