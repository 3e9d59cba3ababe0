/*
 * cli.c - the command table, dispatch, usage text and the exit-status table
 * (see cli.h).
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/version.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const struct cli_command *const cli_commands[] = {
    &cli_run,      &cli_cell,     &cli_status,  &cli_collect, &cli_show,    &cli_report, &cli_compare, &cli_bisect, &cli_bundle,  &cli_verify,
    &cli_env_sync, &cli_env_list, &cli_env_add, &cli_info,   &cli_version, NULL,
};

static const struct {
    int code;
    const char *meaning;
} exit_table[] = {
    {CLI_EXIT_OK, "success"},
    {CLI_EXIT_FAILED, "some cell failed (the run is complete and reportable), or an operation failed"},
    {CLI_EXIT_USAGE, "usage error, bad spec, or a missing file, run directory or environment"},
    {CLI_EXIT_SLOWER, "compare found a cell that got slower"},
    {CLI_EXIT_INTERRUPTED, "interrupted (Ctrl-C or SIGTERM); `run --resume DIR` finishes a run"},
};

const struct cli_command *cli_find(const char *name)
{
    for (size_t i = 0; cli_commands[i]; i++)
        if (!strcmp(cli_commands[i]->name, name))
            return cli_commands[i];
    return NULL;
}

/* "usage: benchgen NAME FORM" for each form of the synopsis; a line that
 * starts with a space continues the form above it. */
static void print_synopsis(const struct cli_command *cmd, FILE *out)
{
    const char *p = cmd->synopsis;
    int first = 1, indent = (int)strlen(cmd->name) + 9;
    do {
        size_t len = strcspn(p, "\n");
        if (*p == ' ')
            fprintf(out, "       %*s%.*s\n", indent, "", (int)len - 1, p + 1);
        else
            fprintf(out, "%s benchgen %s%s%.*s\n", first ? "usage:" : "      ", cmd->name, len ? " " : "",
                    (int)len, p);
        first = 0;
        p += len;
    } while (*p++ == '\n');
}

void cli_print_usage(const struct cli_command *cmd, FILE *out)
{
    print_synopsis(cmd, out);
    fprintf(out, "\n%s", cmd->about);
    fputs("\noptions:\n", out);
    opt_print_help(&cmd->spec, out);
    fputs("\nexit status:\n", out);
    for (const char *p = cmd->exits; *p;) {
        size_t len = strcspn(p, "\n");
        fprintf(out, "  %.*s\n", (int)len, p);
        p += len;
        if (*p == '\n')
            p++;
    }
}

void cli_print_main_usage(FILE *out)
{
    fputs("usage: benchgen COMMAND [ARGS]\n"
          "\n"
          "Runs a matrix of deep-learning models x backends x tasks, each cell in an\n"
          "isolated worker, stores every step time, and renders reports.\n"
          "\n"
          "commands:\n",
          out);
    for (size_t i = 0; cli_commands[i]; i++)
        fprintf(out, "  %-12s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
    fprintf(out, "  %-12s %s\n", "help", "help COMMAND: a command's usage (the same as COMMAND --help)");
    fputs("\n`benchgen help COMMAND` or `benchgen COMMAND --help` explains each command.\n"
          "\nexit status (every command):\n",
          out);
    for (size_t i = 0; i < sizeof(exit_table) / sizeof(exit_table[0]); i++)
        fprintf(out, "  %-4d %s\n", exit_table[i].code, exit_table[i].meaning);
}

int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "benchgen %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    print_synopsis(cmd, stderr);
    fprintf(stderr, "(`benchgen help %s` explains every option)\n", cmd->name);
    return CLI_EXIT_USAGE;
}

int cli_fail(const struct cli_command *cmd, int err)
{
    fprintf(stderr, "benchgen %s: %s\n", cmd->name, error_last());
    return error_exit_status(err);
}

int cli_dispatch(const struct cli_command *cmd, int argc, char **argv, int full_argc, char **full_argv)
{
    _Alignas(max_align_t) unsigned char opts[CLI_OPTS_MAX];
    const char **args = calloc((size_t)argc + 1, sizeof(*args));
    if (!args) {
        fputs("benchgen: out of memory\n", stderr);
        return CLI_EXIT_FAILED;
    }
    memset(opts, 0, sizeof(opts));
    if (cmd->defaults)
        cmd->defaults(opts);
    int nargs = 0, ndash = 0, rc;
    error_clear();
    int err = opt_parse(&nargs, &ndash, args, opts, &cmd->spec, argc, argv);
    if (err == 1) {
        cli_print_usage(cmd, stdout);
        rc = CLI_EXIT_OK;
    } else if (err < 0) {
        rc = cli_usage_error(cmd, "%s", error_last());
    } else {
        struct cli_call call = {opts, nargs, args, ndash, full_argc, full_argv};
        rc = cmd->run(&call);
    }
    free(args);
    return rc;
}

/* `help`'s own usage: `help --help`, `help -h`, `help help`. */
static void help_usage(FILE *out)
{
    fputs("usage: benchgen help [COMMAND]\n"
          "\n"
          "Prints COMMAND's usage, options and exit statuses, the same as\n"
          "`benchgen COMMAND --help` (`help env`: every env command); with no COMMAND,\n"
          "the list of commands, the same as `benchgen --help`.\n"
          "\n"
          "exit status:\n"
          "  0    printed\n"
          "  2    no such command\n",
          out);
}

/* `benchgen help [COMMAND...]` */
static int help(int argc, char **argv)
{
    if (argc == 0) {
        cli_print_main_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (argc == 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") || !strcmp(argv[0], "help"))) {
        help_usage(stdout);
        return CLI_EXIT_OK;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s%s%s", argv[0], argc > 1 ? " " : "", argc > 1 ? argv[1] : "");
    const struct cli_command *cmd = cli_find(name);
    if (!cmd && argc == 1) {
        /* `help env`: every env subcommand */
        int found = 0;
        size_t n = strlen(argv[0]);
        for (size_t i = 0; cli_commands[i]; i++)
            if (!strncmp(cli_commands[i]->name, argv[0], n) && cli_commands[i]->name[n] == ' ') {
                if (found++)
                    fputs("\n", stdout);
                cli_print_usage(cli_commands[i], stdout);
            }
        if (found)
            return CLI_EXIT_OK;
    }
    if (!cmd || argc > 2 || (argc == 2 && !strchr(cmd->name, ' '))) {
        fprintf(stderr, "benchgen help: no command '%s' (`benchgen --help` lists them)\n", name);
        return CLI_EXIT_USAGE;
    }
    cli_print_usage(cmd, stdout);
    return CLI_EXIT_OK;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        cli_print_main_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h"))
        return argc == 2 ? (cli_print_main_usage(stdout), CLI_EXIT_OK)
                         : (fprintf(stderr, "benchgen: unexpected argument '%s'\n", argv[2]), CLI_EXIT_USAGE);
    if (!strcmp(name, "help"))
        return help(argc - 2, argv + 2);
    if (!strcmp(name, "--version"))
        name = "version";
    const struct cli_command *cmd = cli_find(name);
    int skip = 1;
    if (!cmd && argc > 2 && argv[2][0] != '-') {
        char two[64];
        snprintf(two, sizeof(two), "%s %s", name, argv[2]);
        if ((cmd = cli_find(two)))
            skip = 2;
    }
    if (!cmd) {
        size_t n = strlen(name);
        for (size_t i = 0; cli_commands[i]; i++)
            if (!strncmp(cli_commands[i]->name, name, n) && cli_commands[i]->name[n] == ' ') {
                /* `env` alone, `env --help`, or `env nosuch` */
                int asked = argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"));
                if (argc > 2 && !asked)
                    fprintf(stderr, "benchgen %s: unknown subcommand '%s'\n\n", name, argv[2]);
                char *sub[] = {(char *)name};
                if (asked)
                    return help(1, sub);
                for (size_t j = 0, k = 0; cli_commands[j]; j++)
                    if (!strncmp(cli_commands[j]->name, name, n) && cli_commands[j]->name[n] == ' ')
                        fprintf(stderr, "%s benchgen %s ...\n", k++ ? "      " : "usage:", cli_commands[j]->name);
                fprintf(stderr, "(`benchgen help %s` explains them)\n", name);
                return CLI_EXIT_USAGE;
            }
        fprintf(stderr, "benchgen: unknown command '%s' (`benchgen --help` lists the commands)\n", name);
        return CLI_EXIT_USAGE;
    }
    return cli_dispatch(cmd, argc - skip, argv + skip, argc, argv);
}
