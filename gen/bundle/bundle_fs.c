/*
 * bundle_fs.c - plain-file chores of bundle and verify (see bundle_fs.h).
 */
#include "bundle/bundle_fs.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int bundle_fs_walk(const char *root, const char *rel, struct strlist *files, struct strlist *dirs)
{
    char *dir = rel[0] ? xprintf("%s/%s", root, rel) : xstrdup(root);
    DIR *d = opendir(dir);
    int err = 0;
    if (!d) {
        err = error_set(BG_EIO, "cannot read directory %s: %s", dir, strerror(errno));
        free(dir);
        return err;
    }
    struct dirent *de;
    while (!err && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *r = rel[0] ? xprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
        char *full = xprintf("%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(full, &st) != 0) {
            err = error_set(BG_EIO, "cannot stat %s: %s", full, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            if (dirs) {
                char *slash = xprintf("%s/", r);
                strlist_add(dirs, slash);
                free(slash);
            }
            if (!err)
                err = bundle_fs_walk(root, r, files, dirs);
        } else if (S_ISREG(st.st_mode)) {
            err = strlist_add(files, r);
        }
        free(r);
        free(full);
    }
    closedir(d);
    free(dir);
    return err;
}

int bundle_fs_write(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wbe");
    if (!f)
        return error_set(BG_EIO, "cannot create %s: %s", path, strerror(errno));
    bool ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : error_set(BG_EIO, "cannot write %s: %s", path, strerror(errno));
}

int bundle_fs_copy(const char *src, const char *dst)
{
    char *buf = NULL;
    size_t len = 0;
    int err = util_read_file(src, &buf, &len);
    if (!err)
        err = bundle_fs_write(dst, buf, len);
    free(buf);
    return err;
}

int bundle_fs_mkparents(const char *root, const char *rel)
{
    char *p = xprintf("%s/%s", root, rel);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    int err = util_mkdir_p(p, 0755);
    free(p);
    return err;
}

bool bundle_fs_same(const char *a, const char *b)
{
    char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    bool same = util_read_file(a, &x, &nx) == 0 && util_read_file(b, &y, &ny) == 0 && nx == ny &&
                memcmp(x, y, nx) == 0;
    free(x);
    free(y);
    return same;
}

char *bundle_fs_tmpdir(const char *what)
{
    const char *base = getenv("TMPDIR");
    char *t = xprintf("%s/benchgen-%s-XXXXXX", base && *base ? base : "/tmp", what);
    if (!mkdtemp(t)) {
        error_set(BG_EIO, "cannot create a temporary directory %s: %s", t, strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

