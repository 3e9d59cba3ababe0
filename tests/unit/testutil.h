/*
 * testutil.h - helpers the unit tests share (after cmocka.h): a file's
 * text (by path, or by directory and name), one entry of a zip (an .xlsx),
 * and the SHA-256 of every file of a tree; a tree is removed with
 * util_rm_rf(). Static inline, so a test that uses none of them pays nothing.
 */
#ifndef BENCHGEN_TESTUTIL_H
#define BENCHGEN_TESTUTIL_H

#include <ftw.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "base/error.h"
#include "base/util.h"

/* The whole file, NUL-terminated; fails the test when it cannot be read.
 * Not inlined: GCC 12 then takes the returned text for a pointer to the
 * local that util_read_file() filled (a false -Wdangling-pointer). */
__attribute__((noinline, unused)) static char *test_read_text(const char *path)
{
    char *buf = NULL;
    size_t len = 0;
    if (util_read_file(path, &buf, &len) < 0)
        fail_msg("cannot read %s: %s", path, error_last());
    return buf;
}

/* The file name in dir, as test_read_text(). */
__attribute__((unused)) static char *test_read_in(const char *dir, const char *name)
{
    char *path = util_printf("%s/%s", dir, name), *buf = test_read_text(path);
    free(path);
    return buf;
}

/* One entry of a zip file (an .xlsx), NUL-terminated; NULL when absent. */
static inline char *test_zip_entry(const char *zip, const char *name)
{
    struct archive *a = archive_read_new();
    struct archive_entry *e;
    char *out = NULL;
    archive_read_support_format_zip(a);
    if (archive_read_open_filename(a, zip, 65536) != ARCHIVE_OK)
        fail_msg("cannot open %s", zip);
    while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
        if (strcmp(archive_entry_pathname(e), name) != 0)
            continue;
        struct strbuf sb = {0};
        char buf[65536];
        la_ssize_t n;
        while ((n = archive_read_data(a, buf, sizeof(buf))) > 0)
            strbuf_append(&sb, buf, (size_t)n);
        strbuf_append(&sb, "", 0);
        out = strbuf_detach(&sb);
        break;
    }
    archive_read_free(a);
    return out;
}

static struct strbuf test_hashes_;
static const char *test_hash_root_;

static inline int test_hash_cb_(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag != FTW_F)
        return 0;
    char hex[65];
    if (sha256_file(path, hex) < 0)
        return -1;
    return strbuf_printf(&test_hashes_, "%s %s\n", path + strlen(test_hash_root_), hex) < 0 ? -1 : 0;
}

static inline int test_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* SHA-256 of every file under dir: "relative-path hash\n" lines, sorted
 * (nftw's order is the directory's); *nfiles gets their number. */
static inline char *test_tree_hashes(const char *dir, size_t *nfiles)
{
    memset(&test_hashes_, 0, sizeof(test_hashes_));
    test_hash_root_ = dir;
    assert_int_equal(nftw(dir, test_hash_cb_, 16, FTW_PHYS), 0);
    char *text = strbuf_detach(&test_hashes_), *lines[4096];
    size_t n = 0;
    for (char *p = strtok(text, "\n"); p && n < 4096; p = strtok(NULL, "\n"))
        lines[n++] = p;
    qsort(lines, n, sizeof(lines[0]), test_cmp_str);
    struct strbuf out = {0};
    for (size_t i = 0; i < n; i++)
        strbuf_printf(&out, "%s\n", lines[i]);
    free(text);
    *nfiles = n;
    return strbuf_detach(&out);
}

#endif /* BENCHGEN_TESTUTIL_H */
