/*
 * xalloc.h - the one policy for allocation failure in the driver: these
 * never return NULL. When memory is exhausted they print
 * "benchgen: out of memory" and exit with status 1 (run.db stays
 * consistent: every cell is its own transaction). New code uses them instead
 * of checking malloc and writing a BG_ENOMEM branch. The cell worker
 * (runners/) keeps reporting failures over its channel instead.
 */
#ifndef BENCHGEN_XALLOC_H
#define BENCHGEN_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* aligned_alloc(align, n); n is rounded up to a multiple of align. */
void *xaligned_alloc(size_t align, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* malloc'd printf. */
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* malloc'd vprintf for builders that remember their first error (table,
 * document): NULL only when the format cannot expand (vsnprintf < 0, e.g.
 * a wide character the locale cannot encode), never for memory. */
char *xvformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Prints the message and exits 1; what every x* function does on failure. */
_Noreturn void xalloc_die(size_t n);

#endif /* BENCHGEN_XALLOC_H */
