/*
 * hostload.h - how busy this machine is outside benchgen: the CPU time of
 * every process that is not benchgen or one of its descendants, the load
 * average, the CPU frequency governor and the turbo state.
 *
 * "Outside" is computed, not guessed: all CPU time the kernel accounts
 * (/proc/stat: user, nice, system, irq, softirq, steal; only the CPUs this
 * process may run on when it is pinned to a subset) minus the time of
 * benchgen's own process tree (itself, every live descendant, and what its
 * reaped descendants used, from /proc/PID/stat utime+stime+cutime+cstime).
 * Per-process deltas between two snapshots name the biggest foreign users.
 *
 * Ownership: a snapshot owns its process table; hostload_snap_free()
 * releases it. Nothing here allocates anything else that outlives a call.
 */
#ifndef BENCHGEN_HOSTLOAD_H
#define BENCHGEN_HOSTLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Other processes above this many cores, averaged over a cell, make it
 * "contended" (10% of one core, the threshold). */
#define HOSTLOAD_CONTENDED_CORES 0.10

struct hostload_proc {
    pid_t pid;
    double cpu_s; /* utime + stime, seconds */
    char comm[24];
};

struct hostload_snap {
    int64_t t_ns;  /* CLOCK_MONOTONIC */
    double busy_s; /* every CPU's accounted busy time, seconds */
    double ours_s; /* benchgen's process tree, seconds */
    struct hostload_proc *foreign; /* processes outside the tree, by pid */
    size_t nforeign;
};

/* Takes a snapshot. with_procs: also keep the foreign process table (for
 * hostload_top). 0, or BG_EIO when /proc/stat cannot be read. */
int hostload_snap(struct hostload_snap *s, int with_procs);
void hostload_snap_free(struct hostload_snap *s);

/* Cores used by processes outside benchgen between two snapshots (>= 0);
 * 0 when b is not after a. */
double hostload_other_cores(const struct hostload_snap *a, const struct hostload_snap *b);

/* The n foreign processes that used the most CPU between a and b, as
 * "pid 1234 stress-ng (0.98 cores), pid 77 ..." into buf ("" when none used
 * more than 1% of a core). Both snapshots need with_procs. */
void hostload_top(const struct hostload_snap *a, const struct hostload_snap *b, size_t n, char *buf,
                  size_t len);

/* 1-minute load average, -1 when unknown. */
double hostload_load1(void);

/* The scaling governor of every CPU: "performance", or "powersave (4), performance (4)"
 * when they differ; "" when cpufreq is absent (VMs, containers). */
void hostload_governor(char *buf, size_t len);

/* Turbo / boost: 1 on, 0 off, -1 unknown (intel_pstate/no_turbo, cpufreq/boost). */
int hostload_turbo(void);

/* Pids of benchgen's process tree (itself and live descendants) into pids
 * (at most cap); returns how many. For matching GPU processes. */
size_t hostload_our_pids(pid_t *pids, size_t cap);

#endif /* BENCHGEN_HOSTLOAD_H */
