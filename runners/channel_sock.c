/*
 * channel_sock.c - the parent's side of the report socket (see channel.h).
 *
 * A container started by `docker run` or `podman run` inherits no
 * descriptor, so the report pipe on fd 3 cannot reach it. What can is a
 * file: the cell's directory, bind-mounted by the environment's prefix,
 * holds a Unix stream socket. The parent listens there, accepts exactly one
 * connection, checks that its first line carries the cell's one-time token
 * (the kernel's SO_PEERCRED only identifies the peer where both sides share
 * a PID namespace and user map, which a container need not), and from then
 * on reads it as it reads the pipe.
 */
#include "runners/channel.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int make_token(char out[CHANNEL_TOKEN_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[CHANNEL_TOKEN_LEN / 2];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return error_set(BG_EIO, "getrandom: %s", strerror(errno));
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[CHANNEL_TOKEN_LEN] = '\0';
    return 0;
}

int channel_listen(struct channel_listener *l, const char *dir)
{
    memset(l, 0, sizeof(*l));
    l->fd = -1;
    int err = make_token(l->token);
    if (err < 0)
        return err;
    snprintf(l->hello, sizeof(l->hello), "%s%s\n", CHANNEL_HELLO, l->token);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int n = snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, CHANNEL_SOCKET_NAME);
    if (n < 0 || (size_t)n >= sizeof(a.sun_path))
        return error_set(BG_EIO, "the report socket %s/%s is longer than a socket address allows (%zu bytes): "
                                 "set TMPDIR to a shorter directory", dir, CHANNEL_SOCKET_NAME,
                         sizeof(a.sun_path) - 1);
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0)
        return error_set(BG_EIO, "socket: %s", strerror(errno));
    if (bind(l->fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l->fd, 1) < 0) {
        err = error_set(BG_EIO, "cannot listen on %s: %s", a.sun_path, strerror(errno));
        channel_listener_close(l);
        return err;
    }
    snprintf(l->path, sizeof(l->path), "%s", a.sun_path);
    return 0;
}

int channel_accept(struct channel_listener *l, char *peer, size_t peer_len)
{
    if (l->fd < 0)
        return -1;
    int c = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0)
        return -1;
    if (peer && peer_len) {
        struct ucred cred;
        socklen_t len = sizeof(cred);
        if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
            snprintf(peer, peer_len, "pid %ld, uid %ld", (long)cred.pid, (long)cred.uid);
        else
            snprintf(peer, peer_len, "peer unknown");
    }
    /* Exactly one connection: nobody else gets in after the first. */
    close(l->fd);
    l->fd = -1;
    if (l->path[0])
        unlink(l->path);
    l->path[0] = '\0';
    return c;
}

long channel_hello(struct channel_listener *l, const char *data, size_t n, int *ok)
{
    size_t want = strlen(l->hello), take = 0;
    *ok = 0;
    while (take < n && l->hello_len < want) {
        if (data[take] != l->hello[l->hello_len])
            return -1;
        take++;
        l->hello_len++;
    }
    *ok = l->hello_len == want;
    return (long)take;
}

void channel_listener_close(struct channel_listener *l)
{
    if (l->fd >= 0)
        close(l->fd);
    l->fd = -1;
    if (l->path[0])
        unlink(l->path);
    l->path[0] = '\0';
}
