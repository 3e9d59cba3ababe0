/*
 * envs_derive.h - derived environments for `run --with PKG==VERSION`.
 */
#ifndef BENCHGEN_ENVS_DERIVE_H
#define BENCHGEN_ENVS_DERIVE_H

#include <stddef.h>

/* Makes the derived environment "<base>+<pkg>-<version>..." for `run --with`:
 * base's lock with each pinned package's line replaced by the pin (added when
 * absent), written to <cache>/derived/<name>.txt so envs_resolve() and
 * envs_sync() treat it like any other lock. pins are "PKG==VERSION".
 * *name_out is malloc'd. BG_EUSAGE for a malformed pin or an external base. */
int envs_derive(const char *base, const char *const *pins, size_t npins, char **name_out);

/* 0 when pin is a package requirement pip can only read as one: a PEP 508
 * name, "==", and one PEP 440 version (no epoch, no wildcard), so that no
 * pin becomes an installer option in the derived lock ("--index-url==x");
 * BG_EUSAGE with the reason otherwise. */
int envs_derive_check_pin(const char *pin);

#endif /* BENCHGEN_ENVS_DERIVE_H */
