/*
 * bundle_inputs.h - the files a run depended on (store/runinputs.h,
 * run/depends.h) in a bundle: written from run.db by `bundle`, held to
 * run.db's hashes by `verify`.
 *
 * bundle writes each input run.db holds the bytes of at its path (inputs/
 * for the spec, workloads and their modules; envs/recorded/ for locks and
 * package lists) and lists it in MANIFEST.json's "inputs" (path, kind,
 * sha256, size, stored). An input run.db has only the hash of (over 16 MiB)
 * is copied from where it was read when that file still has the hash, and is
 * otherwise left out ("stored": false, a warning). A path run.db gives that
 * is not under inputs/ or envs/recorded/, or leaves the bundle, is left out
 * with a warning: run.db is input too.
 *
 * verify checks each input run.db records: present in the bundle (MISSING,
 * unless run.db has only its hash) and with the SHA-256 run.db recorded when
 * the run was created (MODIFIED), and that the bundle holds nothing under
 * inputs/ or envs/recorded/ that run.db does not record (UNLISTED).
 */
#ifndef BENCHGEN_BUNDLE_INPUTS_H
#define BENCHGEN_BUNDLE_INPUTS_H

#include <stdbool.h>

#include <jansson.h>

#include "bundle/verify_extract.h"
#include "bundle/verify_log.h"
#include "base/voice.h"
#include "store/rundata.h"

/* A path run.db may give an input: inside the bundle, under inputs/ or
 * envs/recorded/. */
bool bundle_input_path_ok(const char *path);

/* Writes rd's inputs under root and appends their manifest entries to list. */
int bundle_inputs_write(const struct rundata *rd, const char *root, json_t *list, const struct voice *voice);

/* The verify checks above; problems counted in v. */
void bundle_inputs_verify(const struct rundata *rd, const struct verify_extracted *x, struct verify_log *v);

#endif /* BENCHGEN_BUNDLE_INPUTS_H */
