/*
 * envs_list.h - `env list`.
 */
#ifndef BENCHGEN_ENVS_LIST_H
#define BENCHGEN_ENVS_LIST_H

#include <stdbool.h>
#include <stdio.h>

/* The columns of an environment's line, printed as a "# " comment after the
 * cache line; README.md and docs/ENVIRONMENTS.md quote it (test_cli.sh). */
#define ENVS_LIST_COLUMNS "NAME  STATE  HASH  PATH  VARIANT"

/* Prints, for every environment, "NAME  STATE  HASH  PATH  VARIANT" (HASH
 * "-" for a registered interpreter; VARIANT cpu, cuN, "-" for a lock with
 * one build, or external), then a hint saying what to do when it is
 * missing, incomplete or broken; with packages, a ready or registered one's
 * installed "name==version" lines (and a registration's prefix) follow.
 * NAME's line is the variant its cells use on this machine
 * (envs/envs_variant.h); its other variants follow as NAME:VARIANT. */
int envs_list(FILE *out, bool packages);

#endif /* BENCHGEN_ENVS_LIST_H */
