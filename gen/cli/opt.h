/*
 * opt.h - the one option parser of the command line: every command declares
 * its options as a table, and opt_parse() fills the command's option struct
 * from argv. The same table prints the command's --help, so the parser and
 * the usage text cannot disagree.
 *
 * Accepted forms: `--name VALUE`, `--name=VALUE`, `-x VALUE`, `-xVALUE`,
 * flags `--name` and `-x`; options and positional arguments in any order;
 * `--` ends the options; `-h` and `--help` always mean help.
 *
 * Adding an option is one table line plus a field in the command's struct:
 *
 *     struct run_opts { ...; const char *executor; };
 *     OPT_STR(struct run_opts, executor, "executor", 0, "NAME", "local or slurm"),
 */
#ifndef BENCHGEN_OPT_H
#define BENCHGEN_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_type {
    OPT_IS_FLAG,   /* bool field, set to true */
    OPT_IS_STRING, /* const char * field, borrowed from argv; the last one given wins */
    OPT_IS_INT,    /* int field, an integer in [min, max]; the field holds its default */
    OPT_IS_LIST    /* struct opt_list field: repeatable, every value kept in order */
};

#define OPT_LIST_MAX 32
struct opt_list {
    const char *v[OPT_LIST_MAX];
    size_t n;
};

struct opt {
    const char *name;  /* long name without the dashes: "out" for --out */
    char letter;       /* short name ('o' for -o), 0 for none */
    enum opt_type type;
    size_t offset;     /* of the field in the command's option struct */
    const char *value; /* the value's name in usage ("DIR"); NULL for a flag */
    const char *help;  /* usage text; '\n' continues on the next line */
    long min, max;     /* OPT_IS_INT: the accepted range */
};

/* One table line each; T is the command's option struct. */
#define OPT_FLAG(T, field, name, letter, help) {name, letter, OPT_IS_FLAG, offsetof(T, field), NULL, help, 0, 0}
#define OPT_STR(T, field, name, letter, value, help) \
    {name, letter, OPT_IS_STRING, offsetof(T, field), value, help, 0, 0}
#define OPT_INT(T, field, name, letter, value, min, max, help) \
    {name, letter, OPT_IS_INT, offsetof(T, field), value, help, min, max}
#define OPT_LIST(T, field, name, letter, value, help) \
    {name, letter, OPT_IS_LIST, offsetof(T, field), value, help, 0, 0}

/* What a command accepts: its options and how many positional arguments. */
struct opt_spec {
    const struct opt *opts;
    size_t nopts;
    int min_args, max_args; /* max_args -1: no limit */
    const char *arg_names;  /* "RUN_DIR", "NAME PYTHON": for "missing RUN_DIR" */
};

/* Parses argv[1..argc) (argv[0] is the command) into the struct at dst,
 * whose OPT_IS_INT fields hold their defaults. The positional arguments are
 * stored in order in args (room for argc pointers), their count in *nargs;
 * *ndash gets how many of them came before `--` (*nargs without one).
 * Returns 0, 1 when -h/--help was given (nothing else is checked), or
 * BG_EUSAGE with the reason in error_last(). */
int opt_parse(int *nargs, int *ndash, const char **args, void *dst, const struct opt_spec *spec, int argc, char **argv);

/* The option lines of a usage text ("  -o, --out DIR   help"), aligned,
 * with -h, --help last. */
void opt_print_help(const struct opt_spec *spec, FILE *out);

#endif /* BENCHGEN_OPT_H */
