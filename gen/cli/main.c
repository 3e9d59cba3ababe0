/*
 * main.c - `benchgen`: the command line (cli.h) is the whole program.
 */
#include "cli/cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
