/*
 * cli_cell.c - `benchgen cell RUN_DIR ID`: one cell of a run, run here, its
 * result written as an attempt file (run/cellrun.h). What a Slurm array
 * task and a local --devices/--cpus-per-cell slot execute.
 */
#include "base/error.h"
#include "cli/cli.h"
#include "run/cellrun.h"

#include <stdlib.h>

struct cell_cli_opts {
    const char *attempt;
    int max_attempts;
    int wait_idle;
};

static const struct opt cell_options[] = {
    OPT_STR(struct cell_cli_opts, attempt, "attempt", 0, "TAG",
            "name of this attempt (default: from SLURM_ARRAY_JOB_ID,\nSLURM_ARRAY_TASK_ID and SLURM_RESTART_COUNT, "
            "else the time)"),
    OPT_INT(struct cell_cli_opts, max_attempts, "max-attempts", 0, "N", 1, 100,
            "under Slurm, a task started more than N times records\n`interrupted` instead of running again (default "
            "3)"),
    OPT_INT(struct cell_cli_opts, wait_idle, "wait-idle", 0, "SECONDS", 0, 86400,
            "first wait up to SECONDS for other processes to use under 10%\nof a core (what `run --wait-idle` "
            "hands its cell processes)"),
};

static int cell_cmd(const struct cli_call *call)
{
    const struct cell_cli_opts *o = call->opts;
    char *end = NULL;
    long id = strtol(call->args[1], &end, 10);
    if (!*call->args[1] || *end || id < 1 || id > 1000000)
        return cli_usage_error(&cli_cell, "ID %s: expected a cell ID (1, 2, ...)", call->args[1]);
    struct cellrun_options co = {0};
    co.tag = o->attempt;
    co.max_attempts = o->max_attempts;
    co.wait_idle = o->wait_idle;
    enum status status;
    int err = cellrun(call->args[0], (int)id, &co, &status);
    return err < 0 ? cli_fail(&cli_cell, err) : CLI_EXIT_OK;
}

const struct cli_command cli_cell = {
    .name = "cell",
    .synopsis = "RUN_DIR ID [--attempt TAG] [--max-attempts N] [--wait-idle SECONDS]",
    .summary = "run one cell of a run here (what Slurm tasks and --devices slots run)",
    .about = "Runs cell ID of the run in RUN_DIR in a fresh worker, here, and writes its\n"
             "result (status, samples, facts, environment, where it ran) atomically to\n"
             "RUN_DIR/cells/ID/TAG.json, signed with the attempt's key, which `benchgen\n"
             "run` hands over in BENCHGEN_ATTEMPT_KEY (no key: refused). Runs the cell as\n"
             "the plan in run.db has it (read only); cells/plan.json adds the cluster\n"
             "resources and must agree on everything else, or the cell is refused.\n"
             "`benchgen collect RUN_DIR` (or the waiting `run`) checks and merges the\n"
             "file. Slurm array tasks and local --devices slots run this.\n"
             "SIGTERM/SIGINT/SIGHUP stop the cell (`interrupted`); SIGUSR1 (sbatch\n"
             "--signal before the time limit) stops it as `timeout`.\n",
    .exits = "0    a result was written, whatever the cell's status\n"
             "1    no result could be written\n"
             "2    usage error, no such run or cell, no attempt key, or a cells/plan.json\n"
             "     that differs from run.db",
    .spec = {cell_options, sizeof(cell_options) / sizeof(cell_options[0]), 2, 2, "RUN_DIR ID"},
    .opts_size = sizeof(struct cell_cli_opts),
    .run = cell_cmd,
};
