/*
 * util.c - growable strings, key/value lists, SHA-256, files, clocks (see util.h).
 */
#include "base/util.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#ifndef BENCHGEN_SOURCE_DIR
#define BENCHGEN_SOURCE_DIR "."
#endif

/* ---- strbuf ------------------------------------------------------------- */

int strbuf_error(const struct strbuf *sb) { return sb->err; }

int strbuf_append(struct strbuf *sb, const char *s, size_t n)
{
    if (sb->err)
        return sb->err;
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 64;
        while (cap < sb->len + n + 1)
            cap *= 2;
        sb->buf = xrealloc(sb->buf, cap);
        sb->cap = cap;
    }
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
    return 0;
}

int strbuf_puts(struct strbuf *sb, const char *s) { return strbuf_append(sb, s, strlen(s)); }

int strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    int err = sb->err;
    if (err)
        goto done;
    if (n < 0) {
        err = sb->err = error_set(BG_EGENERIC, "bad format");
        goto done;
    }
    if ((err = strbuf_append(sb, "", 0)) < 0)
        goto done;
    if (sb->len + (size_t)n + 1 > sb->cap) {
        size_t cap = sb->cap;
        while (cap < sb->len + (size_t)n + 1)
            cap *= 2;
        sb->buf = xrealloc(sb->buf, cap);
        sb->cap = cap;
    }
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap2);
    sb->len += (size_t)n;
done:
    va_end(ap2);
    return err;
}

char *strbuf_detach(struct strbuf *sb)
{
    if (sb->err) {
        strbuf_free(sb);
        return NULL;
    }
    if (!sb->buf)
        strbuf_append(sb, "", 0);
    char *p = sb->buf;
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return p;
}

void strbuf_free(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    sb->err = 0;
}

char *util_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = xvformat(fmt, ap);
    va_end(ap);
    return p;
}

/* ---- kvlist ------------------------------------------------------------- */

int kvlist_add(struct kvlist *kl, const char *key, const char *value)
{
    if (kl->n == kl->cap) {
        size_t cap = kl->cap ? kl->cap * 2 : 16;
        kl->items = xrealloc(kl->items, cap * sizeof(*kl->items));
        kl->cap = cap;
    }
    kl->items[kl->n].key = xstrdup(key);
    kl->items[kl->n].value = xstrdup(value ? value : "");
    kl->n++;
    return 0;
}

int kvlist_addf(struct kvlist *kl, const char *key, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return kvlist_add(kl, key, buf);
}

const char *kvlist_get(const struct kvlist *kl, const char *key)
{
    for (size_t i = 0; i < kl->n; i++)
        if (strcmp(kl->items[i].key, key) == 0)
            return kl->items[i].value;
    return NULL;
}

void kvlist_free(struct kvlist *kl)
{
    for (size_t i = 0; i < kl->n; i++) {
        free(kl->items[i].key);
        free(kl->items[i].value);
    }
    free(kl->items);
    kl->items = NULL;
    kl->n = kl->cap = 0;
}

/* ---- strlist ------------------------------------------------------------ */

int strlist_add(struct strlist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        l->v = xrealloc(l->v, cap * sizeof(*l->v));
        l->cap = cap;
    }
    l->v[l->n++] = xstrdup(s);
    return 0;
}

bool strlist_contains(const struct strlist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

int strlist_add_unique(struct strlist *l, const char *s)
{
    return strlist_contains(l, s) ? 0 : strlist_add(l, s);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int cmp_str_nocase(const void *a, const void *b)
{
    int c = strcasecmp(*(char *const *)a, *(char *const *)b);
    return c ? c : cmp_str(a, b);
}

void strlist_sort(struct strlist *l, bool nocase)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(l->v[0]), nocase ? cmp_str_nocase : cmp_str);
}

bool strlist_has_sorted(const struct strlist *l, const char *s)
{
    return l->n && bsearch(&s, l->v, l->n, sizeof(*l->v), cmp_str) != NULL;
}

void strlist_free(struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* ---- sha256 ------------------------------------------------------------- */

int sha256_init(struct sha256 *h)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || EVP_DigestInit_ex(c, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(c);
        h->ctx = NULL;
        return error_set(BG_EGENERIC, "sha256: cannot initialise digest");
    }
    h->ctx = c;
    return 0;
}

int sha256_update(struct sha256 *h, const void *data, size_t n)
{
    if (n && EVP_DigestUpdate((EVP_MD_CTX *)h->ctx, data, n) != 1)
        return error_set(BG_EGENERIC, "sha256: update failed");
    return 0;
}

int sha256_final(struct sha256 *h, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    int err = 0;
    if (EVP_DigestFinal_ex((EVP_MD_CTX *)h->ctx, md, &len) != 1 || len != 32) {
        err = error_set(BG_EGENERIC, "sha256: final failed");
        hex[0] = '\0';
    } else {
        for (unsigned i = 0; i < 32; i++)
            snprintf(hex + 2 * i, 3, "%02x", md[i]);
    }
    EVP_MD_CTX_free((EVP_MD_CTX *)h->ctx);
    h->ctx = NULL;
    return err;
}

int sha256_hex(const void *data, size_t n, char hex[65])
{
    struct sha256 h;
    int err;
    if ((err = sha256_init(&h)) < 0)
        return err;
    if ((err = sha256_update(&h, data, n)) < 0) {
        EVP_MD_CTX_free((EVP_MD_CTX *)h.ctx);
        return err;
    }
    return sha256_final(&h, hex);
}

int sha256_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rbe");
    if (!f)
        return error_set(BG_ENOTFOUND, "%s: %s", path, strerror(errno));
    struct sha256 h;
    int err = sha256_init(&h);
    if (err < 0) {
        fclose(f);
        return err;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        if ((err = sha256_update(&h, buf, n)) < 0)
            break;
    if (!err && ferror(f))
        err = error_set(BG_EIO, "%s: read error", path);
    fclose(f);
    if (err < 0) {
        EVP_MD_CTX_free((EVP_MD_CTX *)h.ctx);
        return err;
    }
    return sha256_final(&h, hex);
}

/* ---- files -------------------------------------------------------------- */

int util_read_file(const char *path, char **out, size_t *len)
{
    *out = NULL;
    FILE *f = fopen(path, "rbe");
    if (!f)
        return error_set(errno == ENOENT ? BG_ENOTFOUND : BG_EIO, "%s: %s", path, strerror(errno));
    struct strbuf sb = {0};
    char buf[65536];
    size_t n;
    int err = 0;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        strbuf_append(&sb, buf, n);
    if (ferror(f))
        err = error_set(BG_EIO, "%s: read error", path);
    fclose(f);
    if (err < 0) {
        strbuf_free(&sb);
        return err;
    }
    if (len)
        *len = sb.len;
    *out = strbuf_detach(&sb);
    return 0;
}

static const char *mode_kind(mode_t m)
{
    return S_ISREG(m)    ? "a regular file"
           : S_ISDIR(m)  ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a file";
}

const char *util_file_kind(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? mode_kind(st.st_mode) : NULL;
}

/* "16 MiB", "1.5 GiB", "900 bytes": sizes in the messages below. */
static void human_bytes(char buf[32], unsigned long long n)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0]))
        v /= 1024, u++;
    if (u == 0)
        snprintf(buf, 32, "%llu bytes", n);
    else if (v == (double)(unsigned long long)v)
        snprintf(buf, 32, "%llu %s", (unsigned long long)v, units[u]);
    else
        snprintf(buf, 32, "%.1f %s", v, units[u]);
}

int util_read_regular(const char *path, const char *what, size_t max, char **out, size_t *len)
{
    char have[32], cap[32];
    *out = NULL;
    if (len)
        *len = 0;
    human_bytes(cap, max);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then says what it is. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        const char *kind = util_file_kind(path);
        if (kind && strcmp(kind, "a regular file") != 0)
            return error_set(BG_EUSAGE, "%s: %s, not a regular file (a %s must be one)", path, kind, what);
        return error_set(e == ENOENT || e == ENOTDIR ? BG_ENOTFOUND : BG_EIO, "%s: %s", path, strerror(e));
    }
    struct stat st;
    int err = 0;
    struct strbuf sb = {0};
    if (fstat(fd, &st) < 0) {
        err = error_set(BG_EIO, "%s: %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        err = error_set(BG_EUSAGE, "%s: %s, not a regular file (a %s must be one)", path, mode_kind(st.st_mode),
                        what);
        goto done;
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
        human_bytes(have, (unsigned long long)st.st_size);
        err = error_set(BG_EUSAGE, "%s: %s, larger than the %s a %s may be", path, have, cap, what);
        goto done;
    }
    /* Regular files ignore O_NONBLOCK; the cap still holds for a file that grows while read. */
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            err = error_set(BG_EIO, "%s: %s", path, strerror(errno));
            goto done;
        }
        if (n == 0)
            break;
        if (sb.len + (size_t)n > max) {
            err = error_set(BG_EUSAGE, "%s: more than the %s a %s may be (it grew while read)", path, cap, what);
            goto done;
        }
        strbuf_append(&sb, buf, (size_t)n);
    }
    strbuf_append(&sb, "", 0);
    if (len)
        *len = sb.len;
    *out = strbuf_detach(&sb);
done:
    strbuf_free(&sb);
    close(fd);
    return err;
}

int util_write_file_atomic(const char *path, const void *data, size_t len)
{
    char *tmp = xprintf("%s.tmp.%ld", path, (long)getpid());
    int err = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        err = error_set(BG_EIO, "%s: %s", tmp, strerror(errno));
        goto done;
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            err = error_set(BG_EIO, "%s: %s", tmp, strerror(errno));
            break;
        }
        p += w;
        left -= (size_t)w;
    }
    if (!err && fsync(fd) < 0)
        err = error_set(BG_EIO, "%s: fsync: %s", tmp, strerror(errno));
    close(fd);
    if (!err && rename(tmp, path) < 0)
        err = error_set(BG_EIO, "rename %s: %s", path, strerror(errno));
    if (err)
        unlink(tmp);
done:
    free(tmp);
    return err;
}

int util_mkdir_p(const char *path, unsigned mode)
{
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof(buf))
        return error_set(BG_EIO, "path too long: %s", path);
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
            return error_set(BG_EIO, "mkdir %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, mode) < 0 && errno != EEXIST)
        return error_set(BG_EIO, "mkdir %s: %s", buf, strerror(errno));
    if (!util_is_dir(buf))
        return error_set(BG_EIO, "%s exists and is not a directory", buf);
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int r = (flag == FTW_DP) ? rmdir(path) : unlink(path);
    return r < 0 && errno != ENOENT ? -1 : 0;
}

int util_rm_rf(const char *path)
{
    if (nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
        return error_set(BG_EIO, "cannot remove %s: %s", path, strerror(errno));
    return 0;
}

bool util_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool util_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *util_realpath(const char *path)
{
    char *p = realpath(path, NULL);
    if (!p)
        error_set(BG_ENOTFOUND, "%s: %s", path, strerror(errno));
    return p;
}

/* ---- time --------------------------------------------------------------- */

int64_t util_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void util_close_fds(int *fds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
}

int util_cpus_usable(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
}

void util_pipe_keep_read(int p[2], int *out)
{
    close(p[1]);
    *out = p[0];
    p[0] = p[1] = -1;
    fcntl(*out, F_SETFL, O_NONBLOCK);
}

void util_iso8601_utc(time_t t, char buf[32])
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

const char *util_utc_or_null(char buf[32], time_t t)
{
    if (t <= 0)
        return NULL;
    util_iso8601_utc(t, buf);
    return buf;
}

int util_utc_parse(time_t *out, const char *text)
{
    struct tm tm = {0};
    char again[32];
    const char *end = text ? strptime(text, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
    if (!end || *end)
        return -1;
    time_t t = timegm(&tm);
    /* only the canonical form: printing it back gives the same bytes */
    if (t <= 0 || strcmp(util_utc_or_null(again, t), text) != 0)
        return -1;
    *out = t;
    return 0;
}

const char *util_home_dir(void)
{
    static char home[PATH_MAX];
    if (home[0])
        return home;
    const char *env = getenv("BENCHGEN_HOME");
    if (env && *env) {
        snprintf(home, sizeof(home), "%s", env);
        return home;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char probe[PATH_MAX + 32];
            snprintf(probe, sizeof(probe), "%s/runners/harness.py", exe);
            if (util_is_file(probe)) {
                snprintf(home, sizeof(home), "%s", exe);
                return home;
            }
        }
    }
    snprintf(home, sizeof(home), "%s", BENCHGEN_SOURCE_DIR);
    return home;
}

bool util_is_safe_name(const char *name)
{
    if (!name || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    for (const char *p = name; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-' || c == '+'))
            return false;
    }
    return true;
}

const char *util_signal_name(int sig)
{
    /* Linux's numbering on x86-64 and arm64 (signal(7)). */
    static const char *const names[] = {
        NULL,     "HUP",  "INT",    "QUIT", "ILL",    "TRAP",  "ABRT",  "BUS",  "FPE",   "KILL", "USR1",
        "SEGV",   "USR2", "PIPE",   "ALRM", "TERM",   "STKFLT", "CHLD", "CONT", "STOP",  "TSTP", "TTIN",
        "TTOU",   "URG",  "XCPU",   "XFSZ", "VTALRM", "PROF",  "WINCH", "POLL", "PWR",   "SYS",
    };
    if (sig <= 0 || sig >= (int)(sizeof(names) / sizeof(names[0])))
        return NULL;
    return names[sig];
}

int util_fmt_bytes(char *buf, size_t n, const char *key, const char *value)
{
    size_t kl = key ? strlen(key) : 0;
    if (kl < 6 || strcmp(key + kl - 6, "_bytes") != 0 || !value || !*value)
        return 0;
    for (const char *c = value; *c; c++)
        if (*c < '0' || *c > '9')
            return 0;
    util_fmt_size(buf, n, strtod(value, NULL));
    return 1;
}

void util_fmt_size(char *buf, size_t n, double b)
{
    if (b >= 1024.0 * 1024 * 1024)
        snprintf(buf, n, "%.1f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        snprintf(buf, n, "%.1f MiB", b / (1024.0 * 1024));
    else if (b >= 1024.0)
        snprintf(buf, n, "%.1f KiB", b / 1024.0);
    else
        snprintf(buf, n, "%.0f bytes", b);
}
