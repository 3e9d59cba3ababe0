/*
 * verify_extract.c - bounded extraction and the gzip check of `benchgen
 * verify` (see verify_extract.h for the rules).
 */
#include "bundle/verify_extract.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <jansson.h>
#include <zlib.h>

#define CHUNK 65536
#define DB_HEADER 100 /* SQLite's database header */
#define SUM_LINE(pathlen) (64 + 2 + (uint64_t)(pathlen) + 1) /* "<sha256>  <path>\n" */
#define TAR_OVERHEAD_PER_ENTRY 2560                          /* header, pax header, padding */
#define TAR_OVERHEAD_FIXED 20480                             /* end blocks, record padding */

/* MANIFEST.json's files as a sorted (path, size) index. */
struct listed {
    char *path;
    uint64_t size;
    bool seen; /* extracted (or hashed) once already: a second entry is a DUPLICATE */
};

struct limits {
    struct listed *files;
    size_t n;
    uint64_t sums_size; /* the size a correct SHA256SUMS has */
    bool sums_seen;
};

static int cmp_listed(const void *a, const void *b)
{
    return strcmp(((const struct listed *)a)->path, ((const struct listed *)b)->path);
}

static struct listed *find_listed(const struct limits *l, const char *path)
{
    struct listed key = {(char *)path, 0, false};
    return l->n ? bsearch(&key, l->files, l->n, sizeof(*l->files), cmp_listed) : NULL;
}

static void limits_free(struct limits *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->files[i].path);
    free(l->files);
    memset(l, 0, sizeof(*l));
}

bool verify_path_safe(const char *p)
{
    if (!p[0] || p[0] == '/')
        return false;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if ((n == 0 && e && e[1]) || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        if (!e)
            break;
        s = e + 1;
    }
    return true;
}

/* Reads the extracted MANIFEST.json into l and sets x's limits: 0, 1 when
 * it cannot bound the rest (a problem counted). */
static int read_limits(const char *manifest_path, uint64_t manifest_size, struct limits *l,
                        struct verify_extracted *x, struct verify_log *v)
{
    json_error_t je;
    json_t *m = json_load_file(manifest_path, 0, &je), *files = json_object_get(m, "files"), *f;
    struct strlist dirs = {0};
    uint64_t total = manifest_size;
    size_t i, ndirs = 0;
    int rc = 1;
    if (!json_is_array(files)) {
        verify_problem(v, "MANIFEST", "MANIFEST.json",
                       "not JSON or no \"files\" list, so nothing else can be bounded; extraction stopped");
        goto done;
    }
    if (json_array_size(files) > VERIFY_MAX_ENTRIES) {
        verify_problem(v, "TOO LARGE", "MANIFEST.json", "lists %zu files, more than the ceiling of %zu",
                       json_array_size(files), VERIFY_MAX_ENTRIES);
        goto done;
    }
    l->files = xcalloc(json_array_size(files) + 1, sizeof(*l->files));
    l->sums_size = SUM_LINE(strlen("MANIFEST.json"));
    json_array_foreach(files, i, f)
    {
        const char *path = json_string_value(json_object_get(f, "path"));
        json_t *size = json_object_get(f, "size");
        if (!path || !json_is_integer(size) || json_integer_value(size) < 0 || !verify_path_safe(path))
            continue; /* the manifest check names it later */
        uint64_t sz = (uint64_t)json_integer_value(size);
        if (sz > VERIFY_MAX_BYTES || total + sz > VERIFY_MAX_BYTES) {
            verify_problem(v, "TOO LARGE", "MANIFEST.json", "claims more than the ceiling of %llu bytes",
                           (unsigned long long)VERIFY_MAX_BYTES);
            goto done;
        }
        total += sz;
        l->sums_size += SUM_LINE(strlen(path));
        l->files[l->n].path = xstrdup(path);
        l->files[l->n++].size = sz;
        for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
            char *d = xprintf("%.*s", (int)(s - path), path);
            strlist_add(&dirs, d);
            free(d);
        }
    }
    if (l->sums_size > VERIFY_MAX_SUMS) {
        verify_problem(v, "TOO LARGE", "MANIFEST.json",
                       "lists files whose SHA256SUMS would exceed the ceiling of %llu bytes",
                       (unsigned long long)VERIFY_MAX_SUMS);
        goto done;
    }
    qsort(l->files, l->n, sizeof(*l->files), cmp_listed);
    strlist_sort(&dirs, false);
    for (size_t k = 0; k < dirs.n; k++)
        ndirs += k == 0 || strcmp(dirs.v[k], dirs.v[k - 1]) != 0;
    /* top/, the files, their directories, SHA256SUMS, MANIFEST.json, and a
     * few empty directories (run/logs/ of a run without logs) */
    x->limit_entries = 1 + l->n + ndirs + 2 + 16;
    x->limit_bytes = total + l->sums_size;
    x->manifest = true;
    rc = 0;
done:
    strlist_free(&dirs);
    json_decref(m);
    return rc;
}

/* Why the first bytes of a bundled run.db (n of them; the entry holds size)
 * are not the header of the file `benchgen bundle` writes, or NULL: SQLite's
 * magic, a valid page size, a rollback-journal file (the bundle's copy is
 * taken out of WAL mode), and a page count that is current and matches the
 * entry's size exactly. */
static const char *db_header_why(const unsigned char *h, size_t n, uint64_t size)
{
    if (n < DB_HEADER || memcmp(h, "SQLite format 3", 16) != 0)
        return "not a SQLite database";
    uint32_t page = (uint32_t)h[16] << 8 | h[17];
    if (page == 1)
        page = 65536;
    if (page < 512 || page > 65536 || (page & (page - 1)) || h[21] != 64 || h[22] != 32 || h[23] != 32)
        return "a damaged SQLite header";
    if (h[18] != 1 || h[19] != 1)
        return "a database in WAL mode (a bundle's run.db is a self-contained file)";
    uint32_t pages = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
    if (memcmp(h + 24, h + 92, 4) != 0 || (uint64_t)pages * page != size)
        return "a SQLite header whose page count does not match the file's size";
    return NULL;
}

/* Where an entry's data goes: hashed always, written to path when path is
 * set (the file is created only once data is accepted), and for run.db the
 * header held back and checked before anything is written. */
struct sink {
    const char *path;   /* NULL: hash only */
    bool check_db;      /* run/run.db: db_header_why() first */
    uint64_t size;      /* the entry's size, as its tar header says */
    int fd;
    int open_errno;     /* set when path could not be created */
    bool io_ok;
    const char *why;    /* set when the header was refused */
    unsigned char head[DB_HEADER];
    size_t nhead;
};

static bool sink_write(struct sink *k, const void *p, size_t n)
{
    if (!k->path || !k->io_ok || k->open_errno)
        return true;
    if (k->fd < 0 && (k->fd = open(k->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0) {
        k->open_errno = errno;
        return true;
    }
    k->io_ok = write(k->fd, p, n) == (ssize_t)n;
    return k->io_ok;
}

/* Hashes the entry's data into f, at most cap bytes, and writes it to k.
 * 1 when the archive stream broke (a problem), -1 when more than cap came,
 * 2 when run.db's header was refused (k->why; nothing written), 0 when done. */
static int copy_data(struct archive *a, struct sink *k, uint64_t cap, struct verify_file *f, char *buf)
{
    struct sha256 h;
    la_ssize_t n;
    if (sha256_init(&h) < 0)
        return error_code();
    while ((n = archive_read_data(a, buf, CHUNK)) > 0) {
        if (f->size + (uint64_t)n > cap)
            break;
        sha256_update(&h, buf, (size_t)n);
        f->size += (uint64_t)n;
        size_t off = 0;
        if (k->check_db && k->nhead < DB_HEADER) { /* held back until the header is whole */
            off = DB_HEADER - k->nhead < (size_t)n ? DB_HEADER - k->nhead : (size_t)n;
            memcpy(k->head + k->nhead, buf, off);
            k->nhead += off;
            if (k->nhead < DB_HEADER)
                continue;
            if ((k->why = db_header_why(k->head, k->nhead, k->size))) {
                sha256_final(&h, f->sha256); /* releases the context */
                return 2;
            }
            sink_write(k, k->head, k->nhead);
        }
        if ((size_t)n > off)
            sink_write(k, buf + off, (size_t)n - off);
    }
    sha256_final(&h, f->sha256);
    if (n == 0 && k->check_db && k->nhead < DB_HEADER && (k->why = db_header_why(k->head, k->nhead, k->size)))
        return 2;
    return n > 0 ? -1 : n < 0 ? 1 : 0;
}

/* Only these are read back from disk (the report is re-rendered from
 * run.db, which names its logs but never reads them); the rest is checked
 * by its hash as it streams past. */
static bool needs_disk(const char *rel)
{
    return !strcmp(rel, "MANIFEST.json") || !strcmp(rel, "SHA256SUMS") || !strcmp(rel, "run/run.db");
}

/* A bundle's run/ holds run.db and logs/, as `benchgen bundle` writes it. */
static bool run_entry_ok(const char *rel)
{
    return strncmp(rel, "run/", 4) != 0 || !strcmp(rel, "run/run.db") || !strncmp(rel, "run/logs/", 9);
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const struct verify_file *)a)->path, ((const struct verify_file *)b)->path);
}

const struct verify_file *verify_find(const struct verify_extracted *x, const char *rel)
{
    struct verify_file key = {(char *)rel, "", 0};
    return x->nfiles ? bsearch(&key, x->file, x->nfiles, sizeof(key), cmp_file) : NULL;
}

static int add_file(struct verify_extracted *x, const struct verify_file *f)
{
    if (x->nfiles == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 64;
        x->file = xrealloc(x->file, cap * sizeof(*x->file));
        x->cap = cap;
    }
    x->file[x->nfiles] = *f;
    x->file[x->nfiles].path = xstrdup(f->path);
    x->nfiles++;
    return 0;
}

/* Sorts the files; a path the bundle holds twice keeps its first copy. */
static void sort_files(struct verify_extracted *x, struct verify_log *v)
{
    if (x->nfiles < 2)
        return;
    qsort(x->file, x->nfiles, sizeof(*x->file), cmp_file); /* ties keep no order: both copies are suspect */
    size_t k = 1;
    for (size_t i = 1; i < x->nfiles; i++) {
        if (!strcmp(x->file[i].path, x->file[k - 1].path)) {
            verify_problem(v, "DUPLICATE", x->file[i].path, "the bundle holds this path twice");
            free(x->file[i].path);
        } else {
            x->file[k++] = x->file[i];
        }
    }
    x->nfiles = k;
}

/* Why an entry is refused unextracted, or NULL when it is a plain file or
 * directory. */
static const char *refusal(struct archive_entry *e)
{
    mode_t type = archive_entry_filetype(e);
    if (archive_entry_hardlink(e))
        return "a hard link; not extracted";
    if (type == AE_IFLNK)
        return "a symbolic link; not extracted";
    if (type != AE_IFREG && type != AE_IFDIR)
        return "a device, fifo or socket; not extracted";
    if (type == AE_IFREG && archive_entry_sparse_count(e) > 0)
        return "a sparse entry (holes that expand on extraction); not extracted";
    return NULL;
}

/* MANIFEST.json came after the first `before` files (x->file[0..before),
 * the manifest itself last): those are held to it now as they would have
 * been while extracting (listed, once), and the limits become what was read
 * plus what the manifest lists that has not come yet. */
static void late_manifest(struct verify_extracted *x, struct limits *l, size_t before, struct verify_log *v)
{
    size_t k = 0;
    for (size_t i = 0; i < before; i++) {
        const char *rel = x->file[i].path;
        struct listed *f = find_listed(l, rel);
        bool keep = true;
        if (!strcmp(rel, "SHA256SUMS"))
            l->sums_seen = true;
        else if (f)
            f->seen = true; /* a second copy is named by sort_files() */
        else {
            verify_problem(v, "UNLISTED", rel, "in the bundle but not in MANIFEST.json");
            keep = false;
        }
        if (keep)
            x->file[k++] = x->file[i];
        else
            free(x->file[i].path);
    }
    x->file[k++] = x->file[before]; /* MANIFEST.json */
    x->nfiles = k;
    uint64_t rest = l->sums_seen ? 0 : l->sums_size;
    size_t left = l->sums_seen ? 0 : 1;
    for (size_t i = 0; i < l->n; i++)
        if (!l->files[i].seen) {
            rest += l->files[i].size;
            left++;
        }
    x->limit_bytes = x->bytes + rest;
    x->limit_entries = x->entries + left + (x->limit_entries - l->n - 2); /* + its directories and slack */
    verify_note(v, "note: MANIFEST.json is not the bundle's first file (re-packed, not as `benchgen bundle` "
                   "writes it): the %zu file%s before it were read under the hard ceilings, then held to it",
                before, before == 1 ? "" : "s");
}

int verify_extract(struct verify_extracted *x, const char *path, const char *dir, struct verify_log *v)
{
    struct archive *a = archive_read_new();
    struct limits lim = {0};
    char *buf = xmalloc(CHUNK), *last = NULL, *parent = NULL;
    int err = 0;
    memset(x, 0, sizeof(*x));
    x->limit_entries = VERIFY_MAX_ENTRIES;
    x->limit_bytes = VERIFY_MAX_MANIFEST;
    if (!a) { /* libarchive's own allocation: the library's failure */
        err = error_set(BG_EGENERIC, "libarchive cannot start a reader");
        goto done;
    }
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    if (archive_read_open_filename(a, path, CHUNK) != ARCHIVE_OK) {
        err = error_set(util_is_file(path) ? BG_EIO : BG_ENOTFOUND, "%s: %s", path, archive_error_string(a));
        goto done;
    }
    struct archive_entry *e;
    int rc;
    bool stopped = false;
    while (!err && !stopped && ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN)) {
        const char *name = archive_entry_pathname(e);
        if (++x->entries > x->limit_entries) {
            verify_problem(v, "TOO MANY", name ? name : "(no name)",
                           "more than %zu entries, all MANIFEST.json accounts for; extraction stopped",
                           x->limit_entries);
            stopped = true;
            break;
        }
        if (!name || !verify_path_safe(name)) {
            verify_problem(v, "UNSAFE", name ? name : "(no name)", "entry path leaves the bundle; not extracted");
            continue;
        }
        size_t tl = strcspn(name, "/");
        if (!x->top[0] && tl < sizeof(x->top))
            snprintf(x->top, sizeof(x->top), "%.*s", (int)tl, name);
        if (strncmp(name, x->top, tl) != 0 || strlen(x->top) != tl) {
            verify_problem(v, "UNEXPECTED", name, "outside the bundle's top directory %s/", x->top);
            continue;
        }
        const char *rel = name[tl] ? name + tl + 1 : "", *why = refusal(e);
        if (why) {
            verify_problem(v, "REFUSED", name, "%s", why);
            continue;
        }
        free(last);
        char *full = xprintf("%s/%s", dir, name);
        last = xstrdup(name);
        if (archive_entry_filetype(e) == AE_IFDIR) {
            if (!rel[0] || !strcmp(rel, "run")) /* only run/run.db is read back from disk */
                util_mkdir_p(full, 0755);
            free(full);
            continue;
        }
        /* a regular file: how large may it be? */
        uint64_t cap, size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
        struct listed *l = NULL;
        if (!x->manifest) {
            /* Before MANIFEST.json (a bundle re-packed by hand, `tar czf`):
             * only the hard ceilings bound an entry; a file is hashed as it
             * streams past and held to the manifest once it comes. */
            if (!strcmp(rel, "MANIFEST.json"))
                cap = VERIFY_MAX_MANIFEST;
            else if (!strcmp(rel, "SHA256SUMS"))
                cap = VERIFY_MAX_SUMS;
            else
                cap = VERIFY_MAX_BYTES;
            if (strcmp(rel, "MANIFEST.json") != 0 && !x->unordered) {
                x->unordered = true;
                x->limit_bytes = VERIFY_MAX_BYTES;
            }
        } else if (!strcmp(rel, "SHA256SUMS") && !lim.sums_seen) {
            cap = lim.sums_size;
            lim.sums_seen = true;
        } else if ((l = find_listed(&lim, rel)) && !l->seen) {
            cap = l->size;
            l->seen = true;
        } else if (l || !strcmp(rel, "SHA256SUMS") || !strcmp(rel, "MANIFEST.json")) {
            /* before any size check: the second copy is what is wrong with it */
            verify_problem(v, "DUPLICATE", rel, "the bundle holds this path twice; the second is not extracted");
            free(full);
            continue;
        } else {
            verify_problem(v, "UNLISTED", rel, "in the bundle but not in MANIFEST.json; not extracted");
            free(full);
            continue;
        }
        if (!run_entry_ok(rel)) {
            verify_problem(v, "UNEXPECTED", rel, "a bundle's run/ holds run.db and logs/ only; not extracted");
            free(full);
            continue;
        }
        bool is_db = !strcmp(rel, "run/run.db");
        if (is_db && cap > VERIFY_MAX_RUNDB)
            cap = VERIFY_MAX_RUNDB; /* a hard ceiling, whatever MANIFEST.json says */
        if (size > cap || x->bytes + size > x->limit_bytes) {
            /* stopping (rather than skipping) spares decompressing the rest */
            verify_problem(v, "TOO LARGE", rel, "%llu bytes, more than %s allows (%llu); extraction stopped",
                           (unsigned long long)size,
                           is_db && cap == VERIFY_MAX_RUNDB ? "the ceiling on run.db" : "MANIFEST.json",
                           (unsigned long long)cap);
            free(full);
            stopped = true;
            break;
        }
        struct sink k = {.fd = -1, .io_ok = true, .check_db = is_db, .size = size};
        if (needs_disk(rel)) {
            char *slash = strrchr(full, '/');
            *slash = '\0';
            if (!parent || strcmp(parent, full) != 0) { /* one mkdir -p per directory, not per file */
                util_mkdir_p(full, 0755);
                free(parent);
                parent = xstrdup(full);
            }
            *slash = '/';
            k.path = full;
        }
        struct verify_file f = {(char *)rel, "", 0};
        int broke = copy_data(a, &k, cap, &f, buf);
        if (k.fd >= 0 && close(k.fd) != 0)
            k.io_ok = false;
        x->bytes += f.size;
        if (broke == 2) {
            verify_problem(v, "NOT A RUN", rel, "%s; not extracted, extraction stopped", k.why);
            free(full);
            stopped = true;
            break;
        }
        if (broke > 0) {
            verify_problem(v, "DAMAGED", rel, "%s", archive_error_string(a));
            free(full);
            stopped = true; /* the stream is unusable past this point */
            break;
        }
        if (broke < 0) {
            verify_problem(v, "TOO LARGE", rel, "more data than its header and MANIFEST.json say; extraction stopped");
            free(full);
            stopped = true;
            break;
        }
        if (k.open_errno == EEXIST) { /* a second copy before MANIFEST.json came */
            verify_problem(v, "DUPLICATE", rel, "the bundle holds this path twice; the second is not extracted");
            free(full);
            continue;
        }
        if (k.open_errno) {
            verify_problem(v, "UNREADABLE", rel, "%s", strerror(k.open_errno));
            free(full);
            continue;
        }
        if (!k.io_ok) {
            err = error_set(BG_EIO, "cannot extract %s: %s", rel, strerror(errno));
            free(full);
            break;
        }
        if ((err = add_file(x, &f)) == 0 && !x->manifest && !strcmp(rel, "MANIFEST.json")) {
            size_t before = x->nfiles - 1; /* the files that came before it */
            int r = read_limits(full, f.size, &lim, x, v);
            stopped = r != 0;
            err = r < 0 ? r : 0;
            if (!stopped && !err && before)
                late_manifest(x, &lim, before, v);
        }
        free(full);
    }
    if (!err && !stopped && rc != ARCHIVE_EOF)
        verify_problem(v, "DAMAGED", last ? last : path, "the archive cannot be read %s: %s",
                       last ? "after this entry" : "at all", archive_error_string(a));
    sort_files(x, v);
done:
    if (a)
        archive_read_free(a);
    limits_free(&lim);
    free(buf);
    free(last);
    free(parent);
    return err;
}

void verify_extracted_free(struct verify_extracted *x)
{
    for (size_t i = 0; i < x->nfiles; i++)
        free(x->file[i].path);
    free(x->file);
    memset(x, 0, sizeof(*x));
}

/* ---- the gzip wrapper ------------------------------------------------------ */

int verify_check_gzip(const char *path, uint64_t max_bytes, struct verify_log *v)
{
    unsigned char b[10], t[8];
    struct archive *a = NULL;
    char *buf = NULL;
    int err = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        err = error_set(BG_EIO, "%s: %s", path, strerror(errno));
        goto done;
    }
    if (st.st_size < 18 || pread(fd, b, 10, 0) != 10 || pread(fd, t, 8, st.st_size - 8) != 8 || b[0] != 0x1f ||
        b[1] != 0x8b || b[2] != 8) {
        verify_problem(v, "GZIP", path, "not a gzip file");
        goto done;
    }
    if (b[3] != 0 || b[4] || b[5] || b[6] || b[7] || (b[8] != 0 && b[8] != 2 && b[8] != 4) || b[9] != 3) {
        verify_problem(v, "GZIP", path,
                       "the gzip header is not as `benchgen bundle` writes it (flags, time stamp or OS)");
        goto done;
    }
    a = archive_read_new();
    buf = xmalloc(CHUNK);
    if (!a) { /* libarchive's own allocation: the library's failure */
        err = error_set(BG_EGENERIC, "libarchive cannot start a reader");
        goto done;
    }
    archive_read_support_filter_gzip(a);
    archive_read_support_format_raw(a);
    struct archive_entry *e;
    uLong crc = crc32(0L, Z_NULL, 0);
    uint64_t total = 0;
    la_ssize_t n = -1;
    if (archive_read_open_filename(a, path, CHUNK) == ARCHIVE_OK && archive_read_next_header(a, &e) == ARCHIVE_OK)
        while ((n = archive_read_data(a, buf, CHUNK)) > 0 && total <= max_bytes) {
            crc = crc32(crc, (const Bytef *)buf, (uInt)n);
            total += (uint64_t)n;
        }
    if (total > max_bytes) {
        verify_problem(v, "GZIP", path,
                       "decompresses to more than the %llu bytes its MANIFEST.json accounts for; not read further",
                       (unsigned long long)max_bytes);
        goto done;
    }
    if (n < 0) {
        verify_problem(v, "GZIP", path, "the compressed data is damaged: %s", archive_error_string(a));
        goto done;
    }
    uint32_t want_crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
    uint32_t want_len = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 | (uint32_t)t[7] << 24;
    if ((uint32_t)crc != want_crc || (uint32_t)total != want_len)
        verify_problem(v, "GZIP", path,
                       "the gzip trailer (CRC-32, length) does not match the data, or bytes follow it");
done:
    if (a)
        archive_read_free(a);
    if (fd >= 0)
        close(fd);
    free(buf);
    return err;
}

uint64_t verify_gzip_budget(const struct verify_extracted *x)
{
    if (!x->manifest) /* what extraction read, when it read files without one */
        return x->bytes + (uint64_t)x->entries * TAR_OVERHEAD_PER_ENTRY + TAR_OVERHEAD_FIXED > (1u << 20)
                   ? x->bytes + (uint64_t)x->entries * TAR_OVERHEAD_PER_ENTRY + TAR_OVERHEAD_FIXED
                   : 1u << 20;
    return x->limit_bytes + (uint64_t)x->limit_entries * TAR_OVERHEAD_PER_ENTRY + TAR_OVERHEAD_FIXED;
}
