/*
 * channel_open.c - the worker's end of the report channel (see ext.h).
 *
 * The parent offers the inherited pipe on fd 3, the socket in the cell's
 * directory, or both (runners/worker.c decides from the environment's
 * prefix). A pipe on fd 3 wins when offered: it is what arrives when the
 * prefix passes descriptors through (none, apptainer). Otherwise the worker
 * connects to the socket, presents the token, and moves the connection to
 * fd 3 when that is free, so a cell sees its channel where it always does.
 *
 * The socket is also the worker's lifeline: a container runtime's client
 * that the parent kills (`docker run`) does not stop its container, so a
 * thread here waits for the parent's end to close and then ends the
 * process, which ends the container (its PID 1 or its init's child). The
 * thread's descriptor sits at the top of the descriptor limit, out of reach
 * of a workload that closes "all" its descriptors up to 1024; one that
 * closes it anyway only loses the lifeline (the parent's deadlines still
 * end the cell; its container is then the runtime's to stop).
 */
#include "runners/ext/ext.h"
#include "runners/channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define LIFELINE_FD_MIN 100

static void *lifeline(void *arg)
{
    int fd = (int)(intptr_t)arg;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLRDHUP};
        int n = poll(&p, 1, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (p.revents & POLLNVAL))
            return NULL; /* the workload closed it: the parent's deadlines remain */
        if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
            _exit(70); /* the parent is gone or done with this cell */
    }
}

__attribute__((format(printf, 3, 4))) static int fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* The lifeline's own descriptor, as high as the limit allows, so that a
 * workload closing "all" its descriptors (closerange(0, 1024)) keeps it. */
static int lifeline_fd(int s)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > LIFELINE_FD_MIN &&
        rl.rlim_cur <= (1u << 20)) {
        for (int fd = (int)rl.rlim_cur - 1; fd > (int)rl.rlim_cur - 16; fd--)
            if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
                return dup3(s, fd, O_CLOEXEC) == fd ? fd : -1;
    }
    return fcntl(s, F_DUPFD_CLOEXEC, LIFELINE_FD_MIN);
}

static int connect_socket(const char *path, char *why, size_t len)
{
    const char *token = getenv(CHANNEL_TOKEN_VAR);
    if (!token || strlen(token) != CHANNEL_TOKEN_LEN)
        return fail(why, len, "the report descriptor (fd 3) did not arrive and %s holds no token for the report "
                    "socket %s: pass the cell's environment into the container (e.g. --env-file {cell}/env)",
                    CHANNEL_TOKEN_VAR, path);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(a.sun_path))
        return fail(why, len, "the report socket path %s is too long", path);
    memcpy(a.sun_path, path, strlen(path) + 1);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return fail(why, len, "socket: %s", strerror(errno));
    int rc;
    do
        rc = connect(s, (struct sockaddr *)&a, sizeof(a));
    while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        char e[128];
        snprintf(e, sizeof(e), "%s", strerror(errno));
        close(s);
        return fail(why, len, "the report descriptor (fd 3) did not arrive and the report socket %s cannot be "
                    "reached (%s): does the prefix bind-mount the cell's directory {cell} at the same path?",
                    path, e);
    }
    char hello[sizeof(CHANNEL_HELLO) + CHANNEL_TOKEN_LEN + 1];
    int n = snprintf(hello, sizeof(hello), "%s%s\n", CHANNEL_HELLO, token);
    for (int off = 0; off < n;) {
        ssize_t w = write(s, hello + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(s);
            return fail(why, len, "cannot write to the report socket %s: %s", path, strerror(errno));
        }
        off += (int)w;
    }
    return s;
}

int ext_channel_open(const char *fdspec, const char *socket_path, char *why, size_t len)
{
    if (fdspec && strcmp(fdspec, "-") != 0) {
        int fd = atoi(fdspec);
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
            return fd;
    }
    if (!socket_path || !*socket_path) {
        snprintf(why, len, "the report descriptor (fd %s) did not arrive and no report socket was offered: run "
                 "this environment with a prefix that passes descriptors, or name {cell} in its prefix",
                 fdspec ? fdspec : "3");
        return -1;
    }
    int s = connect_socket(socket_path, why, len);
    if (s < 0)
        return -1;
    unsetenv(CHANNEL_TOKEN_VAR); /* nothing the workload starts needs it */
    /* Where the cell's channel always is, when nothing else holds fd 3. */
    if (fcntl(3, F_GETFD) < 0 && errno == EBADF && dup3(s, 3, O_CLOEXEC) == 3) {
        close(s);
        s = 3;
    }
    int watch = lifeline_fd(s);
    pthread_t t;
    pthread_attr_t attr;
    if (watch >= 0 && pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        if (pthread_create(&t, &attr, lifeline, (void *)(intptr_t)watch) != 0)
            close(watch);
        pthread_attr_destroy(&attr);
    } else if (watch >= 0) {
        close(watch);
    }
    return s;
}
