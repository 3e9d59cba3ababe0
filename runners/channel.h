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
 * Ownership: struct channel_reader buffers internally; channel_reader_free().
 */
#ifndef BENCHGEN_CHANNEL_H
#define BENCHGEN_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "store/result.h"

#define CHANNEL_LINE_MAX (1 << 20)

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

#endif /* BENCHGEN_CHANNEL_H */
