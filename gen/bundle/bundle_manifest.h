/*
 * bundle_manifest.h - the parts of MANIFEST.json that describe the run and
 * its environments (the file list is added by bundle_create).
 */
#ifndef BENCHGEN_BUNDLE_MANIFEST_H
#define BENCHGEN_BUNDLE_MANIFEST_H

#include <jansson.h>

#include "base/voice.h"
#include "store/rundata.h"

/* Copies envs/NAME.txt (the lock) and writes envs/NAME.resolved.txt (what
 * the run recorded) under root for every environment the run used, and
 * appends their manifest entries to list. */
int bundle_manifest_envs(const struct rundata *rd, const char *root, json_t *list, const struct voice *voice);

/* The manifest's "run" object: name, times, versions, status counts; *err
 * set (BG_EGENERIC) when jansson refuses a value (json_put, base/json.h). */
json_t *bundle_manifest_run(const struct rundata *rd, int *err);

#endif /* BENCHGEN_BUNDLE_MANIFEST_H */
