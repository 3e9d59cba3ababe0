/*
 * verify_log.c - verify's escaped, counted output lines (see verify_log.h).
 */
#include "bundle/verify_log.h"
#include "base/escape.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Appends text to sb with every "prefix/" replaced by with. */
static void replace_prefix(struct strbuf *sb, const char *text, const char *prefix, const char *with)
{
    size_t pl = prefix ? strlen(prefix) : 0;
    const char *p = text, *hit;
    while (pl && (hit = strstr(p, prefix)) && hit[pl] == '/') {
        strbuf_append(sb, p, (size_t)(hit - p));
        strbuf_puts(sb, with);
        p = hit + pl + 1;
    }
    strbuf_puts(sb, p);
}

/* Formats, hides scratch paths, escapes and prints one line after indent. */
static void print_line(const struct verify_log *v, const char *indent, const char *fmt, va_list ap)
{
    FILE *out = v->out;
    struct strbuf esc = {0};
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    char *text = n >= 0 ? xmalloc((size_t)n + 1) : NULL;
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, ap);
    struct strbuf a = {0}, b = {0};
    replace_prefix(&a, text ? text : "(a message that cannot be formatted)", v->root, "");
    replace_prefix(&b, a.buf ? a.buf : "", v->scratch, "<scratch>/");
    escape_terminal(&esc, b.buf ? b.buf : "");
    fprintf(out, "%s%s\n", indent, esc.buf ? esc.buf : "");
    free(text);
    strbuf_free(&a);
    strbuf_free(&b);
    strbuf_free(&esc);
}

static void print_f(const struct verify_log *v, const char *indent, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void print_f(const struct verify_log *v, const char *indent, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_line(v, indent, fmt, ap);
    va_end(ap);
}

void verify_problem(struct verify_log *v, const char *what, const char *path, const char *fmt, ...)
{
    v->problems++;
    if (!v->out)
        return;
    char *why = NULL;
    if (fmt && *fmt) {
        va_list ap, cp;
        va_start(ap, fmt);
        va_copy(cp, ap);
        int n = vsnprintf(NULL, 0, fmt, cp);
        va_end(cp);
        if (n >= 0 && (why = xmalloc((size_t)n + 1)))
            vsnprintf(why, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    /* the kind is benchgen's own word; path and why are escaped */
    print_f(v, "  ", "%-9s %s%s%s", what, path, why ? ": " : "", why ? why : "");
    free(why);
}

void verify_note(struct verify_log *v, const char *fmt, ...)
{
    if (!v->out || v->problems_only)
        return;
    va_list ap;
    va_start(ap, fmt);
    print_line(v, "  ", fmt, ap);
    va_end(ap);
}

void verify_line(struct verify_log *v, const char *fmt, ...)
{
    if (!v->out || v->problems_only)
        return;
    va_list ap;
    va_start(ap, fmt);
    print_line(v, "", fmt, ap);
    va_end(ap);
}
