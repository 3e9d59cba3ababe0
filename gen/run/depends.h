/*
 * depends.h - what a run depends on beyond benchgen itself, gathered when
 * the run is created and stored in run.db (store/runinputs.h):
 *   - the spec (kind spec);
 *   - each custom workload (`workload:`, kind workload) and the local
 *     modules it imports from its own folder (kind module): `import NAME`,
 *     `from NAME import ...` and `from . import NAME` lines, at any
 *     indentation, found as NAME.py or as a package NAME/ (every *.py in
 *     it), followed through the modules found (a static scan: a module
 *     named only at run time, importlib.import_module("x"), is not seen);
 *   - the lock file of each Python environment the plan uses
 *     (data/envs/NAME.txt, the variant the cell resolves to, or a `--with`
 *     lock; kind lock), or for a registered interpreter (`env add`) the
 *     packages its site-packages holds, `name==version` per line (kind
 *     packages; none for one run through a command prefix, whose packages
 *     are inside the container).
 * Each is stored under the path it has in a bundle. The spec, workloads and
 * modules go under inputs/, keeping the layout the spec sees: every file
 * relative to the deepest folder that holds the spec and all workloads, so
 * `benchgen run inputs/<spec>` finds the workloads the spec names by
 * relative paths. Locks and package lists go under envs/recorded/.
 */
#ifndef BENCHGEN_DEPENDS_H
#define BENCHGEN_DEPENDS_H

#include <stdio.h>

#include "plan/matrix.h"
#include "plan/spec.h"
#include "store/runinputs.h"

/* Fills out (empty on entry; the caller frees it with run_inputs_free()),
 * sorted by path. Reading errors are errors (BG_EIO naming the file). */
int depends_collect(struct run_inputs *out, const struct spec *spec, const struct matrix *plan);

/* For `run --resume`: prints to out a warning for each workload or module
 * run.db recorded whose file is gone or no longer has the recorded hash
 * (cells run now use the file as it is; run.db and a bundle keep the bytes
 * the run was created with). Returns how many were warned about. */
int depends_warn_changed(const struct run_inputs *recorded, FILE *out);

#endif /* BENCHGEN_DEPENDS_H */
