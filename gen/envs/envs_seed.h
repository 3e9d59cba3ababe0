/*
 * envs_seed.h - a derived environment starts from its parent's packages.
 *
 * A derived `run --with` environment differs from its parent by the pins.
 * Before its installer runs, every package of the ready parent venv is
 * hard-linked into the new venv's site-packages (directories made anew,
 * files linked, nothing copied), so the installer finds them installed and
 * changes only what the pins change: no download and no disk for the rest,
 * whether the parent was built with uv or with pip. Nothing writes into a
 * linked file: an installer replaces a package by removing its files and
 * creating new ones, and Python writes bytecode by renaming a new file into
 * place. Entries the new venv already has (the installer's own pip and
 * setuptools) are kept, with their *.dist-info. The parent's versions of
 * the pinned packages (the top-level entries their RECORD lists) are not
 * linked: the installer puts the pins into a clean place instead of first
 * removing the parent's version file by file.
 */
#ifndef BENCHGEN_ENVS_SEED_H
#define BENCHGEN_ENVS_SEED_H

#include "envs/envs.h"

/* The ready parent of derived environment e ("torch" of
 * "torch+transformers-5.23.0", with the same Python), into *parent; 0 when
 * found, BG_ENOTFOUND when e is not derived or the parent is not ready
 * (then the build starts empty). */
int envs_seed_parent(const struct env_info *e, struct env_info *parent);

/* Hard-links parent's site-packages into e's, keeping what e has; *files
 * is the number of files linked. */
int envs_seed_link(const struct env_info *e, const struct env_info *parent, long *files);

#endif /* BENCHGEN_ENVS_SEED_H */
