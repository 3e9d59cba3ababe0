/*
 * pyembed.h - starting CPython inside a cell worker, bound to a venv.
 *
 * Only ever called in a forked worker, never in the parent. Uses an isolated
 * PyConfig (PYTHON* variables ignored, no user site) whose executable is the
 * venv's python, so getpath finds pyvenv.cfg and site adds the venv's
 * site-packages. Hash randomisation is fixed (hash_seed 0) so dict/set order,
 * and with it anything a framework derives from it, repeats run to run.
 */
#ifndef BENCHGEN_PYEMBED_H
#define BENCHGEN_PYEMBED_H

/* Registers built-in modules (must precede pyembed_start). */
int pyembed_register_builtin(const char *name, void *(*init)(void));

/* 0, or BG_EPYTHON with the reason in error_last(). */
int pyembed_start(const char *venv_python, const char *runners_dir);

/* Takes the pending Python exception: a malloc'd formatted traceback (or
 * NULL when none is pending); *is_memory_error tells MemoryError apart. */
char *pyembed_take_error(int *is_memory_error);

#endif /* BENCHGEN_PYEMBED_H */
