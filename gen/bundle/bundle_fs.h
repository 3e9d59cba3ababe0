/*
 * bundle_fs.h - the plain-file chores bundle and verify share: walking a
 * tree, writing and copying files, parent directories, temporary directories.
 * Every function returns 0 or a negative code with one message (error.h).
 */
#ifndef BENCHGEN_BUNDLE_FS_H
#define BENCHGEN_BUNDLE_FS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* Regular files (and, when dirs is not NULL, directories as "rel/") under
 * root/rel, as paths relative to root. Symbolic links and other special
 * files are left out: a bundle holds plain files only. */
int bundle_fs_walk(const char *root, const char *rel, struct strlist *files, struct strlist *dirs);

int bundle_fs_write(const char *path, const void *data, size_t len);
int bundle_fs_copy(const char *src, const char *dst);

/* Creates the parent directories of root/rel. */
int bundle_fs_mkparents(const char *root, const char *rel);

/* True when both files can be read and hold the same bytes. */
bool bundle_fs_same(const char *a, const char *b);

/* A fresh $TMPDIR/benchgen-WHAT-XXXXXX (malloc'd), or NULL with the error set. */
char *bundle_fs_tmpdir(const char *what);

#endif /* BENCHGEN_BUNDLE_FS_H */
