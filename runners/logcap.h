/*
 * logcap.h - a cell's log with a size cap: the head and the tail are kept.
 *
 * The worker's stdout and stderr are a pipe the parent drains into the log
 * file. The first limit/2 bytes go straight to the file; after that the
 * last limit/2 bytes are kept in memory and written, behind a line saying
 * how many bytes were dropped, when the cell ends. A workload printing 1 GB
 * leaves a log of at most `limit` bytes plus that line.
 *
 * Ownership: logcap_open() opens the file; logcap_close() writes the tail,
 * closes and frees.
 */
#ifndef BENCHGEN_LOGCAP_H
#define BENCHGEN_LOGCAP_H

#include <stddef.h>
#include <stdint.h>

#define LOGCAP_DEFAULT ((uint64_t)64 << 20)

struct logcap {
    int fd;
    uint64_t limit;    /* 0: LOGCAP_DEFAULT */
    uint64_t written;  /* head bytes written so far */
    uint64_t dropped;  /* bytes neither in the head nor in the kept tail */
    char *ring;        /* the tail, once the head is full */
    size_t ring_cap, ring_pos, ring_len;
};

/* Opens (creates or appends to) path. 0 or BG_EIO. */
int logcap_open(struct logcap *lc, const char *path, uint64_t limit);

/* Takes n bytes of the worker's output. */
void logcap_write(struct logcap *lc, const char *buf, size_t n);

/* Writes the kept tail; returns the number of bytes dropped. */
uint64_t logcap_close(struct logcap *lc);

#endif /* BENCHGEN_LOGCAP_H */
