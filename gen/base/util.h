/*
 * util.h - small helpers every module needs: growable strings, key/value
 * lists, SHA-256 (OpenSSL libcrypto), files and directories, UTC times.
 *
 * Ownership: a struct strbuf / struct kvlist is owned by its caller, who
 * initialises it with {0} and releases it with strbuf_free()/kvlist_free().
 * Functions returning char * return a malloc'd string the caller frees.
 */
#ifndef BENCHGEN_UTIL_H
#define BENCHGEN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---- growable string ---------------------------------------------------- */
/* A string builder that remembers its first error: after a failed append
 * every later one does nothing and returns that error, so a builder is
 * written with no check per call and one strbuf_error() (or a NULL from
 * strbuf_detach()) at the end. It grows with xrealloc (base/xalloc.h), so
 * running out of memory exits and is never the remembered error: that is a
 * format strbuf_printf cannot expand (BG_EGENERIC), or one a caller sets. */
struct strbuf {
    char *buf; /* NUL-terminated when len > 0 or after any append */
    size_t len, cap;
    int err;   /* the first error (BG_EGENERIC for a bad format); 0 */
};
int strbuf_append(struct strbuf *sb, const char *s, size_t n);
int strbuf_puts(struct strbuf *sb, const char *s);
int strbuf_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The first error of any append so far, or 0. */
int strbuf_error(const struct strbuf *sb);
/* Hands the buffer to the caller (never NULL on success) and resets sb;
 * NULL, with sb released, after an error. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_free(struct strbuf *sb);

/* malloc'd printf; NULL only for a format that cannot expand (xvformat:
 * out of memory exits, base/xalloc.h). New code uses xprintf(). */
char *util_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- key/value list (ordered, duplicates allowed) ----------------------- */
struct kv {
    char *key, *value;
};
struct kvlist {
    struct kv *items;
    size_t n, cap;
};
/* Appends copies of key and value (NULL: ""). Returns 0: running out of
 * memory exits (base/xalloc.h); the int stays for kvlist_addf's format errors. */
int kvlist_add(struct kvlist *kl, const char *key, const char *value);
int kvlist_addf(struct kvlist *kl, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* First value for key, borrowed; NULL when absent. */
const char *kvlist_get(const struct kvlist *kl, const char *key);
void kvlist_free(struct kvlist *kl);

/* ---- string list (owned copies) ---------------------------------------- */
struct strlist {
    char **v;
    size_t n, cap;
};
/* Appends a copy of s; 0 (running out of memory exits, base/xalloc.h). */
int strlist_add(struct strlist *l, const char *s);
/* Appends a copy of s unless an equal string is already there. */
int strlist_add_unique(struct strlist *l, const char *s);
/* Linear search: for lists that are not sorted. */
bool strlist_contains(const struct strlist *l, const char *s);
/* Sorts by strcmp, or case-insensitively (ties by strcmp) when nocase. */
void strlist_sort(struct strlist *l, bool nocase);
/* Binary search: only on a list sorted with strlist_sort(l, false). */
bool strlist_has_sorted(const struct strlist *l, const char *s);
void strlist_free(struct strlist *l);

/* ---- SHA-256 ------------------------------------------------------------ */
struct sha256 {
    void *ctx; /* EVP_MD_CTX */
};
int sha256_init(struct sha256 *h);
int sha256_update(struct sha256 *h, const void *data, size_t n);
/* Writes 64 lowercase hex digits and a NUL; frees the context. */
int sha256_final(struct sha256 *h, char hex[65]);
int sha256_hex(const void *data, size_t n, char hex[65]);
int sha256_file(const char *path, char hex[65]);

/* ---- files -------------------------------------------------------------- */
/* Reads a whole file into a NUL-terminated malloc'd buffer. */
int util_read_file(const char *path, char **out, size_t *len);
/* Reads a file a user names (a spec, a reference table) into a
 * NUL-terminated malloc'd buffer, refusing what is not a regular file by what
 * it is (a FIFO is opened without waiting for a writer, never read) and a
 * file over max bytes (by its size, and again while reading): BG_EUSAGE
 * "PATH: a FIFO, not a regular file (a WHAT must be one)" or "PATH: 2 GiB,
 * larger than the 16 MiB a WHAT may be". A missing file is BG_ENOTFOUND. */
int util_read_regular(const char *path, const char *what, size_t max, char **out, size_t *len);
/* "a regular file", "a directory", "a FIFO", "a character device", "a block
 * device", "a socket" (symlinks followed), or NULL when path cannot be
 * stat'ed (errno set). Static text. */
const char *util_file_kind(const char *path);
/* Writes via a temporary file, fsync and rename, so readers never see half a file. */
int util_write_file_atomic(const char *path, const void *data, size_t len);
int util_mkdir_p(const char *path, unsigned mode);
/* Removes path and everything below it, never following symlinks; a missing
 * path is not an error. */
int util_rm_rf(const char *path);
/* Closes each of the n descriptors that is open (>= 0) and marks it -1. */
void util_close_fds(int *fds, size_t n);
/* The CPUs this process may run on (sched_getaffinity: taskset, cgroup
 * cpusets, Slurm), else the CPUs online; at least 1. */
int util_cpus_usable(void);
/* The parent's side of a pipe after fork: closes the write end, moves the
 * read end to *out (non-blocking) and marks both ends of p -1. */
void util_pipe_keep_read(int p[2], int *out);
bool util_is_dir(const char *path);
bool util_is_file(const char *path);
/* Absolute, normalised path (realpath); the file must exist. */
char *util_realpath(const char *path);

/* ---- time --------------------------------------------------------------- */
/* CLOCK_MONOTONIC in ns: every step duration in benchgen comes from here. */
int64_t util_now_ns(void);
/* "2026-11-30T15:21:00Z" */
void util_iso8601_utc(time_t t, char buf[32]);
/* util_iso8601_utc(t) in buf and buf, or NULL when t <= 0 (no time recorded):
 * how run.db stores a cell's started/finished and how readers print them. */
const char *util_utc_or_null(char buf[32], time_t t);
/* The inverse: 0 and *out when text is exactly what util_iso8601_utc() writes
 * for some t > 0; -1 (no message) for anything else. */
int util_utc_parse(time_t *out, const char *text);

/* Directory holding runners/, data/, templates/ (the checkout or install):
 * $BENCHGEN_HOME, else the directory of the running binary if it holds
 * runners/harness.py, else the source tree the binary was built from. Borrowed. */
const char *util_home_dir(void);

/* Returns true when name is a safe file-name component ([A-Za-z0-9._+-]). */
bool util_is_safe_name(const char *name);

/* A signal's abbreviation without "SIG" ("TERM", "KILL"), or NULL for a
 * number that is not a standard Linux signal: what glibc 2.32's
 * sigabbrev_np() says, kept here so the kit still builds against an older
 * glibc (docs/GPU.md, "glibc"). */
const char *util_signal_name(int sig);

/* A stored byte count as people read it: when key ends in "_bytes" and
 * value is a whole number of bytes, "23.6 GiB" ("%.1f" of GiB, MiB or KiB,
 * or "N bytes") into buf and 1; else 0 and buf untouched. The report, the
 * workbook and `info` show every *_bytes value this way (run.db keeps the
 * number). */
int util_fmt_bytes(char *buf, size_t n, const char *key, const char *value);

/* A byte count b >= 0 as people read it: "%.1f" of GiB, MiB or KiB (the
 * largest that is at least 1), else "N bytes"; into buf (n bytes). */
void util_fmt_size(char *buf, size_t n, double b);

#endif /* BENCHGEN_UTIL_H */
