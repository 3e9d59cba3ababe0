/*
 * verify_log.h - what `benchgen verify` prints: one line per check, one per
 * problem ("  KIND      path: why"), counted. Every line goes through
 * escape_terminal(): names and messages come from the archive, so a crafted
 * entry name can never fake a "verified:" line or send terminal commands.
 */
#ifndef BENCHGEN_VERIFY_LOG_H
#define BENCHGEN_VERIFY_LOG_H

#include <stddef.h>
#include <stdio.h>

struct verify_log {
    FILE *out; /* may be NULL: count only */
    size_t problems;
    int problems_only; /* print only verify_problem()'s lines */
    /* verify's own scratch paths, never printed: "ROOT/x" prints as "x",
     * "SCRATCH/x" as "<scratch>/x" (either may be NULL) */
    const char *root;
    const char *scratch;
};

/* Counts a problem of kind what about path and prints it. */
void verify_problem(struct verify_log *v, const char *what, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints an indented line of information. */
void verify_note(struct verify_log *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints fmt's text at the left margin (the first and last lines). */
void verify_line(struct verify_log *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* BENCHGEN_VERIFY_LOG_H */
