/*
 * slurm.h - Slurm's own commands, driven as a user would: sbatch --parsable
 * to submit, squeue to watch, scontrol to ask about one task, scancel to
 * stop. Never sacct: many clusters run without accounting. The commands find
 * the cluster as they always do (SLURM_CONF, /etc/slurm).
 *
 * Slurm keeps a finished task visible to squeue and scontrol for MinJobAge
 * (300 s by default); after that a task with no result file is unknown.
 *
 * Ownership: the caller frees what the functions fill (slurm_tasks_free(),
 * free()).
 */
#ifndef BENCHGEN_SLURM_H
#define BENCHGEN_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "plan/status.h"

/* One array task as squeue shows it. */
struct slurm_task {
    char job[32];     /* array job id */
    int task;         /* array task id = benchgen cell id */
    char state[24];   /* PENDING, RUNNING, COMPLETED, TIMEOUT, ... */
    char reason[64];  /* squeue's %r */
    char node[64];    /* "" while pending */
};

struct slurm_tasks {
    struct slurm_task *v;
    size_t n;
};

/* Runs argv (argv[0] looked up in PATH) and captures stdout (malloc'd, may
 * be NULL) and its exit status; stderr goes to *err_out when not NULL. A
 * command that cannot be started is BG_ENOTFOUND. */
int slurm_command(char *const argv[], char **out, char **err_out, int *status);

/* true when `cmd` (sbatch, squeue, ...) is on PATH. */
bool slurm_have(const char *cmd);

/* sbatch --parsable ARGS... SCRIPT: the job id, or an error with sbatch's message. */
int slurm_submit(const struct strlist *args, const char *script, char job[32]);

/* Every task of the given array jobs that squeue still knows, in any state. */
int slurm_queue(const struct strlist *jobs, struct slurm_tasks *out);
void slurm_tasks_free(struct slurm_tasks *t);

/* The task of array job `job` with task id `task`, or NULL. */
const struct slurm_task *slurm_find(const struct slurm_tasks *t, const char *job, int task);

/* scontrol show job -o JOB_TASK as one line ("" when Slurm forgot it); malloc'd. */
char *slurm_show(const char *job, int task);

/* One field (Reason=, ExitCode=, ...) out of slurm_show's line. */
char *slurm_field(const char *line, const char *name);

/* scancel JOB. */
int slurm_cancel(const char *job);

/* true for the states a task leaves only by being requeued: COMPLETED,
 * FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, CANCELLED, PREEMPTED,
 * BOOT_FAIL, DEADLINE, SPECIAL_EXIT. */
bool slurm_state_final(const char *state);

/* The benchgen status a final Slurm state means when the task wrote no
 * final result: timeout, oom, interrupted (preempted, cancelled, node
 * failure) or error; STATUS_NONE for a state that is not final. */
enum status slurm_state_status(const char *state);

/* text with every '%' doubled, so that Slurm's file name patterns
 * (sbatch --output: %A, %a, %j, ...) read it as it is; malloc'd. */
char *slurm_pattern_escape(const char *text);

/* BG_EUSAGE when the run directory dir (relative: to the working directory)
 * holds a backslash, which makes Slurm take --output literally, with no
 * pattern replaced and no way to escape it. */
int slurm_check_dir(const char *dir);

/* "1-5,7,9-12" for sorted ids; malloc'd. */
char *slurm_ranges(const int *ids, size_t n);

#endif /* BENCHGEN_SLURM_H */
