/*
 * channel.h - the worker-to-parent report: one JSON object per line.
 *
 * Messages (field "t"):
 *   {"t":"marker","name":N,"ns":T}          phase reached (ns since fork)
 *   {"t":"inputs","sha256":H,"bytes":B}
 *   {"t":"sample","warmup":0|1,"ns":D}      one step, in order
 *   {"t":"fact","name":N,"value":V}
 *   {"t":"env","key":K,"value":V}
 *   {"t":"unsupported","reason":R}          final
 *   {"t":"error","kind":"error"|"oom","detail":TRACEBACK}   final
 *   {"t":"done"}                            final
 * Lines are written with one write() each (atomic below PIPE_BUF for short
 * ones; long ones are only ever written by the single child thread), so a
 * killed child leaves at most one partial line, which the parser drops.
 * Anything else that is not a JSON object, a line over CHANNEL_LINE_MAX
 * bytes, or a step duration that is not a positive integer is a protocol
 * violation: the reader records it in `problem` and the parent ends the
 * cell as `error` with that reason. Parsing is linear in the bytes fed.
 *
 * Transport: a pipe the worker inherits as fd 3, or, where no descriptor
 * can cross (a container started by `docker run` or `podman run`), a Unix
 * stream socket in the cell's directory (channel_sock.c, the parent's side;
 * runners/ext/channel_open.c, the worker's). The worker connects once and
 * first sends CHANNEL_HELLO and the cell's one-time token (from
 * $BENCHGEN_CHANNEL_TOKEN) on one line; the parent accepts exactly one
 * connection, refuses one without the token, and then reads it exactly like
 * the pipe: same parser, same limits, same deadlines, same judging.
 *
 * Ownership: struct channel_reader buffers internally; channel_reader_free().
 * struct channel_listener owns its descriptors and socket file;
 * channel_listener_close().
 */
#ifndef BENCHGEN_CHANNEL_H
#define BENCHGEN_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "store/result.h"

#define CHANNEL_LINE_MAX (1 << 20)
#define CHANNEL_SOCKET_NAME "report.sock"      /* in the cell's directory */
#define CHANNEL_HELLO "benchgen-channel "      /* then the token and '\n' */
#define CHANNEL_TOKEN_VAR "BENCHGEN_CHANNEL_TOKEN"
#define CHANNEL_TOKEN_LEN 32                   /* hex characters */

/* Child side (channel_write.c: libc only, it is compiled into the worker's
 * Python module too). Each returns 0, BG_EIO or BG_ENOMEM. */
int channel_send_marker(int fd, const char *name, int64_t ns);
int channel_send_inputs(int fd, const char *sha256, int64_t bytes);
int channel_send_sample(int fd, int warmup, int64_t ns);
int channel_send_kv(int fd, const char *type, const char *k, const char *v); /* "fact" or "env" */
int channel_send_final(int fd, const char *type, const char *kind, const char *text);

/* Parent side. */
struct channel_reader {
    char *buf;
    size_t len, cap;
    size_t scanned;     /* bytes of buf already searched for a newline */
    char problem[200];  /* first protocol violation; "" while none */
    int final;          /* 0 until a final message arrived */
    char final_type[16];/* "done", "error", "unsupported" */
    char final_kind[16];/* "error" or "oom" for an error */
};

/* Feeds n bytes read from the pipe; complete lines update r and res.
 * Returns 0 or BG_ENOMEM; a protocol violation sets cr->problem instead. */
int channel_feed(struct channel_reader *cr, const char *data, size_t n, struct result *res);
void channel_reader_free(struct channel_reader *cr);

/* Parent side of the socket (channel_sock.c). */
struct channel_listener {
    int fd;              /* the listening socket; -1 once closed */
    char path[108];      /* sun_path of the socket file; "" once removed */
    char token[CHANNEL_TOKEN_LEN + 1];
    char hello[sizeof(CHANNEL_HELLO) + CHANNEL_TOKEN_LEN + 1];
    size_t hello_len;    /* bytes of the hello line received so far */
};

/* Creates DIR/report.sock (listening, non-blocking) and a fresh token.
 * Returns 0 or BG_EIO (a path too long for a socket address is BG_EIO too). */
int channel_listen(struct channel_listener *l, const char *dir);
/* Accepts the one connection, then closes the listening socket and removes
 * its file, so no second worker can connect. Returns the connected
 * descriptor (non-blocking, close-on-exec), or -1 when none is pending.
 * *peer receives a description of the peer ("pid 12, uid 0") when the
 * kernel gives one. */
int channel_accept(struct channel_listener *l, char *peer, size_t peer_len);
/* Consumes the hello line from the first bytes of the connection: returns
 * the number of bytes of data it took (the rest is report), or -1 when they
 * are not the hello with this cell's token. *ok becomes 1 once the whole
 * line matched. */
long channel_hello(struct channel_listener *l, const char *data, size_t n, int *ok);
void channel_listener_close(struct channel_listener *l);

#endif /* BENCHGEN_CHANNEL_H */
