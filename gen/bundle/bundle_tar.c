/*
 * bundle_tar.c - the deterministic tar.gz writer (see bundle_tar.h).
 */
#include "bundle/bundle_tar.h"
#include "bundle/bundle_fs.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#include <archive.h>
#include <archive_entry.h>

#define BUNDLE_CHUNK 65536

int bundle_tar_write(const char *stage, const char *top, time_t mtime, const char *out_path, int replace)
{
    struct strlist files = {0}, dirs = {0}, all = {0};
    struct archive *a = NULL;
    struct archive_entry *e = NULL;
    char *root = xprintf("%s/%s", stage, top), *tmp = xprintf("%s.tmp.XXXXXX", out_path);
    char *buf = xmalloc(BUNDLE_CHUNK);
    int fd = -1, err = 0;
    if ((err = bundle_fs_walk(root, "", &files, &dirs)) < 0)
        goto done;
    /* one sorted list: "top/", "top/envs/", "top/envs/x.txt", ... */
    char *topdir = xprintf("%s/", top);
    strlist_add(&all, topdir);
    free(topdir);
    for (int pass = 0; pass < 2; pass++) {
        const struct strlist *l = pass ? &files : &dirs;
        for (size_t i = 0; i < l->n; i++) {
            char *p = xprintf("%s/%s", top, l->v[i]);
            strlist_add(&all, p);
            free(p);
        }
    }
    strlist_sort(&all, false);

    if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
        err = error_set(BG_EIO, "cannot create %s: %s", tmp, strerror(errno));
        goto done;
    }
    fchmod(fd, 0644);
    a = archive_write_new();
    e = archive_entry_new();
    if (!a || !e) { /* libarchive's own allocation: the library's failure */
        err = error_set(BG_EGENERIC, "libarchive cannot start %s", a ? "an entry" : "a writer");
        goto done;
    }
    if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
        archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
        archive_write_open_fd(a, fd) != ARCHIVE_OK) {
        err = error_set(BG_EIO, "libarchive: %s", archive_error_string(a));
        goto done;
    }
    for (size_t i = 0; i < all.n && !err; i++) {
        const char *path = all.v[i];
        size_t len = strlen(path);
        bool is_dir = path[len - 1] == '/';
        char *full = xprintf("%s/%s", stage, path);
        struct stat st;
        FILE *f = NULL;
        if (!is_dir && (stat(full, &st) != 0 || !(f = fopen(full, "rbe")))) {
            err = error_set(BG_EIO, "cannot read %s: %s", full, strerror(errno));
            free(full);
            break;
        }
        archive_entry_clear(e);
        archive_entry_set_pathname(e, path);
        archive_entry_set_filetype(e, is_dir ? AE_IFDIR : AE_IFREG);
        archive_entry_set_perm(e, is_dir ? 0755 : 0644);
        archive_entry_set_size(e, is_dir ? 0 : (la_int64_t)st.st_size);
        archive_entry_set_mtime(e, mtime, 0);
        archive_entry_set_uid(e, 0);
        archive_entry_set_gid(e, 0);
        archive_entry_set_uname(e, "root");
        archive_entry_set_gname(e, "root");
        if (archive_write_header(a, e) != ARCHIVE_OK)
            err = error_set(BG_EIO, "libarchive: %s: %s", path, archive_error_string(a));
        size_t n, total = 0;
        while (!err && f && (n = fread(buf, 1, BUNDLE_CHUNK, f)) > 0) {
            if (archive_write_data(a, buf, n) != (la_ssize_t)n)
                err = error_set(BG_EIO, "libarchive: %s: %s", path, archive_error_string(a));
            total += n;
        }
        if (!err && f && (ferror(f) || total != (size_t)st.st_size))
            err = error_set(BG_EIO, "%s changed while it was being bundled", full);
        if (f)
            fclose(f);
        free(full);
    }
    if (!err && archive_write_close(a) != ARCHIVE_OK)
        err = error_set(BG_EIO, "libarchive: %s", archive_error_string(a));
    if (!err && fsync(fd) != 0)
        err = error_set(BG_EIO, "cannot write %s: %s", tmp, strerror(errno));
    if (!err && (replace ? rename(tmp, out_path) : renameat2(AT_FDCWD, tmp, AT_FDCWD, out_path, RENAME_NOREPLACE)) != 0)
        err = errno == EEXIST ? error_set(BG_EUSAGE, "%s appeared while the bundle was written; not replaced (give "
                                                     "--force to replace it)",
                                          out_path)
                              : error_set(BG_EIO, "cannot rename %s to %s: %s", tmp, out_path, strerror(errno));
done:
    if (a)
        archive_write_free(a);
    if (e)
        archive_entry_free(e);
    if (fd >= 0)
        close(fd);
    if (err && tmp && fd >= 0)
        unlink(tmp);
    strlist_free(&files);
    strlist_free(&dirs);
    strlist_free(&all);
    free(root);
    free(tmp);
    free(buf);
    return err;
}

