/*
 * bundle_tar.h - writes a staged directory tree as a deterministic tar.gz.
 *
 * Entries sorted by path, every mtime the given time, uid/gid 0 and owner
 * "root", modes 0644/0755, POSIX pax-restricted tar, gzip without a time
 * stamp or file name: the same tree gives the same bytes.
 */
#ifndef BENCHGEN_BUNDLE_TAR_H
#define BENCHGEN_BUNDLE_TAR_H

#include <time.h>

/* Writes stage/top (top/ and everything below it) to out_path through a
 * temporary file beside it, fsync and rename; without replace, a file at
 * out_path is never replaced (BG_EUSAGE). */
int bundle_tar_write(const char *stage, const char *top, time_t mtime, const char *out_path, int replace);

#endif /* BENCHGEN_BUNDLE_TAR_H */
