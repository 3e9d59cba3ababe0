/*
 * cli.h - the commands of `benchgen`, one file each (cli_<command>.c).
 * Each takes its own argv (argv[0] is the command name) and returns the
 * process exit status.
 */
#ifndef BENCHGEN_CLI_H
#define BENCHGEN_CLI_H

int cli_compare(int argc, char **argv);
int cli_cell(int argc, char **argv);

#endif /* BENCHGEN_CLI_H */
