/*
 * compare_scope.h - which cells a comparison's change can affect, and cells
 * that moved although nothing of theirs changed but the host.
 *
 * A cell is affected when something that can change its performance differs
 * for it: a counted difference in its own environment (Python, packages), a
 * counted run-wide difference the comparison intends (--intended, --with),
 * or, when no intent is known, any counted run-wide difference; a cell
 * whose environment is not recorded on a side counts as affected (nothing
 * rules it out). The overall speed-up is the geometric mean over the
 * affected tested cells; the unaffected ones (the control: same Python,
 * same packages) get their own.
 *
 * A tested cell whose ratio B/A moved by COMPARE_HOST_MOVE or more while
 * nothing counted changed, neither its own environment nor the run-wide,
 * but the two runs ran on different hosts, is flagged "host changed:
 * A -> B": the host, not the software, is the likely cause.
 */
#ifndef BENCHGEN_COMPARE_SCOPE_H
#define BENCHGEN_COMPARE_SCOPE_H

#include "compare/compare.h"

#define COMPARE_HOST_MOVE 0.15

/* Sets each cell's affected flag and host_changed text, and the pair's
 * affected / unaffected geometric means. Call after the cells are tested. */
void compare_scope(struct compare_pair *p);

#endif /* BENCHGEN_COMPARE_SCOPE_H */
