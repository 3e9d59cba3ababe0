/*
 * cli.h - the command line of `benchgen`: every command's options, usage
 * text and exit statuses, parsed by one option parser (opt.h).
 *
 * A command is one file, gen/cli/cli_<command>.c, defining a struct
 * cli_command: its name, synopsis, what it does, its option table, how many
 * positional arguments it takes, its exit statuses, and the function that
 * runs it over the library (report_render(), compare_load(),
 * bundle_create(), ...). main.c lists the commands; `benchgen help NAME`,
 * `benchgen NAME --help` and `-h` print the usage built from the same table
 * the parser reads. docs/ARCHITECTURE.md has the recipe for a new command.
 */
#ifndef BENCHGEN_CLI_H
#define BENCHGEN_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "cli/opt.h"

/* The exit statuses of every command (README.md and `benchgen --help`). */
enum cli_exit {
    CLI_EXIT_OK = 0,           /* success */
    CLI_EXIT_FAILED = 1,       /* some cell failed, or an operation failed */
    CLI_EXIT_USAGE = 2,        /* usage error, bad spec, missing file, run directory or environment */
    CLI_EXIT_SLOWER = 3,       /* compare found a slower cell */
    CLI_EXIT_INTERRUPTED = 130 /* interrupted (Ctrl-C, SIGTERM) */
};

/* What a command's run function gets. */
struct cli_call {
    void *opts;        /* the command's option struct, filled by opt_parse() */
    int nargs;         /* positional arguments */
    const char **args;
    int ndash;         /* how many of them came before `--` (nargs without one) */
    int argc;          /* the whole command line, as given to main() */
    char **argv;
};

struct cli_command {
    const char *name;     /* "run", "env sync" */
    const char *synopsis; /* after "benchgen NAME ": "SPEC [options]"; '\n' separates forms */
    const char *summary;  /* one line for `benchgen --help` */
    const char *about;    /* what it does, for its --help */
    const char *exits;    /* its exit statuses, one "CODE meaning" a line */
    struct opt_spec spec;
    size_t opts_size;                 /* sizeof its option struct (at most CLI_OPTS_MAX) */
    void (*defaults)(void *opts);     /* sets non-zero defaults; NULL: all zero */
    int (*run)(const struct cli_call *c); /* returns the exit status */
};
#define CLI_OPTS_MAX 1024

/* The commands, in `benchgen --help` order. */
extern const struct cli_command cli_run, cli_cell, cli_status, cli_collect, cli_show, cli_report, cli_compare, cli_bisect, cli_bundle, cli_verify, cli_env_sync,
    cli_env_list, cli_env_add, cli_info, cli_version;

/* Every command, NULL-terminated. */
extern const struct cli_command *const cli_commands[];

/* The command called name ("env sync"), or NULL. */
const struct cli_command *cli_find(const char *name);

/* `benchgen ARGS...`: finds the command (`help`, `--help` and `--version`
 * included) and runs it; returns the exit status. */
int cli_main(int argc, char **argv);

/* Parses argv (argv[0] is the command's last word) and runs cmd: the exit status. */
int cli_dispatch(const struct cli_command *cmd, int argc, char **argv, int full_argc, char **full_argv);

/* The command's whole --help text. */
void cli_print_usage(const struct cli_command *cmd, FILE *out);

/* `benchgen --help`: the commands, the exit-status table. */
void cli_print_main_usage(FILE *out);

/* Prints "benchgen NAME: <message>", the synopsis and a pointer to --help
 * on stderr; returns CLI_EXIT_USAGE. */
int cli_usage_error(const struct cli_command *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "benchgen NAME: <error_last()>" on stderr; returns the exit status
 * of err (error_exit_status()). */
int cli_fail(const struct cli_command *cmd, int err);

#endif /* BENCHGEN_CLI_H */
