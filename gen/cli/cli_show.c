/*
 * cli_show.c - `benchgen show RUN_DIR [--json]` (show.h).
 */
#include "base/error.h"
#include "cli/cli.h"
#include "cli/show.h"

struct show_opts {
    bool json;
};

static const struct opt show_options[] = {
    OPT_FLAG(struct show_opts, json, "json", 0, "print the stable \"benchgen-run/1\" JSON document\n(docs/RUN-FORMAT.md)"),
};

static int show_cmd(const struct cli_call *call)
{
    const struct show_opts *o = call->opts;
    int err = show_run(call->args[0], o->json, stdout);
    return err < 0 ? cli_fail(&cli_show, err) : CLI_EXIT_OK;
}

const struct cli_command cli_show = {
    .name = "show",
    .synopsis = "RUN_DIR [--json]",
    .summary = "print a run's cells and statistics",
    .about = "Prints every cell of a run with its status, input hash, sample counts and\n"
             "summary statistics.\n",
    .exits = "0    printed\n"
             "1    the run could not be read\n"
             "2    usage error, or RUN_DIR holds no run",
    .spec = {show_options, sizeof(show_options) / sizeof(show_options[0]), 1, 1, "RUN_DIR"},
    .opts_size = sizeof(struct show_opts),
    .run = show_cmd,
};
