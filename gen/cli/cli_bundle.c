/*
 * cli_bundle.c - `benchgen bundle RUN_DIR` and `benchgen verify FILE.tar.gz`:
 * the command line over bundle_create() and bundle_verify() (bundle.h).
 */
#include "base/error.h"
#include "base/escape.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "bundle/bundle.h"
#include "cli/cli.h"
#include "cli/term.h"

#include <stdlib.h>
#include <string.h>

struct verify_cli_opts {
    bool quiet;
    const char *progress;
};

static const struct opt verify_cli_options[] = {
    TERM_OPTIONS(struct verify_cli_opts),
};

struct bundle_cli_opts {
    const char *out, *baseline;
    bool quiet, force;
    const char *progress;
};

static const struct opt bundle_cli_options[] = {
    OPT_STR(struct bundle_cli_opts, out, "out", 'o', "FILE", "the bundle to write (default RUN_DIR.tar.gz)"),
    OPT_STR(struct bundle_cli_opts, baseline, "baseline", 0, "BACKEND",
            "passed to the report (see `benchgen report --help`)"),
    OPT_FLAG(struct bundle_cli_opts, force, "force", 0, "replace FILE when it exists (without it, an existing\nFILE is refused)"),
    TERM_OPTIONS(struct bundle_cli_opts),
};

/* The message may quote a name from the archive or the run: escaped for the
 * terminal like everything else bundle and verify print. */
static int fail_escaped(const struct cli_command *cmd, int err)
{
    char *e = escape_terminal_dup(error_last());
    if (e)
        error_set(err, "%s", e);
    free(e);
    return cli_fail(cmd, err);
}

static int bundle_cmd(const struct cli_call *call)
{
    const struct bundle_cli_opts *o = call->opts;
    const char *run_dir = call->args[0], *out = o->out;
    struct bundle_options bo = {.baseline = o->baseline, .force = o->force, .voice = *term_voice()};
    if (term_setup(o->quiet, o->progress) < 0)
        return cli_usage_error(&cli_bundle, "%s", error_last());
    if (o->baseline && !util_is_safe_name(o->baseline))
        return cli_usage_error(&cli_bundle, "--baseline expects a backend name, not %s", o->baseline);
    char *def = NULL;
    if (!out) {
        size_t n = strlen(run_dir);
        while (n > 1 && run_dir[n - 1] == '/')
            n--;
        out = def = xprintf("%.*s.tar.gz", (int)n, run_dir);
    }
    int err = bundle_create(run_dir, out, &bo);
    free(def);
    return err ? fail_escaped(&cli_bundle, err) : CLI_EXIT_OK;
}

static int verify_cmd(const struct cli_call *call)
{
    const struct verify_cli_opts *o = call->opts;
    size_t problems = 0;
    if (term_setup(o->quiet, o->progress) < 0)
        return cli_usage_error(&cli_verify, "%s", error_last());
    /* --quiet: only the problems, which are errors, on stderr */
    struct bundle_options bo = {.problems_only = o->quiet};
    int err = bundle_verify(call->args[0], o->quiet ? stderr : stdout, &problems, &bo);
    if (err)
        return fail_escaped(&cli_verify, err);
    return problems ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

const struct cli_command cli_bundle = {
    .name = "bundle",
    .synopsis = "RUN_DIR [--out FILE.tar.gz] [--baseline BACKEND] [--force] [--quiet] [--progress MODE]",
    .summary = "pack a run for a release: deterministic, self-verifying .tar.gz",
    .about = "Packs a run for a release: the report (rendered from the bundled data), run.db,\n"
             "the cell logs, the spec, the environments' lock files and resolved versions,\n"
             "every file the run depended on as run.db recorded it when the run was created\n"
             "(inputs/: the spec, workloads and their local modules; envs/recorded/: locks),\n"
             "MANIFEST.json (versions, hashes, command lines) and SHA256SUMS. The archive is\n"
             "deterministic: bundling the same run twice gives the same bytes. FILE is\n"
             "written beside itself under a temporary name and renamed into place; an\n"
             "existing FILE is replaced only with --force, and never inside a run directory.\n",
    .exits = "0    written\n"
             "1    bundling failed\n"
             "2    usage error, RUN_DIR holds no run, FILE exists (without --force) or is\n"
             "     inside a run directory",
    .spec = {bundle_cli_options, sizeof(bundle_cli_options) / sizeof(bundle_cli_options[0]), 1, 1, "RUN_DIR"},
    .opts_size = sizeof(struct bundle_cli_opts),
    .run = bundle_cmd,
};


const struct cli_command cli_verify = {
    .name = "verify",
    .synopsis = "FILE.tar.gz [--quiet] [--progress MODE]",
    .summary = "check a bundle's hashes and manifest, re-render its report byte for byte",
    .about = "Checks a bundle made by `benchgen bundle`: every file against SHA256SUMS, nothing\n"
             "missing or unlisted, MANIFEST.json consistent, the files the run depended on\n"
             "against the hashes run.db recorded, and the report re-rendered from the bundled\n"
             "run.db byte for byte. Every problem is printed with the file it concerns, also\n"
             "in a bundle unpacked and packed again (`tar czf`); with --quiet, only the\n"
             "problems, on stderr.\n",
    .exits = "0    verified\n"
             "1    a problem was found, or the file is not a readable bundle\n"
             "2    usage error, or FILE.tar.gz does not exist",
    .spec = {verify_cli_options, sizeof(verify_cli_options) / sizeof(verify_cli_options[0]), 1, 1, "FILE.tar.gz"},
    .opts_size = sizeof(struct verify_cli_opts),
    .run = verify_cmd,
};
