/*
 * cli_info.c - `benchgen info` (this machine, sysinfo.h) and `benchgen version`.
 */
#include "base/error.h"
#include "base/util.h"
#include "base/version.h"
#include "cli/cli.h"
#include "run/envs.h"
#include "run/calibrate.h"
#include "run/checkup.h"
#include "run/sysinfo.h"

struct info_opts {
    bool check;
    int calibrate;
};

static const struct opt info_options[] = {
    OPT_FLAG(struct info_opts, check, "check", 0,
             "list what is not set up for benchmarking (other processes on the\nCPUs or GPUs, load, governor, "
             "turbo, persistence mode, clocks,\nthrottling, ...) and what to do about each (docs/GPU.md)"),
    OPT_INT(struct info_opts, calibrate, "calibrate", 0, "SECONDS", 1, 600,
            "measure this CPU's float32 GEMM rate (a C microbenchmark, one\nthread per CPU, SECONDS per "
            "measurement) and store it: the peak\nthat MFU of CPU cells is reported against"),
};

static int info_cmd(const struct cli_call *call)
{
    const struct info_opts *o = call->opts;
    if (o->check)
        return checkup_run(stdout) ? CLI_EXIT_FAILED : CLI_EXIT_OK;
    if (o->calibrate) {
        int cerr = calibrate_cpu(o->calibrate, stdout);
        return cerr < 0 ? cli_fail(&cli_info, cerr) : CLI_EXIT_OK;
    }
    struct kvlist kl = {0};
    int err = sysinfo_collect(&kl);
    if (err < 0) {
        kvlist_free(&kl);
        return cli_fail(&cli_info, err);
    }
    printf("benchgen %s (%s)\n", BENCHGEN_VERSION, BENCHGEN_GIT_COMMIT);
    printf("Python %s (%s) makes lock-file environments, cached in %s\n", envs_base_python_version(),
           BENCHGEN_PYTHON, envs_cache_dir());
    for (size_t i = 0; i < kl.n; i++) {
        char bytes[64]; /* byte counts in binary units, as the report shows them */
        const char *v = kl.items[i].value;
        printf("  %-28s %s\n", kl.items[i].key, util_fmt_bytes(bytes, sizeof(bytes), kl.items[i].key, v) ? bytes : v);
    }
    kvlist_free(&kl);
    return CLI_EXIT_OK;
}

static int version_cmd(const struct cli_call *call)
{
    printf("benchgen %s (%s)\n", BENCHGEN_VERSION, BENCHGEN_GIT_COMMIT);
    return CLI_EXIT_OK;
}

const struct cli_command cli_info = {
    .name = "info",
    .synopsis = "[--check] [--calibrate SECONDS]",
    .summary = "this machine: OS, CPU, memory, GPU, driver, CUDA, Python",
    .about = "Prints what a run records about the machine: OS, CPU, memory, GPU, driver,\n"
             "CUDA, and the Python that makes lock-file environments.\n",
    .exits = "0    printed (--check: nothing needs attention)\n"
             "1    the machine could not be examined (--check: something needs attention)\n"
             "2    usage error",
    .spec = {info_options, sizeof(info_options) / sizeof(info_options[0]), 0, 0},
    .opts_size = sizeof(struct info_opts),
    .run = info_cmd,
};

const struct cli_command cli_version = {
    .name = "version",
    .synopsis = "",
    .summary = "print the version and commit (also --version)",
    .about = "Prints benchgen's version and the commit it was built from.\n",
    .exits = "0    printed\n"
             "2    usage error",
    .spec = {NULL, 0, 0, 0},
    .opts_size = sizeof(struct info_opts),
    .run = version_cmd,
};
