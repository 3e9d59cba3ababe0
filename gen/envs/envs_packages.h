/*
 * envs_packages.h - what an environment holds, read from its files.
 */
#ifndef BENCHGEN_ENVS_PACKAGES_H
#define BENCHGEN_ENVS_PACKAGES_H

#include "base/util.h"

/* Packages in the site-packages of prefix (Python pyver, "3.11.7"; Debian's
 * dist-packages when there is none), "name==version", sorted, into nl. */
int envs_packages_read(const char *prefix, const char *pyver, struct strlist *nl);

#endif /* BENCHGEN_ENVS_PACKAGES_H */
