/*
 * xalloc.c - allocations that never return NULL (see xalloc.h).
 */
#include "base/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void xalloc_die(size_t n)
{
    /* voice-ok: the one out-of-memory message (redis-style): nothing that
     * allocates, a listener's formatting included, can run here */
    fprintf(stderr, "benchgen: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        xalloc_die(n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        xalloc_die(count * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        xalloc_die(n);
    return q;
}

void *xaligned_alloc(size_t align, size_t n)
{
    size_t m = (n + align - 1) / align * align;
    void *p = aligned_alloc(align, m ? m : align);
    if (!p)
        xalloc_die(n);
    return p;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        xalloc_die(strlen(s) + 1);
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (!p)
        xalloc_die(n + 1);
    return p;
}

char *xvformat(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        return NULL;
    char *s = xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvformat(fmt, ap);
    va_end(ap);
    if (!s)
        xalloc_die(0);
    return s;
}
