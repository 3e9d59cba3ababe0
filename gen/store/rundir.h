/*
 * rundir.h - a run directory's lock and its creation under a temporary name.
 *
 * The lock: DIR/run.lock, held with flock(LOCK_EX) by the one process that
 * writes the run (`run --out DIR` from creation on, `run --resume DIR`), for
 * as long as it has the run open. Its content names the holder
 * ("pid=N host=H since=T"), so a refused second writer can say who holds it.
 * The descriptor is close-on-exec; the kernel drops the lock when the holder
 * dies, even by SIGKILL, so a stale run.lock never blocks anything.
 *
 * Creation: DIR is first built as PARENT/.NAME.creating.PID (with its own
 * run.lock held from the start), and renamed to DIR once run.db's plan is
 * committed. So DIR either does not exist or holds a complete plan, whatever
 * moment a SIGKILL strikes. A later creation of the same DIR recognises a
 * dead creator's temporary directory (its name, and a run.lock nobody holds)
 * and removes it, file by file, touching only names benchgen creates there.
 */
#ifndef BENCHGEN_RUNDIR_H
#define BENCHGEN_RUNDIR_H

#include <stdbool.h>

#include "base/voice.h"

#define RUNDIR_LOCK_NAME "run.lock"
#define RUNDIR_DB_NAME "run.db" /* STORE_DB_NAME */

/* Takes DIR/run.lock exclusively (creating it when missing); *fd_out holds
 * it until rundir_unlock(). BG_EUSAGE, naming the holder, when another
 * process has it. */
int rundir_lock(int *fd_out, const char *dir);

void rundir_unlock(int fd);

/* Whether a live process holds DIR/run.lock (a run, resume or collect is
 * writing DIR). Probes with a shared lock and lets go at once; opens
 * run.lock read-only and never creates it. */
bool rundir_held(const char *dir);

/* BG_EUSAGE unless DIR can become a new run: absent, or an empty directory.
 * Checked again at rename time; this early check spares work (and downloads)
 * that would be thrown away. */
int rundir_check_free(const char *dir);

/* Checks that DIR can become a new run (absent, or an empty directory; no
 * other benchgen creating it), removes dead creators' temporary directories,
 * creates PARENT (mkdir -p) and the temporary directory, locked, with logs/
 * inside. *tmp_out (malloc'd) is its path, *fd_out the lock. BG_EUSAGE when
 * DIR is taken. voice (may be NULL) hears what was removed or left alone. */
int rundir_begin(char **tmp_out, int *fd_out, const char *dir, const struct voice *voice);

/* Renames the temporary directory to DIR and makes the rename durable.
 * BG_EUSAGE, naming the winner, when DIR was taken meanwhile. */
int rundir_publish(const char *tmp, const char *dir);

/* Removes a temporary directory this process created and did not publish:
 * only the files benchgen puts there, never anything else. */
void rundir_abandon(const char *tmp, const struct voice *voice);

/* Fault injection for the creation tests: when $BENCHGEN_FAULT names stage,
 * the process kills itself with SIGKILL right there; "stop:STAGE" stops it
 * (SIGSTOP) instead, so a test can interleave two runs exactly. Stages:
 * checked, mkdir, locked, plan-written, committed, published. */
void rundir_fault(const char *stage);

#endif /* BENCHGEN_RUNDIR_H */
