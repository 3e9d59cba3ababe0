/*
 * contain.h - holding every process of one cell, and killing them all.
 *
 * One interface, one file per backend:
 *   contain_cgroup1.c  cgroup v1: memory (the limit, OOM kills), pids and
 *                      freezer (freeze, kill every task, thaw) hierarchies
 *   contain_cgroup2.c  cgroup v2 below benchgen's own group (memory.max and
 *                      memory.events where the memory controller is
 *                      delegated, cgroup.kill)
 *   contain_tree.c     no usable cgroups: benchgen is a child subreaper, and
 *                      a sweep kills every process that carries the cell's
 *                      token in its environment, shares its session, or
 *                      descends from it
 * contain.c picks the first backend that works (BENCHGEN_CONTAINMENT=
 * cgroup1|cgroup2|tree forces one) and runs the watchdog: a small process,
 * forked once per run, that holds a pipe from benchgen and, when benchgen
 * dies (even by SIGKILL), kills the cell in flight and removes its cgroups
 * and its scratch directory.
 *
 * Ownership: contain_open() allocates; contain_close() kills what is left,
 * removes the cgroups and frees.
 */
#ifndef BENCHGEN_CONTAIN_H
#define BENCHGEN_CONTAIN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct contain;

/* A fresh, empty container for one cell; memory_limit in bytes (0: none).
 * 0 or a negative error code. */
int contain_open(struct contain **out, const char *cell_key, uint64_t memory_limit);

/* In the forked child, before exec: joins the container. 0 or -1 (errno). */
int contain_enter(struct contain *ct);

/* The cell's scratch directory (worker.c makes and removes it): when
 * benchgen dies with the cell in flight, the watchdog removes it too, after
 * the cell's processes. Before contain_started(), which tells the watchdog;
 * a path longer than it keeps is not given to it. */
void contain_scratch(struct contain *ct, const char *dir);

/* In the parent once the child is forked. */
void contain_started(struct contain *ct, pid_t pid);

/* Bytes of memory the cell uses now; *peak the highest seen (0: unknown). */
int64_t contain_memory(struct contain *ct, int64_t *peak);

/* True once the kernel killed something in the container for memory. */
bool contain_oom(struct contain *ct);

/* Whether the container enforces the memory limit itself (else the parent
 * polls contain_memory() against it). */
bool contain_limits_memory(const struct contain *ct);

/* Kills every process in the container; returns once none is left or after
 * about a second. */
void contain_kill(struct contain *ct);

/* "cgroup1 (memory, pids, freezer)", "tree (subreaper + sweep)", ... */
const char *contain_describe(const struct contain *ct);

/* The environment variable the cell's processes carry ("NAME=VALUE"). */
const char *contain_token(const struct contain *ct);

void contain_close(struct contain *ct);

#endif /* BENCHGEN_CONTAIN_H */
