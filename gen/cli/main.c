/*
 * main.c - `benchgen`: the command line (cli.h) is the whole program.
 *
 * SIGTERM ends every command with exit status 130, as Ctrl-C does (README,
 * exit statuses). Commands that stop gracefully (run, cell) install their
 * own handlers over this one while they run; elsewhere the process ends
 * here, and the processes it forked without exec (the report's renderers)
 * die with it (PR_SET_PDEATHSIG, gen/report/report.c).
 */
#include "cli/cli.h"

#include <signal.h>
#include <unistd.h>

static void on_term(int sig)
{
    (void)sig;
    _exit(130);
}

int main(int argc, char **argv)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    return cli_main(argc, argv);
}
