/*
 * envs_python.h - the interpreters environments are made with and run:
 * finding one of a wanted version, asking one for its version and prefix.
 */
#ifndef BENCHGEN_ENVS_PYTHON_H
#define BENCHGEN_ENVS_PYTHON_H

#include <stdbool.h>

#include "base/util.h"

/* Major and minor of "3.12.1" as 312 (0 when it is not a version). */
int envs_python_version_number(const char *ver);

/* true when s holds a control character (below 0x20, or DEL): a path or
 * argument that cannot go into a one-per-line registration. */
bool envs_python_has_control(const char *s);

/* Asks an interpreter (after a command prefix, when given) for its version
 * and prefix (*prefix malloc'd), without site or PYTHON* variables (-I);
 * with check_module, also whether it can import the worker's `_benchgen`
 * module and is 3.9 or later. BG_EPYTHON with the reason otherwise. It runs
 * as envs_probe.h runs it: contained, with a deadline and bounded output
 * (BG_EUSAGE when it had to be stopped). */
int envs_python_probe(const char *python, const char *const *cmd_prefix, bool check_module, char ver[32],
                      char **prefix);

/* Runs `PREFIX... PYTHON ARGS...` (args NULL-terminated; cmd_prefix NULL
 * or NULL-terminated) as envs_probe_run() runs a candidate, with a
 * stand-in directory for a prefix's {cell} (made and removed here): its
 * stdout into *out, its wait status into *status; envs_probe_run()'s
 * errors. */
int envs_python_run(const char *python, const char *const *cmd_prefix, const char *const *args,
                    struct strbuf *out, int *status);

/* The version of an interpreter, probed once per process. "" when it
 * cannot be run. Borrowed, static. */
const char *envs_python_version(const char *python);

/* Absolute path of a command: as given when it has a '/', else from PATH.
 * Symlinks are kept: a venv's bin/python is a symlink whose location is
 * what makes it the venv's. malloc'd; NULL when not found. */
char *envs_python_which(const char *cmd);

/* "3.12" from a lock's `# python: 3.12` line, into want ("" when none). */
void envs_python_requested(const char *lock, char want[16]);

/* An interpreter of Python `want` ("3.12"): `pyenv prefix`, then the newest
 * ~/.pyenv/versions/<want>*, then python<want> on PATH. malloc'd or NULL. */
char *envs_python_find(const char *want);

#endif /* BENCHGEN_ENVS_PYTHON_H */
