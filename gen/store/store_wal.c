/*
 * store_wal.c - the check that run.db-wal belongs to run.db (see
 * store_wal.h). The WAL format is SQLite's (https://sqlite.org/fileformat2.html,
 * "The Write-Ahead Log"): a 32-byte header, then frames of a 24-byte header
 * and one page. Read in one pass, one frame at a time.
 */
#include "store/store_wal.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WAL_MAGIC 0x377f0682u /* | 1: checksums over big-endian words */
#define WAL_VERSION 3007000u
#define USER_VERSION_AT 60 /* page 1's header: user_version, big-endian */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* SQLite's WAL checksum over n bytes (n a multiple of 8), continuing s. */
static void wal_sum(uint32_t s[2], const unsigned char *p, size_t n, bool big)
{
    for (size_t i = 0; i + 8 <= n; i += 8) {
        s[0] += (big ? be32(p + i) : le32(p + i)) + s[1];
        s[1] += (big ? be32(p + i + 4) : le32(p + i + 4)) + s[0];
    }
}

static int refuse(const char *db_path, const char *why)
{
    return error_set(BG_EDAMAGED,
                     "%s-wal does not belong to %s (%s); not read, and neither file was changed (move "
                     "run.db-wal away to read run.db as it is)",
                     db_path, db_path, why);
}

/* Reads run.db's header: *id, or BG_EDAMAGED when it is not SQLite's. */
static int read_db_header(const char *db_path, uint32_t *id)
{
    unsigned char h[100];
    int fd = open(db_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), err = 0;
    if (fd < 0)
        return error_set(BG_EIO, "%s: %s", db_path, strerror(errno));
    ssize_t n = pread(fd, h, sizeof(h), 0);
    if (n < 0)
        err = error_set(BG_EIO, "%s: %s", db_path, strerror(errno));
    else if (n < (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16) != 0)
        err = error_set(BG_EDAMAGED, "%s: damaged, or not a benchgen run (not a SQLite database)", db_path);
    else
        *id = be32(h + USER_VERSION_AT);
    close(fd);
    return err;
}

int store_wal_check(const char *db_path, bool strict, uint32_t *db_id, bool *frames)
{
    char *wal = xprintf("%s-wal", db_path);
    unsigned char hdr[32], *frame = NULL;
    int err = 0, fd = -1;
    struct stat st;
    *db_id = 0;
    *frames = false;
    if ((err = read_db_header(db_path, db_id)) < 0)
        goto done;
    if (lstat(wal, &st) != 0) {
        if (errno != ENOENT)
            err = error_set(BG_EIO, "%s: %s", wal, strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        err = refuse(db_path, "it is not a regular file");
        goto done;
    }
    if ((fd = open(wal, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0 || fstat(fd, &st) != 0) {
        err = error_set(BG_EIO, "%s: %s", wal, strerror(errno));
        goto done;
    }
    /* SQLite ignores a WAL whose header is short or invalid: so does this */
    if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || (be32(hdr) & ~1u) != WAL_MAGIC ||
        be32(hdr + 4) != WAL_VERSION)
        goto done;
    bool big = be32(hdr) & 1;
    uint32_t page = be32(hdr + 8), s[2] = {0, 0};
    if (page == 1)
        page = 65536;
    if (page < 512 || page > 65536 || (page & (page - 1)))
        goto done;
    wal_sum(s, hdr, 24, big);
    if (s[0] != be32(hdr + 24) || s[1] != be32(hdr + 28))
        goto done;
    size_t fsize = 24 + page;
    frame = xmalloc(fsize);
    /* per transaction: whether it held page 1, and whether that page
     * carried another id; only committed transactions count */
    bool txn_page1 = false, txn_foreign = false;
    uint32_t other = 0;
    for (off_t off = 32; off + (off_t)fsize <= st.st_size; off += (off_t)fsize) {
        if (pread(fd, frame, fsize, off) != (ssize_t)fsize)
            break;
        uint32_t pgno = be32(frame), commit = be32(frame + 4);
        if (pgno == 0 || memcmp(frame + 8, hdr + 16, 8) != 0)
            break; /* a frame of an older WAL generation: SQLite stops here too */
        wal_sum(s, frame, 8, big);
        wal_sum(s, frame + 24, page, big);
        if (s[0] != be32(frame + 16) || s[1] != be32(frame + 20))
            break;
        if (pgno == 1) {
            uint32_t id = be32(frame + 24 + USER_VERSION_AT);
            txn_page1 = true;
            if (id != *db_id) {
                txn_foreign = true;
                other = id;
            }
        }
        if (!commit)
            continue;
        *frames = true;
        if ((strict || *db_id) && txn_foreign) {
            char why[96];
            snprintf(why, sizeof(why), "its pages carry WAL id %08x, run.db's is %08x", other, *db_id);
            err = refuse(db_path, why);
            goto done;
        }
        if (*db_id && !txn_page1) {
            err = refuse(db_path, "it holds a transaction that benchgen did not write");
            goto done;
        }
        txn_page1 = txn_foreign = false;
    }
done:
    if (fd >= 0)
        close(fd);
    free(frame);
    free(wal);
    return err;
}

/* Copies from into the new file to (O_EXCL), streamed. */
static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    int err = 0, in = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), out = -1;
    ssize_t n = 0;
    if (in < 0 || (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
        return error_set(BG_EIO, "cannot copy %s: %s", from, strerror(errno));
    while ((n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    if (n < 0 || close(out) != 0)
        err = error_set(BG_EIO, "cannot copy %s to %s: %s", from, to, strerror(errno ? errno : EIO));
    close(in);
    return err;
}

int store_wal_snapshot(char **dir_out, const char *db_path, const char *db_name)
{
    const char *base = getenv("TMPDIR");
    char *dir = xprintf("%s/benchgen-read-XXXXXX", base && *base ? base : "/tmp");
    char *wal = xprintf("%s-wal", db_path), *to = NULL, *to_wal = NULL;
    int err = 0;
    *dir_out = NULL;
    if (!mkdtemp(dir)) {
        err = error_set(BG_EIO, "cannot create a temporary directory %s: %s", dir, strerror(errno));
        free(dir);
        goto done;
    }
    *dir_out = dir;
    to = xprintf("%s/%s", dir, db_name);
    to_wal = xprintf("%s-wal", to);
    if ((err = copy_file(db_path, to)) == 0)
        err = copy_file(wal, to_wal);
done:
    free(wal);
    free(to);
    free(to_wal);
    return err;
}
