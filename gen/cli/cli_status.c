/*
 * cli_status.c - `benchgen status RUN_DIR` and `benchgen collect RUN_DIR`:
 * where each cell of a run stands (run.db, the result files, squeue), and
 * merging the result files of cells that ran elsewhere (run/slurmrun.h).
 */
#include "base/error.h"
#include "cli/cli.h"
#include "cli/term.h"
#include "run/collect.h"
#include "run/slurm.h"
#include "run/slurmrun.h"
#include "store/store.h"

#include <stdio.h>
#include <time.h>

struct no_opts {
    int unused;
};

static int status_cmd(const struct cli_call *call)
{
    struct store *st = NULL;
    struct matrix plan = {0};
    int err = store_open(&st, call->args[0], true);
    if (!err)
        store_set_voice(st, term_voice());
    if (!err)
        err = store_load_plan(st, &plan);
    if (!err)
        err = slurmrun_print_status(st, &plan, stdout);
    matrix_free(&plan);
    store_close(st);
    return err < 0 ? cli_fail(&cli_status, err) : CLI_EXIT_OK;
}

static int collect_cmd(const struct cli_call *call)
{
    struct store *st = NULL;
    struct matrix plan = {0};
    int verdicts = 0, files = 0, cells = 0, still = 0, open_cells = 0, quarantined = 0;
    int err = store_open(&st, call->args[0], false);
    if (!err)
        store_set_voice(st, term_voice());
    if (!err)
        err = store_load_plan(st, &plan);
    if (!err)
        err = slurmrun_submitted(st) && slurm_have("squeue")
                  ? slurmrun_collect(st, &plan, &verdicts, &files, &cells, &still, &quarantined)
                  : collect_run(st, &plan, &files, &cells, &quarantined);
    for (size_t i = 0; !err && i < plan.ncells; i++) {
        enum status status;
        if ((err = store_cell_status(st, plan.cells[i].id, &status)) == 0)
            open_cells += !slurmrun_status_final(status);
    }
    if (!err && open_cells == 0)
        err = store_mark_finished(st, time(NULL));
    if (!err)
        fprintf(stderr,
                "collected %d result file(s) of %d cell(s)%s; %zu cell(s): %zu final, %d still queued or running, "
                "%d without a final status\n",
                files, cells, verdicts ? ", some judged from Slurm's state" : "", plan.ncells,
                plan.ncells - (size_t)open_cells, still, open_cells - still);
    if (!err && quarantined)
        fprintf(stderr,
                "quarantined %d result file(s) that could not have come from the plan: not merged, kept under "
                "%s/cells/ID/quarantine/ (reasons above and in run.db)\n",
                quarantined, store_dir(st));
    matrix_free(&plan);
    store_close(st);
    if (err < 0)
        return cli_fail(&cli_collect, err);
    return open_cells || quarantined ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

const struct cli_command cli_status = {
    .name = "status",
    .synopsis = "RUN_DIR",
    .summary = "each cell of a run: final, running (node), queued (reason), pending",
    .about = "One line per cell: its final status (from run.db, or from a result file not\n"
             "collected yet), running (on which node, as squeue says), queued (with Slurm's\n"
             "reason), ended by Slurm without a result, or pending; then a summary. Reads\n"
             "only; works while the submitting `run` is waiting.\n",
    .exits = "0    printed\n"
             "2    no run in RUN_DIR",
    .spec = {NULL, 0, 1, 1, "RUN_DIR"},
    .opts_size = sizeof(struct no_opts),
    .run = status_cmd,
};

const struct cli_command cli_collect = {
    .name = "collect",
    .synopsis = "RUN_DIR",
    .summary = "merge the results of cells that ran elsewhere (Slurm, --devices) into run.db",
    .about = "Merges into run.db the result files of cells that ran elsewhere (Slurm tasks,\n"
             "local --devices slots), and judges tasks Slurm ended without writing a result\n"
             "(TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, CANCELLED) from squeue and scontrol.\n"
             "Idempotent: each result file is merged once, however often it runs. Cells\n"
             "still queued or running are left for a later collect. Each file is checked\n"
             "against the plan in run.db and the attempt it names (signed with the key\n"
             "that attempt was issued); one that fails is quarantined, with its reason,\n"
             "in cells/ID/quarantine/ and never merged, and the others still merge.\n",
    .exits = "0    every cell has a final status\n"
             "1    some cell is still queued, running or without a final status, or a\n"
             "     result file was quarantined\n"
             "2    no run in RUN_DIR, or another benchgen is writing it",
    .spec = {NULL, 0, 1, 1, "RUN_DIR"},
    .opts_size = sizeof(struct no_opts),
    .run = collect_cmd,
};
