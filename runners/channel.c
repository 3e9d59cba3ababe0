/*
 * channel.c - writing and parsing the worker's JSON-lines report (see channel.h).
 */
#include "runners/channel.h"
#include "base/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

static int send_json(int fd, json_t *obj)
{
    if (!obj)
        return error_set(BG_ENOMEM, "out of memory");
    char *s = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    if (!s)
        return error_set(BG_ENOMEM, "out of memory");
    size_t n = strlen(s);
    s[n] = '\n'; /* json_dumps' NUL becomes the line end: one write() per message */
    const char *p = s;
    size_t left = n + 1;
    int err = 0;
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
    free(s);
    return err;
}

int channel_send_marker(int fd, const char *name, int64_t ns)
{
    return send_json(fd, json_pack("{s:s,s:s,s:I}", "t", "marker", "name", name, "ns", (json_int_t)ns));
}

int channel_send_inputs(int fd, const char *sha256, int64_t bytes)
{
    return send_json(fd, json_pack("{s:s,s:s,s:I}", "t", "inputs", "sha256", sha256, "bytes", (json_int_t)bytes));
}

int channel_send_sample(int fd, int warmup, int64_t ns)
{
    return send_json(fd, json_pack("{s:s,s:i,s:I}", "t", "sample", "warmup", warmup, "ns", (json_int_t)ns));
}

int channel_send_kv(int fd, const char *type, const char *k, const char *v)
{
    /* json_pack fails on invalid UTF-8; a package or fact value should never
     * be that, but a report must not be lost over it. */
    json_t *o = json_pack("{s:s,s:s,s:s}", "t", type, "name", k, "value", v);
    if (!o)
        o = json_pack("{s:s,s:s,s:s}", "t", type, "name", k, "value", "<invalid utf-8>");
    return send_json(fd, o);
}

int channel_send_final(int fd, const char *type, const char *kind, const char *text)
{
    json_t *o = json_pack("{s:s}", "t", type);
    if (!o)
        return error_set(BG_ENOMEM, "out of memory");
    if (kind)
        json_object_set_new(o, "kind", json_string(kind));
    if (text) {
        json_t *s = json_string(text);
        json_object_set_new(o, strcmp(type, "unsupported") == 0 ? "reason" : "detail",
                            s ? s : json_string("<invalid utf-8>"));
    }
    return send_json(fd, o);
}

static int handle_line(struct channel_reader *cr, const char *line, struct result *res)
{
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    if (!o || !json_is_object(o)) {
        json_decref(o);
        return 0;
    }
    const char *t = json_string_value(json_object_get(o, "t"));
    int err = 0;
    if (!t || cr->final) {
        /* nothing after a final message counts */
    } else if (strcmp(t, "sample") == 0) {
        err = result_add_sample(res, (int)json_integer_value(json_object_get(o, "warmup")),
                                (int64_t)json_integer_value(json_object_get(o, "ns")));
    } else if (strcmp(t, "marker") == 0) {
        const char *name = json_string_value(json_object_get(o, "name"));
        if (name)
            err = kvlist_addf(&res->phases, name, "%lld",
                              (long long)json_integer_value(json_object_get(o, "ns")));
    } else if (strcmp(t, "inputs") == 0) {
        const char *h = json_string_value(json_object_get(o, "sha256"));
        if (h && strlen(h) == 64)
            memcpy(res->input_sha256, h, 65);
        res->input_bytes = (int64_t)json_integer_value(json_object_get(o, "bytes"));
    } else if (strcmp(t, "fact") == 0 || strcmp(t, "env") == 0) {
        const char *k = json_string_value(json_object_get(o, "name"));
        const char *v = json_string_value(json_object_get(o, "value"));
        if (k && v)
            err = kvlist_add(t[0] == 'f' ? &res->facts : &res->env, k, v);
    } else if (strcmp(t, "done") == 0 || strcmp(t, "error") == 0 || strcmp(t, "unsupported") == 0) {
        cr->final = 1;
        snprintf(cr->final_type, sizeof(cr->final_type), "%s", t);
        const char *kind = json_string_value(json_object_get(o, "kind"));
        snprintf(cr->final_kind, sizeof(cr->final_kind), "%s", kind ? kind : "");
        const char *text = json_string_value(json_object_get(o, t[0] == 'u' ? "reason" : "detail"));
        if (text) {
            free(res->detail);
            res->detail = strdup(text);
        }
    }
    json_decref(o);
    return err;
}

int channel_feed(struct channel_reader *cr, const char *data, size_t n, struct result *res)
{
    if (cr->len + n + 1 > cr->cap) {
        size_t cap = cr->cap ? cr->cap : 4096;
        while (cap < cr->len + n + 1)
            cap *= 2;
        char *p = realloc(cr->buf, cap);
        if (!p)
            return error_set(BG_ENOMEM, "out of memory");
        cr->buf = p;
        cr->cap = cap;
    }
    memcpy(cr->buf + cr->len, data, n);
    cr->len += n;
    int err = 0;
    size_t start = 0;
    for (size_t i = 0; i < cr->len && !err; i++) {
        if (cr->buf[i] != '\n')
            continue;
        cr->buf[i] = '\0';
        err = handle_line(cr, cr->buf + start, res);
        start = i + 1;
    }
    memmove(cr->buf, cr->buf + start, cr->len - start);
    cr->len -= start;
    return err;
}

void channel_reader_free(struct channel_reader *cr)
{
    free(cr->buf);
    cr->buf = NULL;
    cr->len = cr->cap = 0;
}
