/*
 * cli_env.c - `benchgen env sync|list|add`: the Python environments (envs.h).
 */
#include "base/error.h"
#include "cli/cli.h"
#include "cli/term.h"
#include "envs/envs.h"
#include "envs/envs_add.h"
#include "envs/envs_list.h"
#include "envs/envs_sync.h"
#include "envs/envs_variant.h"

#include <stdbool.h>
#include <stddef.h>

struct env_opts {
    int unused;
};

struct add_opts {
    const char *for_backends;
};

static const struct opt add_options[] = {
    OPT_STR(struct add_opts, for_backends, "for", 0, "BACKEND,...",
            "the backends it will run: check what these need instead of\nwhat the backends whose default "
            "environment is NAME need\n(numpy, which every cell needs, always is checked)"),
};

struct sync_opts {
    bool cuda, cpu;
    int cuda_major;
    bool quiet;
    const char *progress;
};

static const struct opt sync_options[] = {
    OPT_FLAG(struct sync_opts, cuda, "cuda", 0,
             "build the CUDA variant (data/envs/cuda/NAME-cuN.txt): the newest\nCUDA major the NVIDIA driver "
             "supports, the newest there is\nwithout a GPU; default: CUDA when NVML sees a GPU, else CPU"),
    OPT_INT(struct sync_opts, cuda_major, "cuda-major", 0, "N", 11, 99,
            "with --cuda: that CUDA major's variant (12, 13)"),
    OPT_FLAG(struct sync_opts, cpu, "cpu", 0, "build the CPU variant (data/envs/NAME.txt)"),
    TERM_OPTIONS(struct sync_opts),
};

static int env_sync(const struct cli_call *call)
{
    const struct sync_opts *o = call->opts;
    if (o->cuda && o->cpu)
        return cli_usage_error(&cli_env_sync, "--cuda and --cpu exclude each other");
    if (o->cuda_major && !o->cuda)
        return cli_usage_error(&cli_env_sync, "--cuda-major goes with --cuda");
    if (term_setup(o->quiet, o->progress) < 0)
        return cli_usage_error(&cli_env_sync, "%s", error_last());
    envs_variant_set(o->cuda ? ENVS_WANT_CUDA : o->cpu ? ENVS_WANT_CPU : ENVS_WANT_AUTO, o->cuda_major);
    int err = envs_sync(call->args, (size_t)call->nargs, term_voice());
    return err < 0 ? cli_fail(&cli_env_sync, err) : CLI_EXIT_OK;
}

struct list_opts {
    bool packages;
};

static const struct opt list_options[] = {
    OPT_FLAG(struct list_opts, packages, "packages", 0,
             "also each environment's installed packages (name==version),\nand a registration's prefix"),
};

static int env_list(const struct cli_call *call)
{
    const struct list_opts *o = call->opts;
    int err = envs_list(stdout, o->packages);
    return err < 0 ? cli_fail(&cli_env_list, err) : CLI_EXIT_OK;
}

static int env_add(const struct cli_call *call)
{
    /* NAME PYTHON [-- PREFIX...] */
    if (call->ndash > 2)
        return cli_usage_error(&cli_env_add, "unexpected argument '%s' (a command prefix follows --)",
                               call->args[2]);
    if (call->ndash < 2)
        return cli_usage_error(&cli_env_add, "NAME and PYTHON come before --");
    const struct add_opts *o = call->opts;
    int err = envs_add(call->args[0], call->args[1], call->args + 2, (size_t)(call->nargs - 2), o->for_backends,
                       term_voice());
    return err < 0 ? cli_fail(&cli_env_add, err) : CLI_EXIT_OK;
}

const struct cli_command cli_env_sync = {
    .name = "env sync",
    .synopsis = "[--cuda [--cuda-major N] | --cpu] [--quiet] [--progress MODE] [NAME...]",
    .summary = "build Python environments (data/envs/NAME.txt; all when no NAME)",
    .about = "Creates or repairs each environment in data/envs/ (all when no NAME is given)\n"
             "as a venv of the interpreter benchgen was built with, or of the Python a\n"
             "`# python: 3.12` line in the lock names, in the cache ($BENCHGEN_CACHE,\n"
             "default ~/.cache/benchgen), keyed by a hash of its lock file. An environment\n"
             "with a CUDA variant (data/envs/cuda/NAME-cuN.txt) gets it when NVML sees an\n"
             "NVIDIA GPU (the newest CUDA major its driver supports), else its CPU variant;\n"
             "--cuda / --cpu force one (docs/ENVIRONMENTS.md).\n",
    .exits = "0    every environment is ready\n"
             "1    building one failed\n"
             "2    usage error, or no such environment",
    .spec = {sync_options, sizeof(sync_options) / sizeof(sync_options[0]), 0, -1},
    .opts_size = sizeof(struct sync_opts),
    .run = env_sync,
};

const struct cli_command cli_env_list = {
    .name = "env list",
    .synopsis = "[--packages]",
    .summary = "list environments: name, state, hash, path (--packages: package versions)",
    .about = "Prints one line per environment: its name, state, hash, path and variant\n"
             "(a hint follows one that is missing, incomplete or broken). With\n"
             "--packages, each ready environment's installed package versions follow.\n",
    .exits = "0    listed\n"
             "1    the cache could not be read\n"
             "2    usage error",
    .spec = {list_options, sizeof(list_options) / sizeof(list_options[0]), 0, 0},
    .opts_size = sizeof(struct list_opts),
    .run = env_list,
};

const struct cli_command cli_env_add = {
    .name = "env add",
    .synopsis = "NAME PYTHON [--for BACKEND,...] [-- PREFIX...]",
    .summary = "use an existing interpreter, venv or container as environment NAME",
    .about = "Registers an existing interpreter or venv of Python 3.9 or later (a cluster\n"
             "module, a conda env, another minor version) as environment NAME, after\n"
             "checking it can import benchgen's worker module, numpy (every cell needs it)\n"
             "and what the backends mapped to it need: torch for torch-eager and\n"
             "torch-compiled, tensorflow and keras for keras2-tensorflow, keras and its\n"
             "backend's framework for keras3-X. The backends checked are the --for names,\n"
             "else those whose default environment is NAME. Re-adding a NAME\n"
             "replaces its registration, and says so. With -- PREFIX..., workers\n"
             "run `PREFIX... PYTHON`: a container, e.g.\n"
             "  benchgen env add gpu python3 -- apptainer exec --nv image.sif\n"
             "The check runs contained like a cell, stopped (with everything it started)\n"
             "after BENCHGEN_PROBE_TIMEOUT seconds (default 60) or 64 KiB of output.\n",
    .exits = "0    registered\n"
             "1    the registration could not be written, or PYTHON does not fit\n"
             "2    usage error, PYTHON does not exist or is not a file, it cannot import a\n"
             "     module its backends need (named, with how to add it), a control\n"
             "     character in a path or argument, or the check was stopped",
    .spec = {add_options, sizeof(add_options) / sizeof(add_options[0]), 2, -1, "NAME PYTHON"},
    .opts_size = sizeof(struct add_opts),
    .run = env_add,
};
