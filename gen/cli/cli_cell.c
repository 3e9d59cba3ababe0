/*
 * cli_cell.c - `benchgen cell RUN_DIR ID`: one cell of a run, run here, its
 * result written as an attempt file (run/cellrun.h). What a Slurm array
 * task and a local --devices/--cpus-per-cell slot execute.
 */
#include "cli/cli.h"
#include "run/cellrun.h"
#include "base/error.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_[] =
    "usage: benchgen cell RUN_DIR ID [--attempt TAG] [--max-attempts N]\n"
    "\n"
    "Runs cell ID of the run in RUN_DIR in a fresh worker, here, and writes its\n"
    "result (status, samples, facts, environment, where it ran) atomically to\n"
    "RUN_DIR/cells/ID/TAG.json. Reads the plan from RUN_DIR/cells/plan.json and\n"
    "never opens run.db; `benchgen collect RUN_DIR` (or the waiting `run`)\n"
    "merges the file. Slurm array tasks and local --devices slots run this.\n"
    "\n"
    "  --attempt TAG      name of this attempt (default: from SLURM_ARRAY_JOB_ID,\n"
    "                     SLURM_ARRAY_TASK_ID and SLURM_RESTART_COUNT, else the time)\n"
    "  --max-attempts N   under Slurm, a task started more than N times records\n"
    "                     `interrupted` instead of running again (default 3)\n"
    "\n"
    "SIGTERM/SIGINT/SIGHUP stop the cell (`interrupted`); SIGUSR1 (sbatch\n"
    "--signal before the time limit) stops it as `timeout`. Exit status 0 when\n"
    "a result was written, whatever the cell's status.\n";

int cli_cell(int argc, char **argv)
{
    static const struct option opts[] = {{"attempt", required_argument, 0, 'a'},
                                         {"max-attempts", required_argument, 0, 'm'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct cellrun_options o = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': o.tag = optarg; break;
        case 'm': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 100) {
                fprintf(stderr, "benchgen: cell: --max-attempts %s: expected 1 to 100\n\n%s", optarg, usage_);
                return 2;
            }
            o.max_attempts = (int)v;
            break;
        }
        case 'h': fputs(usage_, stdout); return 0;
        default:
            fprintf(stderr, "benchgen: cell: unknown or incomplete option %s\n\n%s", argv[optind - 1], usage_);
            return 2;
        }
    }
    char *end = NULL;
    long id = optind + 1 < argc ? strtol(argv[optind + 1], &end, 10) : 0;
    if (optind + 2 != argc || !end || *end || id < 1 || id > 1000000) {
        fprintf(stderr, "benchgen: cell: expected RUN_DIR and a cell ID (1, 2, ...)\n\n%s", usage_);
        return 2;
    }
    char status[16];
    int err = cellrun(argv[optind], (int)id, &o, status);
    if (err < 0) {
        fprintf(stderr, "benchgen: cell: %s\n", error_last());
        return error_exit_status(err);
    }
    return 0;
}
