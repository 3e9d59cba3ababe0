/*
 * channel.c - parsing the worker's JSON-lines report (see channel.h; the
 * writing side is channel_write.c, compiled into the worker's module).
 *
 * Hostile input is expected: the workload runs in the process that writes
 * the report and can write to the pipe itself. So every byte is scanned
 * once (no rescans of a partial line), a line longer than
 * CHANNEL_LINE_MAX ends the cell, and what a message says is checked
 * (samples are positive durations; nothing after the final message counts).
 */
#include "runners/channel.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

static void problem(struct channel_reader *cr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the first protocol violation; the parent ends the cell over it. */
static void problem(struct channel_reader *cr, const char *fmt, ...)
{
    if (cr->problem[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cr->problem, sizeof(cr->problem), fmt, ap);
    va_end(ap);
}

static int handle_line(struct channel_reader *cr, const char *line, struct result *res)
{
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    if (!o || !json_is_object(o)) {
        json_decref(o);
        problem(cr, "the report channel carried a line that is not a JSON object (%s)", jerr.text);
        return 0;
    }
    const char *t = json_string_value(json_object_get(o, "t"));
    int err = 0;
    if (!t || cr->final) {
        /* nothing after a final message counts */
    } else if (strcmp(t, "sample") == 0) {
        json_t *ns = json_object_get(o, "ns");
        json_int_t v = json_integer_value(ns);
        if (!json_is_integer(ns) || v <= 0)
            problem(cr, "the report channel carried an invalid step duration (%lld ns)", (long long)v);
        else
            err = result_add_sample(res, json_integer_value(json_object_get(o, "warmup")) != 0, (int64_t)v);
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
            res->detail = xstrdup(text);
        }
    }
    json_decref(o);
    return err;
}

/* Makes room for n more bytes (plus a NUL). */
static void reserve(struct channel_reader *cr, size_t n)
{
    if (cr->len + n + 1 <= cr->cap)
        return;
    size_t cap = cr->cap ? cr->cap : 4096;
    while (cap < cr->len + n + 1)
        cap *= 2;
    cr->buf = xrealloc(cr->buf, cap);
    cr->cap = cap;
}

int channel_feed(struct channel_reader *cr, const char *data, size_t n, struct result *res)
{
    int err = 0;
    if (cr->problem[0])
        return 0; /* the cell is ending: nothing more is read into memory */
    /* Only the unfinished line is kept, so buf never holds more than one
     * line plus one read; bytes before cr->scanned hold no newline. */
    reserve(cr, n);
    memcpy(cr->buf + cr->len, data, n);
    cr->len += n;
    size_t start = 0;
    for (;;) {
        char *nl = memchr(cr->buf + cr->scanned, '\n', cr->len - cr->scanned);
        if (!nl)
            break;
        *nl = '\0';
        size_t end = (size_t)(nl - cr->buf);
        if (!err && end - start <= CHANNEL_LINE_MAX)
            err = handle_line(cr, cr->buf + start, res);
        else if (!err)
            problem(cr, "the report channel carried a line of %zu bytes (the limit is %d)", end - start,
                    CHANNEL_LINE_MAX);
        start = end + 1;
        cr->scanned = start;
        /* Nothing after a violation counts, whether it came in the same
         * read or a later one (the verdict must not depend on how the
         * kernel cut the stream). */
        if (cr->problem[0])
            break;
    }
    cr->scanned = cr->len;
    if (cr->len - start > CHANNEL_LINE_MAX)
        problem(cr, "the report channel carried a line of more than %d bytes", CHANNEL_LINE_MAX);
    if (start > 0) {
        memmove(cr->buf, cr->buf + start, cr->len - start);
        cr->len -= start;
        cr->scanned -= start;
    }
    if (cr->problem[0])
        cr->len = cr->scanned = 0;
    return err;
}

void channel_reader_free(struct channel_reader *cr)
{
    free(cr->buf);
    cr->buf = NULL;
    cr->len = cr->cap = cr->scanned = 0;
}
