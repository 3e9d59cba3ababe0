/*
 * verify_extract.h - bounded extraction of a bundle, and the check of its
 * gzip wrapper, for `benchgen verify`.
 *
 * The archive is untrusted. What it may write is bounded before a byte is
 * written: its first file is MANIFEST.json (as `benchgen bundle` writes
 * it, sorted first; files before it, in a bundle packed again by hand, are
 * read under the hard ceilings alone and held to the manifest once it
 * comes); that manifest's sizes then cap each listed file (a
 * file larger than listed is not extracted), SHA256SUMS (the size a correct
 * one has), the total, and the number of entries. The manifest's own claims
 * are held to hard ceilings. Entries that are not plain files or
 * directories (hard or symbolic links, devices, fifos, sockets) and sparse
 * entries are refused, unextracted; so are unsafe paths. Everything refused
 * is a problem named by its path, never an error. Time is linear in the
 * number of entries and bytes: every file is hashed as it streams past,
 * and only MANIFEST.json, SHA256SUMS and run/ (which the report is
 * re-rendered from) are written to disk.
 */
#ifndef BENCHGEN_VERIFY_EXTRACT_H
#define BENCHGEN_VERIFY_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bundle/verify_log.h"
#include "base/util.h"

#define VERIFY_MAX_BYTES (64ULL << 30)      /* hard ceiling on one bundle's content */
#define VERIFY_MAX_ENTRIES ((size_t)1000000) /* hard ceiling on its entries */
#define VERIFY_MAX_MANIFEST (64u << 20)     /* hard ceiling on MANIFEST.json */
#define VERIFY_MAX_SUMS (64u << 20)         /* hard ceiling on SHA256SUMS */
#define VERIFY_MAX_RUNDB (1ULL << 30)        /* hard ceiling on run/run.db */

/* One regular file of the bundle, hashed while it streamed past. */
struct verify_file {
    char *path; /* relative to the top directory */
    char sha256[65];
    uint64_t size;
};

struct verify_extracted {
    char top[256];            /* the bundle's top directory ("" when none) */
    struct verify_file *file; /* every accepted regular file, sorted by path */
    size_t nfiles, cap;
    size_t entries;        /* archive entries seen */
    uint64_t bytes;        /* bytes written */
    bool manifest;         /* MANIFEST.json came and set the limits */
    bool unordered;        /* files came before it (a re-packed bundle) */
    uint64_t limit_bytes;  /* the caps that applied */
    size_t limit_entries;
};

/* The file at rel, or NULL. */
const struct verify_file *verify_find(const struct verify_extracted *x, const char *rel);

/* Extracts path under dir within the limits above. 0 when the archive could
 * be examined (problems are counted in v), or an error code. */
int verify_extract(struct verify_extracted *x, const char *path, const char *dir, struct verify_log *v);
void verify_extracted_free(struct verify_extracted *x);

/* The gzip wrapper: one member with benchgen's header (no file name, no
 * time stamp, OS Unix) whose trailer (CRC-32 and length) matches the data.
 * Decompresses at most max_bytes (reading is streamed; nothing is kept). */
int verify_check_gzip(const char *path, uint64_t max_bytes, struct verify_log *v);

/* How many decompressed bytes the gzip check may read: the tar stream of
 * what MANIFEST.json lists (contents, headers, padding), or 1 MiB when the
 * bundle gave no usable manifest. */
uint64_t verify_gzip_budget(const struct verify_extracted *x);

/* A path from an archive or SHA256SUMS that stays inside the extraction
 * directory: not empty, not absolute, no "." or ".." component, no empty
 * component. */
bool verify_path_safe(const char *p);

#endif /* BENCHGEN_VERIFY_EXTRACT_H */
