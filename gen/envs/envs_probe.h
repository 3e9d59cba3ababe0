/*
 * envs_probe.h - running an interpreter benchgen does not trust yet (the
 * candidate of `env add`, a builder it found on PATH) the way it runs a cell:
 * in a container of its own (runners/contain.h: cgroup, or subreaper and
 * sweep), with a deadline, a memory limit and a bounded read of what it
 * prints. When it ends, or is stopped, everything it started goes with it:
 * a daemon it left behind (setsid, double fork) is killed.
 */
#ifndef BENCHGEN_ENVS_PROBE_H
#define BENCHGEN_ENVS_PROBE_H

#include <stddef.h>

#include "base/util.h"

/* The deadline when BENCHGEN_PROBE_TIMEOUT is unset, in seconds. */
#define ENVS_PROBE_TIMEOUT_S 60
/* At most this many bytes of its stdout are read; more and it is stopped. */
#define ENVS_PROBE_MAX_OUT (64u << 10)
/* At most this many bytes of its stderr are passed on to ours; the rest is
 * counted and dropped. */
#define ENVS_PROBE_MAX_ERR (64u << 10)
/* Memory for it and everything it starts. */
#define ENVS_PROBE_MEMORY (4ull << 30)

/* Runs argv (argv[0] looked up in PATH when it has no '/'), stdin from
 * /dev/null, its stdout into *out (at most ENVS_PROBE_MAX_OUT bytes), its
 * stderr passed on up to ENVS_PROBE_MAX_ERR bytes. The deadline is
 * BENCHGEN_PROBE_TIMEOUT seconds (a number > 0), else ENVS_PROBE_TIMEOUT_S.
 * Returns 0 once it ended by itself, whatever its exit (*status, a wait
 * status; exit 127: it could not be executed). BG_EUSAGE when it was
 * stopped: past the deadline, printing more than the cap, or using more
 * memory ("WHAT did not answer within 60 s (stopped, with every process it
 * started)"), or when BENCHGEN_PROBE_TIMEOUT is not a number of seconds;
 * what names it in the message. Other codes when it could not be started. */
int envs_probe_run(char *const argv[], const char *what, struct strbuf *out, int *status);

#endif /* BENCHGEN_ENVS_PROBE_H */
