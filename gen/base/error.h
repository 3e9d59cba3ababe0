/*
 * error.h - error codes and the last error message, shared by every module.
 *
 * Functions in benchgen return 0 on success or one of the negative codes
 * below. The human-readable reason is kept in one process-wide buffer
 * (benchgen is single-threaded in the parent; each cell worker is its own
 * process), set with error_set() at the place that knows what went wrong and
 * read by whoever finally reports it. Callers propagate codes; they do not
 * overwrite the message unless they add context with error_prefix().
 */
#ifndef BENCHGEN_ERROR_H
#define BENCHGEN_ERROR_H

enum bg_err {
    BG_OK = 0,
    BG_EGENERIC = -1,  /* anything not covered below */
    BG_ENOMEM = -2,    /* allocation failed */
    BG_EIO = -3,       /* file or pipe I/O failed */
    BG_ESPEC = -4,     /* matrix spec is invalid: message is file:line:col: ... */
    BG_EUSAGE = -5,    /* bad command line */
    BG_ENOTFOUND = -6, /* file, run, environment or cell does not exist */
    BG_EDB = -7,       /* SQLite error */
    BG_EPYTHON = -8,   /* Python environment or interpreter problem */
    BG_EINTR = -9,     /* interrupted by the user (SIGINT/SIGTERM) */
    BG_EDAMAGED = -10  /* stored data is damaged or not what it claims (run.db not a run, a foreign
                          run.db-wal): bad input, exit 2 */
};

/* Sets the message (printf-style) and returns code, so callers can write
 * `return error_set(BG_EIO, "open %s: %s", path, strerror(errno));`. */
int error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prepends "context: " to the current message; returns code. */
int error_prefix(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message; never NULL (empty when none was set). Borrowed. */
const char *error_last(void);

/* The code given to the last error_set(), or BG_OK. */
int error_code(void);

void error_clear(void);

/* Exit status for a code (the table in gen/cli/cli.h): 2 for usage and spec
 * errors and for what does not exist (a file, run directory, environment),
 * 130 for an interruption, 1 otherwise. */
int error_exit_status(int code);

#endif /* BENCHGEN_ERROR_H */
