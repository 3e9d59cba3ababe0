/*
 * channel_write.c - the worker side of the report channel (see channel.h).
 *
 * Compiled into the `_benchgen` extension module (runners/ext), so it uses
 * nothing but libc: no jansson, no allocation for the short messages a step
 * sends. Strings are escaped as JSON requires; invalid UTF-8 cannot reach
 * here (the module encodes Python strings itself, replacing errors).
 */
#include "runners/channel.h"
#include "base/error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct line {
    char *buf;
    size_t len, cap;
    char small[512];
    int failed;
};

static void line_init(struct line *l)
{
    l->buf = l->small;
    l->len = 0;
    l->cap = sizeof(l->small);
    l->failed = 0;
}

static void line_put(struct line *l, const char *s, size_t n)
{
    if (l->failed)
        return;
    if (l->len + n + 2 > l->cap) {
        size_t cap = l->cap * 2;
        while (cap < l->len + n + 2)
            cap *= 2;
        char *p = l->buf == l->small ? malloc(cap) : realloc(l->buf, cap);
        if (!p) {
            l->failed = 1;
            return;
        }
        if (l->buf == l->small)
            memcpy(p, l->small, l->len);
        l->buf = p;
        l->cap = cap;
    }
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

static void line_raw(struct line *l, const char *s) { line_put(l, s, strlen(s)); }

/* A JSON string literal: quotes, backslashes and control characters escaped. */
static void line_str(struct line *l, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    line_put(l, "\"", 1);
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        line_put(l, run, (size_t)(s - run));
        char esc[7] = {'\\', (char)c, 0};
        if (c == '\n')
            esc[1] = 'n';
        else if (c == '\t')
            esc[1] = 't';
        else if (c < 0x20) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            esc[6] = 0;
        }
        line_raw(l, esc);
        run = s + 1;
    }
    line_put(l, run, (size_t)(s - run));
    line_put(l, "\"", 1);
}

/* Writes the line (plus '\n') with as few write()s as the pipe allows. */
static int line_send(int fd, struct line *l)
{
    int err = 0;
    if (l->failed) {
        /* Not the x-family: this runs inside the worker's Python, which
         * raises MemoryError and reports it, rather than exiting unheard. */
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    l->buf[l->len++] = '\n';
    const char *p = l->buf;
    size_t left = l->len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            err = error_set(BG_EIO, "report pipe: %s", strerror(errno));
            break;
        }
        p += w;
        left -= (size_t)w;
    }
done:
    if (l->buf != l->small)
        free(l->buf);
    return err;
}

int channel_send_marker(int fd, const char *name, int64_t ns)
{
    struct line l;
    char num[32];
    line_init(&l);
    line_raw(&l, "{\"t\":\"marker\",\"name\":");
    line_str(&l, name);
    snprintf(num, sizeof(num), ",\"ns\":%" PRId64 "}", ns);
    line_raw(&l, num);
    return line_send(fd, &l);
}

int channel_send_inputs(int fd, const char *sha256, int64_t bytes)
{
    struct line l;
    char num[48];
    line_init(&l);
    line_raw(&l, "{\"t\":\"inputs\",\"sha256\":");
    line_str(&l, sha256);
    snprintf(num, sizeof(num), ",\"bytes\":%" PRId64 "}", bytes);
    line_raw(&l, num);
    return line_send(fd, &l);
}

int channel_send_sample(int fd, int warmup, int64_t ns)
{
    char buf[80];
    int n = snprintf(buf, sizeof(buf), "{\"t\":\"sample\",\"warmup\":%d,\"ns\":%" PRId64 "}\n", warmup ? 1 : 0, ns);
    const char *p = buf;
    size_t left = (size_t)n;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return error_set(BG_EIO, "report pipe: %s", strerror(errno));
        p += w;
        left -= (size_t)w;
    }
    return 0;
}

int channel_send_kv(int fd, const char *type, const char *k, const char *v)
{
    struct line l;
    line_init(&l);
    line_raw(&l, "{\"t\":");
    line_str(&l, type);
    line_raw(&l, ",\"name\":");
    line_str(&l, k);
    line_raw(&l, ",\"value\":");
    line_str(&l, v);
    line_raw(&l, "}");
    return line_send(fd, &l);
}

int channel_send_final(int fd, const char *type, const char *kind, const char *text)
{
    struct line l;
    line_init(&l);
    line_raw(&l, "{\"t\":");
    line_str(&l, type);
    if (kind) {
        line_raw(&l, ",\"kind\":");
        line_str(&l, kind);
    }
    if (text) {
        line_raw(&l, strcmp(type, "unsupported") == 0 ? ",\"reason\":" : ",\"detail\":");
        line_str(&l, text);
    }
    line_raw(&l, "}");
    return line_send(fd, &l);
}
