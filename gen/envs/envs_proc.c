/*
 * envs_proc.c - the installer subprocesses of the environments (see
 * envs_proc.h).
 */
#include "envs/envs_proc.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void envs_proc_status(int status, char *buf, size_t len)
{
    if (WIFEXITED(status))
        snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, len, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, len, "wait status %d", status);
}

void envs_proc_child_signals(void)
{
    /* Ignored signals and the blocked mask survive exec: give the child the defaults so Ctrl-C stops it. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
}

int envs_proc_run(char *const argv[], struct strbuf *cap, int *status)
{
    int fds[2] = {-1, -1};
    if (cap && pipe2(fds, O_CLOEXEC) < 0)
        return error_set(BG_EIO, "pipe: %s", strerror(errno));
    fflush(NULL); /* the child must not inherit and repeat buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        if (cap) {
            close(fds[0]);
            close(fds[1]);
        }
        return error_set(BG_EIO, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            close(devnull);
        }
        if (cap)
            dup2(fds[1], STDOUT_FILENO);
        envs_proc_child_signals();
        execvp(argv[0], argv);
        /* voice-ok: the forked child's own stderr, after a failed exec */
        dprintf(STDERR_FILENO, "benchgen: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int err = 0;
    if (cap) {
        close(fds[1]);
        char buf[4096];
        for (;;) {
            ssize_t n = read(fds[0], buf, sizeof(buf));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            if (!err)
                err = strbuf_append(cap, buf, (size_t)n);
        }
        close(fds[0]);
    }
    while (waitpid(pid, status, 0) < 0) {
        if (errno != EINTR)
            return error_set(BG_EIO, "waitpid: %s", strerror(errno));
    }
    return err;
}

