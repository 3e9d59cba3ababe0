/*
 * envs.h - the Python environments backends run in.
 *
 * data/envs/<name>.txt is a pinned pip requirements file. `env sync` makes
 * each a venv of the interpreter benchgen was built with (BENCHGEN_PYTHON),
 * or of the Python a `# python: 3.12` line in the lock names (found with
 * pyenv, ~/.pyenv/versions/3.12*, or python3.12 on PATH), in
 *   $BENCHGEN_CACHE (default $XDG_CACHE_HOME/benchgen, ~/.cache/benchgen)
 *   /envs/<name>-<hash16>/       (a CUDA variant: <name>-cuN-<hash16>, envs_variant.h)
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
 * The files: this one resolves names; envs_cache.h says where they live; envs_sync.h builds,
 * envs_list.h lists, envs_add.h registers, envs_derive.h derives `--with`
 * locks; envs_python.h finds and probes interpreters, envs_names.h lists
 * the names, envs_packages.h reads what a venv holds, envs_uv.h and
 * envs_proc.h run the installers.
 *
 * Ownership: struct env_info strings are owned by it; env_info_free().
 */
#ifndef BENCHGEN_ENVS_H
#define BENCHGEN_ENVS_H

#include <stdbool.h>
#include <stdio.h>

#include "envs/envs_cache.h" /* envs_cache_dir(), for every user of environments */

#ifndef BENCHGEN_PYTHON
#define BENCHGEN_PYTHON "python3" /* the Makefile passes the real one */
#endif

/* In a venv directory: written once its installer finished (present means
 * ready), and why its last sync failed. */
#define ENVS_READY_MARKER ".benchgen-ready"
#define ENVS_FAILED_MARKER ".benchgen-failed"

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
    char variant[16];  /* "cpu", "cu12", "cu13"; "-" for a lock with one build; "external" */
    char *note;        /* why this variant (envs/envs_variant.h); NULL for a name with one */
};

/* Resolves NAME: an external registration wins, else data/envs/NAME.txt.
 * BG_ENOTFOUND when neither exists. A missing venv is not an error: state
 * says "missing" and the run records its cells as skipped. */
int envs_resolve(const char *name, struct env_info *out);

/* envs_resolve() for a cell of backend (NULL: any): its variant for this
 * machine (envs/envs_variant.h), the first ready one unless a variant is
 * forced, following a CUDA lock's `# backend:` line. */
int envs_resolve_for(const char *name, const char *backend, struct env_info *out);

/* envs_resolve(), but the variant this machine wants whether or not it is
 * ready (a ready CUDA variant does not stand in for the CPU one on a machine
 * without a GPU): the one `env sync` builds. */
int envs_resolve_wanted(const char *name, struct env_info *out);

/* Resolves a given lock file as environment name (a variant's lock). */
int envs_resolve_lock(const char *name, const char *lock, struct env_info *out);

/* The version of the interpreter benchgen was built with ("3.11.7"), which
 * makes lock-file venvs without a `# python:` line. Borrowed, static; ""
 * when it cannot be run. */
const char *envs_base_python_version(void);

/* The 16 hex digits naming a lock file's venv: SHA-256 over the lock file's
 * bytes, one '\0', then pyver ("3.11.7"). */
int envs_lock_hash(const char *lock_path, const char *pyver, char out[17]);

void env_info_free(struct env_info *e);

#endif /* BENCHGEN_ENVS_H */
