/*
 * envs_proc.h - running the interpreters and installers (python -m venv,
 * pip, uv) that build and inspect environments.
 */
#ifndef BENCHGEN_ENVS_PROC_H
#define BENCHGEN_ENVS_PROC_H

#include <stddef.h>

#include "base/util.h"

/* Runs argv[0] (searched in PATH when it has no '/') with argv, stdin from
 * /dev/null. With cap, the child's stdout goes into *cap; otherwise stdout
 * and stderr are the caller's (pip's progress is meant to be seen).
 * Returns 0 once the process ran, whatever its exit; *status is its wait
 * status (exit 127: it could not be executed). */
int envs_proc_run(char *const argv[], struct strbuf *cap, int *status);

/* In a forked child before exec: no signal blocked, SIGINT, SIGTERM and
 * SIGPIPE at their defaults (ignored signals and the mask survive exec). */
void envs_proc_child_signals(void);

/* "exit status N" or "signal N (NAME)" for a wait status. */
void envs_proc_status(int status, char *buf, size_t len);

#endif /* BENCHGEN_ENVS_PROC_H */
