/*
 * main.c - the `benchgen` command line: dispatches to run, show, env, info,
 * report. Only this file prints usage and turns error codes into exit
 * statuses (0 ok, 1 a cell or an operation failed, 2 usage or spec error,
 * 130 interrupted).
 */
#include "bundle/bundle.h"
#include "compare/compare.h"
#include "run/collect.h"
#include "run/envs.h"
#include "base/error.h"
#include "plan/matrix.h"
#include "report/report.h"
#include "run/scheduler.h"
#include "cli/cli.h"
#include "cli/show.h"
#include "plan/spec.h"
#include "store/rundir.h"
#include "store/store.h"
#include "run/sysinfo.h"
#include "base/util.h"
#include "base/version.h"

#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static const char usage_main[] =
    "usage: benchgen COMMAND [ARGS]\n"
    "\n"
    "Runs a matrix of deep-learning models x backends x tasks, each cell in an\n"
    "isolated worker, stores every step time, and renders reports.\n"
    "\n"
    "commands:\n"
    "  run SPEC [--out DIR] [--only K=V,...] [--dry-run]   run a matrix spec\n"
    "  run --resume DIR [--retry STATUS,...]              finish an interrupted run\n"
    "  cell RUN_DIR ID                                    run one cell of a run here (Slurm tasks)\n"
    "  show RUN_DIR [--json]                              print a run's cells and statistics\n"
    "  report RUN_DIR [--out DIR] ...                     render HTML, Markdown, PDF, XLSX, charts\n"
    "  compare RUN_A RUN_B [RUN_C...] [--out DIR]         A/B verdicts per cell (exit 3 if slower)\n"
    "  bundle RUN_DIR --out FILE.tar.gz                   deterministic, self-verifying release bundle\n"
    "  verify FILE.tar.gz                                 check a bundle's hashes and re-render it\n"
    "  env sync [NAME...]                                 build Python environments (data/envs/*.txt)\n"
    "  env list                                           list environments and their packages\n"
    "  env add NAME PYTHON [-- PREFIX...]                 use an existing interpreter, venv or container\n"
    "  info                                               this machine, GPU and linked Python\n"
    "  version                                            print the version\n"
    "\n"
    "`benchgen COMMAND --help` explains each command. Exit status: 0 success,\n"
    "1 some cell or operation failed, 2 usage or spec error, 3 compare found a\n"
    "slower cell, 130 interrupted.\n";

static const char usage_run[] =
    "usage: benchgen run SPEC [--out DIR] [--only KEY=VAL[,KEY=VAL...]] [--dry-run]\n"
    "                         [--with PKG==VERSION ...] [--repeats N]\n"
    "       benchgen run --resume DIR [SPEC] [--retry STATUS[,STATUS...]]\n"
    "       ... [--devices LIST|auto] [--cpus-per-cell N]\n"
    "\n"
    "Expands SPEC (a YAML matrix spec, see docs/SPEC.md), prints the plan and runs\n"
    "every cell, one at a time, each in a fresh worker process. Results go to DIR\n"
    "(default runs/<spec name>-<UTC time>): run.db (SQLite) and logs/.\n"
    "\n"
    "  --out DIR       run directory to create (must not hold a run already)\n"
    "  --only FILTER   run a subset: KEY is model, task, backend, batch, env or key;\n"
    "                  the same KEY twice means either, different KEYs mean both\n"
    "  --dry-run       print the plan and exit without running anything\n"
    "  --with PKG==V   run in derived environments: each backend's environment\n"
    "                  plus this pin (repeatable); built once, cached by hash\n"
    "  --repeats N     run every cell N times, in separate processes, interleaved\n"
    "                  across the matrix (overrides the spec's repeats)\n"
    "  --resume DIR    run the cells of DIR that have no final status (never ran,\n"
    "                  in flight when the run was killed, or interrupted)\n"
    "  --retry LIST    with --resume, also rerun cells that ended with these\n"
    "                  statuses (e.g. skipped,error,timeout)\n"
    "  --executor E    local (default) or slurm (docs/CLUSTER.md)\n"
    "  --devices LIST  local: one cell per GPU at once, bound with\n"
    "                  CUDA_VISIBLE_DEVICES; LIST is 0,1,... or auto (NVML's GPUs)\n"
    "  --cpus-per-cell N  local: pin each cell to N cores of its own and set\n"
    "                  OMP_NUM_THREADS and kin to N; alone, runs as many cells\n"
    "                  at once as there are sets of N cores\n"
    "\n"
    "Exit status: 0 every cell ok or unsupported, 1 some cell failed (the run is\n"
    "complete and reportable), 2 usage or spec error, 130 interrupted.\n";

static const char usage_show[] =
    "usage: benchgen show RUN_DIR [--json]\n"
    "\n"
    "Prints every cell of a run with its status, input hash, sample counts and\n"
    "summary statistics. --json prints the stable \"benchgen-run/1\" document\n"
    "described in docs/RUN-FORMAT.md.\n";

static const char usage_env[] =
    "usage: benchgen env sync [NAME...]\n"
    "       benchgen env list\n"
    "       benchgen env add NAME PYTHON [-- PREFIX...]\n"
    "\n"
    "sync  creates each environment in data/envs/ (all when no NAME is given) as a\n"
    "      venv of the interpreter benchgen was built with, or of the Python a\n"
    "      `# python: 3.12` line in the lock names, in the cache ($BENCHGEN_CACHE,\n"
    "      default ~/.cache/benchgen), keyed by a hash of its lock file\n"
    "list  prints name, hash, path, state and resolved package versions\n"
    "add   registers an existing interpreter or venv of Python 3.9 or later (a\n"
    "      cluster module, a conda env, another minor version) as environment\n"
    "      NAME, after checking it can import benchgen's worker module. With\n"
    "      -- PREFIX..., workers run `PREFIX... PYTHON`: a container, e.g.\n"
    "      env add gpu python3 -- apptainer exec --nv image.sif\n";

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
    fprintf(stderr, "benchgen: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", usage);
    return 2;
}

static char *join_args(int argc, char **argv)
{
    struct strbuf sb = {0};
    for (int i = 0; i < argc; i++)
        strbuf_printf(&sb, "%s%s", i ? " " : "", argv[i]);
    return strbuf_detach(&sb);
}

/* Keeps cells with no final status, or whose status is in retry (comma list). */
static int select_resumable(struct store *st, struct matrix *plan, const char *retry)
{
    unsigned char *keep = calloc(plan->ncells ? plan->ncells : 1, 1);
    if (!keep)
        return error_set(BG_ENOMEM, "out of memory");
    int err = 0;
    for (size_t i = 0; i < plan->ncells && !err; i++) {
        char status[16];
        if ((err = store_cell_status(st, plan->cells[i].id, status)) < 0)
            break;
        int again = status[0] == '\0' || !strcmp(status, "interrupted");
        if (!again && retry) {
            size_t n = strlen(status);
            for (const char *p = retry; (p = strstr(p, status)); p += n)
                if ((p == retry || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
                    again = 1;
        }
        keep[i] = (unsigned char)again;
    }
    if (!err)
        matrix_filter(plan, keep);
    free(keep);
    return err;
}

/* A resumed run must finish the matrix it started; refuse an edited spec. */
static int check_same_spec(struct store *st, const struct spec *spec, const char *dir)
{
    sqlite3_stmt *q = NULL;
    int err = 0;
    if (sqlite3_prepare_v2(store_db(st), "SELECT spec_sha256 FROM run", -1, &q, NULL) != SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW) {
        err = error_set(BG_EDB, "%s: cannot read the run's spec hash", dir);
    } else {
        const char *h = (const char *)sqlite3_column_text(q, 0);
        if (!h || strcmp(h, spec->sha256) != 0)
            err = error_set(BG_EUSAGE,
                            "%s has changed since the run in %s was created (sha256 %.12s, run has %.12s); "
                            "resume without SPEC, or start a new run",
                            spec->path, dir, spec->sha256, h ? h : "none");
    }
    sqlite3_finalize(q);
    return err;
}

/* --with: every cell moves to "<env>+<pins>", built now (once, cached) so the
 * run measures the pinned stack rather than skipping it. */
static int derive_envs(struct matrix *plan, const char *const *with, size_t nwith, int dry)
{
    if (nwith == 0)
        return 0;
    struct kvlist derived = {0}; /* env -> derived name */
    int err = 0;
    for (size_t i = 0; i < plan->ncells && !err; i++) {
        struct cell *c = &plan->cells[i];
        const char *name = kvlist_get(&derived, c->env);
        char *made = NULL;
        if (!name) {
            if ((err = envs_derive(c->env, with, nwith, &made)) < 0)
                break;
            err = kvlist_add(&derived, c->env, made);
            name = made;
        }
        char *copy = err ? NULL : strdup(name);
        free(made);
        if (!err && !copy)
            err = error_set(BG_ENOMEM, "out of memory");
        if (!err) {
            free(c->env);
            c->env = copy;
        }
    }
    if (!err && !dry) {
        const char **names = calloc(derived.n ? derived.n : 1, sizeof(*names));
        for (size_t i = 0; names && i < derived.n; i++)
            names[i] = derived.items[i].value;
        err = names ? envs_sync(names, derived.n) : error_set(BG_ENOMEM, "out of memory");
        free(names);
        if (err < 0) {
            /* The cells will end as skipped, with the reason; the run goes on. */
            fprintf(stderr, "benchgen: %s\n", error_last());
            err = 0;
        }
    }
    kvlist_free(&derived);
    return err;
}

static int cmd_run(int argc, char **argv, char **full_argv, int full_argc)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},  {"only", required_argument, 0, 'f'},
                                         {"dry-run", no_argument, 0, 'n'},     {"resume", required_argument, 0, 'r'},
                                         {"retry", required_argument, 0, 't'}, {"help", no_argument, 0, 'h'},
                                         {"with", required_argument, 0, 'w'},  {"repeats", required_argument, 0, 'R'},
                                         {"executor", required_argument, 0, 'E'},
                                         {"devices", required_argument, 0, 'D'},
                                         {"cpus-per-cell", required_argument, 0, 'C'},
                                         {0, 0, 0, 0}};
    struct exec_options eo = {0};
    const char *out = NULL, *only = NULL, *resume = NULL, *retry = NULL;
    const char *with[32];
    size_t nwith = 0;
    int dry = 0, c, repeats = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f': only = optarg; break;
        case 'n': dry = 1; break;
        case 'r': resume = optarg; break;
        case 't': retry = optarg; break;
        case 'w':
            if (nwith == sizeof(with) / sizeof(with[0]))
                return usage_error(usage_run, "run: %s", "too many --with pins");
            with[nwith++] = optarg;
            break;
        case 'R': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1000)
                return usage_error(usage_run, "run: --repeats %s: expected an integer from 1 to 1000", optarg);
            repeats = (int)v;
            break;
        }
        case 'E': eo.kind = optarg; break;
        case 'D': eo.devices = optarg; break;
        case 'C': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 4096)
                return usage_error(usage_run, "run: --cpus-per-cell %s: expected a whole number of cores", optarg);
            eo.cpus_per_cell = (int)v;
            break;
        }
        case 'h': fputs(usage_run, stdout); return 0;
        default: return usage_error(usage_run, "run: unknown or incomplete option %s", argv[optind - 1]);
        }
    }
    const char *spec_path = optind < argc ? argv[optind] : NULL;
    if (optind + 1 < argc)
        return usage_error(usage_run, "run: unexpected argument %s", argv[optind + 1]);
    if (!spec_path && !resume)
        return usage_error(usage_run, "run: %s", "missing SPEC");
    if (resume && (out || only || nwith || repeats))
        return usage_error(usage_run, "run: %s",
                           "--resume takes the plan from the run; drop --out/--only/--with/--repeats");
    if (retry && !resume)
        return usage_error(usage_run, "run: %s", "--retry only makes sense with --resume");

    struct spec *spec = NULL;
    struct store *st = NULL;
    struct matrix plan = {0};
    struct kvlist host = {0};
    char *outdir = NULL, *cmdline = NULL;
    int err = 0, status = 0;

    if (spec_path && (err = spec_load(&spec, spec_path)) < 0)
        goto done;
    if (resume) {
        if ((err = store_open(&st, resume, false)) < 0 || (err = store_load_plan(st, &plan)) < 0)
            goto done;
        /* Results of cells that ran elsewhere, not merged yet, count first. */
        int files = 0, cells = 0;
        if ((err = collect_run(st, &plan, &files, &cells)) < 0)
            goto done;
        if (files)
            fprintf(stderr, "collected %d result file(s) of %d cell(s)\n", files, cells);
        if (spec && (err = check_same_spec(st, spec, resume)) < 0)
            goto done;
        if ((err = select_resumable(st, &plan, retry)) < 0)
            goto done;
        fprintf(stderr, "resuming %s: %zu cell(s) left to run\n", resume, plan.ncells);
    } else {
        if (repeats)
            spec->repeats = repeats;
        if (out) {
            outdir = strdup(out);
        } else {
            char ts[32];
            time_t now = time(NULL);
            struct tm tm;
            gmtime_r(&now, &tm);
            strftime(ts, sizeof(ts), "%Y%m%d-%H%M%S", &tm);
            outdir = util_printf("runs/%s-%s", spec->name, ts);
        }
        cmdline = join_args(full_argc, full_argv);
        if (!outdir || !cmdline) {
            err = error_set(BG_ENOMEM, "out of memory");
            goto done;
        }
        /* --out is checked before anything is built or downloaded */
        if ((err = matrix_expand(&plan, spec, only)) < 0 || (!dry && (err = rundir_check_free(outdir)) < 0) ||
            (err = derive_envs(&plan, with, nwith, dry)) < 0)
            goto done;
        sched_print_plan(&plan, stdout);
        if (dry)
            goto done;
        if ((err = sysinfo_collect(&host)) < 0)
            goto done;
        for (size_t i = 0; i < nwith; i++)
            kvlist_add(&host, "run.with", with[i]);
        /* Options the executor refuses create no run directory. */
        struct executor probe;
        if ((err = executor_open(&probe, &eo, NULL, NULL, NULL)) < 0)
            goto done;
        probe.ops->close(&probe);
        if ((err = store_create(&st, outdir, spec, &plan, &host, cmdline)) < 0)
            goto done;
        const char *gpu = kvlist_get(&host, "gpu.status");
        fprintf(stderr, "run directory: %s\n%s%s", outdir, gpu ? gpu : "", gpu ? "\n" : "");
    }
    fflush(stdout);
    struct sched_summary sum;
    err = sched_run(st, &plan, &eo, &sum);
    if (!err) {
        fprintf(stderr, "done: %d cell(s): %d ok, %d unsupported, %d failed, %d skipped -> %s\n", sum.total,
                sum.ok, sum.unsupported, sum.failed, sum.skipped, store_dir(st));
        status = (sum.failed || sum.skipped) ? 1 : 0;
    }
done:
    if (err < 0) {
        fprintf(stderr, "benchgen: %s\n", error_last());
        status = err == BG_EINTR ? 130 : error_exit_status(err);
    }
    store_close(st);
    matrix_free(&plan);
    spec_free(spec);
    kvlist_free(&host);
    free(outdir);
    free(cmdline);
    return status;
}

static int cmd_show(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        fputs(usage_show, stdout);
        return 0;
    }
    const char *dir = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (argv[i][0] == '-')
            return usage_error(usage_show, "show: unknown option %s", argv[i]);
        else if (dir)
            return usage_error(usage_show, "show: unexpected argument %s", argv[i]);
        else
            dir = argv[i];
    }
    if (!dir)
        return usage_error(usage_show, "show: %s", "missing RUN_DIR");
    int err = show_run(dir, json, stdout);
    if (err < 0) {
        fprintf(stderr, "benchgen: %s\n", error_last());
        return err == BG_ENOTFOUND ? 2 : error_exit_status(err);
    }
    return 0;
}

static int cmd_env(int argc, char **argv)
{
    if (argc < 2 || wants_help(argc, argv)) {
        fputs(usage_env, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    int err;
    if (!strcmp(argv[1], "sync"))
        err = envs_sync((const char *const *)argv + 2, (size_t)(argc - 2));
    else if (!strcmp(argv[1], "list"))
        err = argc == 2 ? envs_list(stdout) : usage_error(usage_env, "env list: %s", "takes no arguments");
    else if (!strcmp(argv[1], "add"))
        err = argc == 4 || (argc > 5 && !strcmp(argv[4], "--"))
                  ? envs_add(argv[2], argv[3], (const char *const *)argv + 5, argc > 5 ? (size_t)(argc - 5) : 0)
                  : usage_error(usage_env, "env add: %s", "needs NAME PYTHON [-- PREFIX...]");
    else
        return usage_error(usage_env, "env: unknown subcommand %s", argv[1]);
    if (err == 2)
        return 2;
    if (err < 0) {
        fprintf(stderr, "benchgen: %s\n", error_last());
        return error_exit_status(err);
    }
    return 0;
}

static int cmd_info(void)
{
    struct kvlist kl = {0};
    int err = sysinfo_collect(&kl);
    if (err < 0) {
        fprintf(stderr, "benchgen: %s\n", error_last());
        kvlist_free(&kl);
        return 1;
    }
    printf("benchgen %s (%s)\n", BENCHGEN_VERSION, BENCHGEN_GIT_COMMIT);
    printf("Python %s (%s) makes lock-file environments, cached in %s\n", envs_base_python_version(),
           BENCHGEN_PYTHON, envs_cache_dir());
    for (size_t i = 0; i < kl.n; i++)
        printf("  %-28s %s\n", kl.items[i].key, kl.items[i].value);
    kvlist_free(&kl);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("benchgen %s (%s)\n", BENCHGEN_VERSION, BENCHGEN_GIT_COMMIT);
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1, argv, argc);
    if (!strcmp(cmd, "show"))
        return cmd_show(argc - 1, argv + 1);
    if (!strcmp(cmd, "env"))
        return cmd_env(argc - 1, argv + 1);
    if (!strcmp(cmd, "info"))
        return cmd_info();
    if (!strcmp(cmd, "report"))
        return report_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "compare"))
        return cli_compare(argc - 1, argv + 1);
    if (!strcmp(cmd, "cell"))
        return cli_cell(argc - 1, argv + 1);
    if (!strcmp(cmd, "bundle"))
        return bundle_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "verify"))
        return verify_main(argc - 1, argv + 1);
    fprintf(stderr, "benchgen: unknown command '%s'\n\n%s", cmd, usage_main);
    return 2;
}
