/*
 * show.h - `benchgen show RUN_DIR [--json]`: the run as text or stable JSON.
 *
 * The JSON form ("format": "benchgen-run/1") is documented in docs/RUN-FORMAT.md;
 * fields are only ever added, never renamed or removed, within format 1.
 */
#ifndef BENCHGEN_SHOW_H
#define BENCHGEN_SHOW_H

#include <stdbool.h>
#include <stdio.h>

int show_run(const char *run_dir, bool json, FILE *out);

#endif /* BENCHGEN_SHOW_H */
