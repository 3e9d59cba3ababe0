/*
 * envs.h - the Python environments backends run in.
 *
 * data/envs/<name>.txt is a pinned pip requirements file. `env sync` makes
 * each a venv of the interpreter benchgen was built with (BENCHGEN_PYTHON),
 * or of the Python a `# python: 3.12` line in the lock names (found with
 * pyenv, ~/.pyenv/versions/3.12*, or python3.12 on PATH), in
 *   $BENCHGEN_CACHE (default $XDG_CACHE_HOME/benchgen, ~/.cache/benchgen)
 *   /envs/<name>-<hash16>/
 * where hash16 is the first 16 hex digits of SHA-256 over the lock file and
 * the interpreter version, so a changed lock or interpreter gets a new venv
 * and every checkout and CI run on the machine reuses a ready one. A venv is
 * "ready" only once pip finished and .benchgen-ready was written; anything
 * else is "incomplete" and is rebuilt by the next sync.
 *
 * `env add NAME PYTHON [-- PREFIX...]` registers an existing interpreter or
 * venv instead (in <cache>/external/<name>): any Python 3.9 or later, run
 * after a command prefix when one is given (a container: `-- apptainer exec
 * image.sif`), once it has shown that it can import benchgen's `_benchgen`
 * module. benchgen links no libpython: every worker exec()s its
 * environment's own interpreter.
 *
 * Ownership: struct env_info strings are owned by it; env_info_free().
 */
#ifndef BENCHGEN_ENVS_H
#define BENCHGEN_ENVS_H

#include <stdbool.h>
#include <stdio.h>

struct env_info {
    char *name;
    char *lock_path;   /* data/envs/<name>.txt, NULL for an external one */
    char hash[17];     /* "" for an external one */
    char *dir;         /* venv directory (or the external interpreter's prefix) */
    char *python;      /* the interpreter a worker execs: <dir>/bin/python */
    char **prefix;     /* NULL, or the NULL-terminated command put before python */
    char *builder;     /* a lock's: the interpreter that makes its venv; NULL when absent */
    char pyver[32];    /* its Python version ("3.12.1"; the requested "3.12" when absent) */
    const char *state; /* "ready", "missing", "incomplete", "external", "broken" */
};

/* Cache root, created on demand. Borrowed. */
const char *envs_cache_dir(void);

/* Resolves NAME: an external registration wins, else data/envs/NAME.txt.
 * BG_ENOTFOUND when neither exists. A missing venv is not an error: state
 * says "missing" and the run records its cells as skipped. */
int envs_resolve(const char *name, struct env_info *out);

/* Creates or repairs the named environments (all of data/envs when n == 0),
 * showing pip's progress. */
int envs_sync(const char *const *names, size_t n);


/* Prints name, hash, path, state and resolved package versions. */
int envs_list(FILE *out);

/* Registers PYTHON (an interpreter or venv; with a prefix, the interpreter
 * as the prefixed command finds it) as environment NAME. */
int envs_add(const char *name, const char *python, const char *const *prefix, size_t nprefix);

/* The version of the interpreter benchgen was built with ("3.11.7"), which
 * makes lock-file venvs without a `# python:` line. Borrowed, static; ""
 * when it cannot be run. */
const char *envs_base_python_version(void);

/* The 16 hex digits naming a lock file's venv: SHA-256 over the lock file's
 * bytes, one '\0', then pyver ("3.11.7"). */
int envs_lock_hash(const char *lock_path, const char *pyver, char out[17]);

void env_info_free(struct env_info *e);

#endif /* BENCHGEN_ENVS_H */
