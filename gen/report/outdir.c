/*
 * outdir.c - writing an output directory safely (see outdir.h).
 */
#include "report/outdir.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "store/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* ---- where a render may write --------------------------------------------- */

/* The deepest existing directory on the way to path, resolved; malloc'd. */
static char *existing_dir(const char *path)
{
    char *p = xstrdup(path);
    for (;;) {
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            char *r = realpath(p, NULL);
            free(p);
            return r ? r : xstrdup("/");
        }
        char *slash = strrchr(p, '/');
        if (!slash) {
            free(p);
            return realpath(".", NULL);
        }
        if (slash == p) {
            free(p);
            return xstrdup("/");
        }
        *slash = '\0';
    }
}

int outdir_check_path(const char *path, int is_file)
{
    char *start = xstrdup(path);
    if (is_file) { /* the directory the file goes into */
        char *slash = strrchr(start, '/');
        if (slash == start)
            start[1] = '\0';
        else if (slash)
            *slash = '\0';
        else
            strcpy(start, ".");
    }
    char *dir = existing_dir(start);
    free(start);
    if (!dir)
        return error_set(BG_EIO, "cannot resolve %s: %s", path, strerror(errno));
    int err = 0;
    for (;;) {
        struct stat st;
        char *db = xprintf("%s/%s", strcmp(dir, "/") ? dir : "", RUNDIR_DB_NAME);
        int found = lstat(db, &st) == 0;
        free(db);
        if (found) {
            err = error_set(BG_EUSAGE,
                            "%s is inside the run directory %s: benchgen never writes its outputs into a run; "
                            "choose another --out",
                            path, dir);
            break;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || !strcmp(dir, "/"))
            break;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
    free(dir);
    return err;
}

void outdir_run_id(const struct rundata *rd, char hex[65])
{
    struct strbuf sb = {0};
    strbuf_printf(&sb, "benchgen-run-id/1%c%s%c%s%c%s%c%s%c", 0, rd->name ? rd->name : "", 0,
                  rd->created_utc ? rd->created_utc : "", 0, rd->spec_sha256 ? rd->spec_sha256 : "", 0,
                  rd->command_line ? rd->command_line : "", 0);
    for (size_t i = 0; i < rd->env.n; i++)
        strbuf_printf(&sb, "%s=%s%c", rd->env.items[i].key, rd->env.items[i].value ? rd->env.items[i].value : "", 0);
    if (strbuf_error(&sb) < 0 || sha256_hex(sb.buf, sb.len, hex) < 0)
        snprintf(hex, 65, "%s", "unknown");
    strbuf_free(&sb);
}

/* ---- the lock --------------------------------------------------------------- */

/* "benchgen report (pid N on H since T)" from the lock file's text. */
static char *holder(int fd)
{
    char buf[512] = "";
    for (int i = 0; i < 20 && !strchr(buf, '\n'); i++) { /* the holder may not have written it yet */
        ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
        buf[k > 0 ? k : 0] = '\0';
        if (!strchr(buf, '\n'))
            nanosleep(&(struct timespec){0, 25 * 1000 * 1000}, NULL);
    }
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] ? xstrdup(buf) : xstrdup("another benchgen process");
}

/* Takes dir/.benchgen-lock. The file is removed by its holder at the end, so
 * a lock taken on a file that is no longer the one at that name is retried. */
static int lock_dir(int *fd_out, const char *dir, const char *kind)
{
    char *path = xprintf("%s/%s", dir, OUTDIR_LOCK);
    int err = 0, fd = -1;
    for (int tries = 0; !err && tries < 50; tries++) {
        if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0) {
            err = error_set(BG_EIO, "cannot open %s: %s", path, strerror(errno));
            break;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno == EWOULDBLOCK) {
                char *who = holder(fd);
                err = error_set(BG_EUSAGE, "%s is being written by %s; wait for it to finish, or choose another --out",
                                dir, who);
                free(who);
            } else {
                err = error_set(BG_EIO, "cannot lock %s: %s", path, strerror(errno));
            }
            break;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
            break; /* ours */
        close(fd);
        fd = -1;
    }
    if (!err && fd < 0)
        err = error_set(BG_EIO, "cannot lock %s: it keeps changing", path);
    if (!err) {
        char host[256] = "", since[32];
        gethostname(host, sizeof(host) - 1);
        util_iso8601_utc(time(NULL), since);
        char *line = xprintf("benchgen %s (pid %ld on %s since %s)\n", kind, (long)getpid(), host, since);
        if (ftruncate(fd, 0) != 0 || pwrite(fd, line, strlen(line), 0) < 0) {
            /* the lock holds without its description */
        }
        free(line);
    }
    if (err && fd >= 0)
        close(fd);
    *fd_out = err ? -1 : fd;
    free(path);
    return err;
}

/* ---- the mark ------------------------------------------------------------- */

/* The hash of a regular file at path (never through a link); 0, or -1 when
 * it is not a regular file or cannot be read. */
static int file_hash(const char *path, char hex[65])
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    if (sha256_file(path, hex) < 0) {
        error_clear();
        return -1;
    }
    return 0;
}

/* The old mark's hash for name, or NULL. */
static const char *old_hash(const struct outdir *o, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < o->old.n; i++)
        if (!strncmp(o->old.v[i], name, n) && o->old.v[i][n] == '\t')
            return o->old.v[i] + n + 1;
    return NULL;
}

/* Is dir/name a file benchgen wrote, unchanged? */
static int ours(const struct outdir *o, const char *name)
{
    char hex[65];
    char *path = xprintf("%s/%s", o->dir, name);
    int r = file_hash(path, hex) == 0;
    free(path);
    if (r && o->legacy) /* a benchgen-report/1 of this run: a regular file at a name we write */
        return 1;
    const char *want = old_hash(o, name);
    return r && want && !strcmp(want, hex);
}

/* Reads the old mark: its id (or the legacy name/created match) and files.
 * *who describes another owner (malloc'd), NULL when it is this one. */
static int read_mark(struct outdir *o, const struct outdir_owner *w, char **who)
{
    char *text = NULL, *id = NULL, *name = NULL, *created = NULL;
    size_t len = 0;
    *who = NULL;
    struct stat st;
    if (lstat(o->mark, &st) != 0) {
        for (size_t i = 0; w->docs && w->docs[i]; i++) {
            char *f = xprintf("%s/%s", o->dir, w->docs[i]);
            int there = lstat(f, &st) == 0;
            free(f);
            if (there) {
                *who = xprintf("a %s of unknown origin (%s, but no %s)", w->kind, w->docs[i], strrchr(o->mark, '/') + 1);
                break;
            }
        }
        return 0;
    }
    int err = S_ISREG(st.st_mode) ? util_read_file(o->mark, &text, &len) : 0;
    if (err < 0)
        return err;
    char *format = xprintf("benchgen-%s/", w->kind);
    int v = 0;
    if (text && !strncmp(text, format, strlen(format)))
        v = atoi(text + strlen(format));
    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (!strncmp(p, "id: ", 4) && !id)
            id = xstrndup(p + 4, n - 4);
        else if (!strncmp(p, "run: ", 5) && !name)
            name = xstrndup(p + 5, n - 5);
        else if (!strncmp(p, "created: ", 9) && !created)
            created = xstrndup(p + 9, n - 9);
        else if (!strncmp(p, "file: ", 6) && n > 6 + 65) { /* "file: HASH NAME" */
            char *e = xprintf("%.*s\t%.64s", (int)(n - 71), p + 71, p + 6);
            if (!strstr(e, "/..") && strncmp(e, "../", 3) && e[0] != '/')
                strlist_add(&o->old, e);
            free(e);
        }
        p += n;
        if (*p == '\n')
            p++;
    }
    if (v < 1) {
        *who = xprintf("a %s of unknown origin (%s is not a benchgen mark)", w->kind, strrchr(o->mark, '/') + 1);
        strlist_free(&o->old);
    } else if (w->id && v == 1) {
        o->legacy = name && created && w->legacy_name && w->legacy_created && !strcmp(name, w->legacy_name) &&
                    !strcmp(created, w->legacy_created);
        if (!o->legacy)
            *who = xprintf("the report of run '%s' (created %s)", name ? name : "?", created ? created : "?");
    } else if (w->id && (!id || strcmp(id, w->id))) {
        *who = xprintf("the report of run '%s' (created %s, id %.12s)", name ? name : "?",
                       created ? created : "?", id ? id : "?");
    }
    free(format);
    free(text);
    free(id);
    free(name);
    free(created);
    return 0;
}

/* ---- open, commit, close ---------------------------------------------------- */

int outdir_open(struct outdir *o, const char *dir, const struct outdir_owner *w, int force)
{
    memset(o, 0, sizeof(*o));
    o->lock_fd = -1;
    o->force = force;
    char *who = NULL, *charts = NULL;
    struct stat st;
    int err = outdir_check_path(dir, 0), made = 0;
    if (!err && lstat(dir, &st) != 0) {
        made = 1;
        err = util_mkdir_p(dir, 0755);
    }
    if (!err && !util_is_dir(dir))
        err = error_set(BG_EUSAGE, "--out %s is not a directory", dir);
    o->dir = xstrdup(dir);
    o->mark = xprintf("%s/.benchgen-%s", dir, w->kind);
    o->stage = xprintf("%s/%s", dir, OUTDIR_STAGE);
    if (!err)
        err = lock_dir(&o->lock_fd, dir, w->kind);
    charts = xprintf("%s/charts", dir);
    if (!err && lstat(charts, &st) == 0 && !S_ISDIR(st.st_mode))
        err = error_set(BG_EUSAGE,
                        "%s is %s, not a directory: benchgen writes only inside %s and touches nothing it points "
                        "to; remove it or choose another --out",
                        charts, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory", dir);
    if (!err && (err = read_mark(o, w, &who)) == 0 && who && !force)
        err = error_set(BG_EUSAGE, "%s holds %s; give --force to replace it, or --out another directory", dir,
                        who);
    o->same = !who;
    if (!err && lstat(o->stage, &st) == 0) { /* a killed render's: ours, and the lock is held */
        if (!S_ISDIR(st.st_mode))
            err = error_set(BG_EUSAGE, "%s is not benchgen's staging directory; remove it", o->stage);
        else
            err = util_rm_rf(o->stage);
    }
    if (!err && mkdir(o->stage, 0755) != 0)
        err = error_set(BG_EIO, "cannot create %s: %s", o->stage, strerror(errno));
    if (!err)
        o->head = xprintf("benchgen-%s/%d\n%s%s%s%s", w->kind, !strcmp(w->kind, "report") ? 2 : 1,
                          w->head ? w->head : "", w->id ? "id: " : "", w->id ? w->id : "", w->id ? "\n" : "");
    free(who);
    free(charts);
    if (err) {
        int keep = error_code();
        char msg[1024];
        snprintf(msg, sizeof(msg), "%s", error_last());
        outdir_close(o);
        if (made)
            rmdir(dir);
        error_set(keep, "%s", msg);
    }
    return err;
}

/* The regular files under o->stage: "name" and "charts/name", sorted. */
static int staged(const struct outdir *o, struct strlist *out)
{
    for (int sub = 0; sub < 2; sub++) {
        char *d = sub ? xprintf("%s/charts", o->stage) : xstrdup(o->stage);
        DIR *dp = opendir(d);
        if (!dp) {
            int e = errno;
            free(d);
            if (sub && e == ENOENT)
                break;
            return error_set(BG_EIO, "cannot read %s: %s", o->stage, strerror(e));
        }
        struct dirent *e;
        while ((e = readdir(dp)) != NULL) {
            char *f = xprintf("%s/%s", d, e->d_name);
            struct stat st;
            if (lstat(f, &st) == 0 && S_ISREG(st.st_mode)) {
                char *n = xprintf("%s%s", sub ? "charts/" : "", e->d_name);
                strlist_add(out, n);
                free(n);
            }
            free(f);
        }
        closedir(dp);
        free(d);
    }
    strlist_sort(out, false);
    return 0;
}

static int write_mark(const struct outdir *o, const struct strlist *entries)
{
    struct strbuf sb = {0};
    strbuf_puts(&sb, o->head);
    for (size_t i = 0; i < entries->n; i++) {
        const char *tab = strchr(entries->v[i], '\t');
        strbuf_printf(&sb, "file: %s %.*s\n", tab + 1, (int)(tab - entries->v[i]), entries->v[i]);
    }
    int err = strbuf_error(&sb);
    if (!err)
        err = util_write_file_atomic(o->mark, sb.buf, sb.len);
    strbuf_free(&sb);
    return err;
}

int outdir_commit(struct outdir *o, int keep_docs)
{
    struct strlist names = {0}, now = {0}, pending = {0};
    int err = staged(o, &names);
    /* every target: new, ours unchanged, or forced; a directory never */
    for (size_t i = 0; !err && i < names.n; i++) {
        char *t = xprintf("%s/%s", o->dir, names.v[i]);
        struct stat st;
        if (lstat(t, &st) == 0 && (S_ISDIR(st.st_mode) || (!o->force && !ours(o, names.v[i]))))
            err = error_set(BG_EUSAGE,
                            "%s exists and was not written by benchgen (or was changed since: %s does not list it "
                            "with its hash); move it away, or give --force to replace it",
                            t, strrchr(o->mark, '/') + 1);
        free(t);
    }
    char hex[65];
    for (size_t i = 0; !err && i < names.n; i++) {
        char *s = xprintf("%s/%s", o->stage, names.v[i]);
        if ((err = sha256_file(s, hex)) == 0) {
            char *e = xprintf("%s\t%s", names.v[i], hex);
            strlist_add(&now, e);
            free(e);
        }
        free(s);
    }
    /* the old files that stay: this run's documents it did not render again, unchanged */
    for (size_t i = 0; !err && keep_docs && o->same && i < o->old.n; i++) {
        char *name = xstrndup(o->old.v[i], strcspn(o->old.v[i], "\t"));
        if (strncmp(name, "charts/", 7) && !strlist_contains(&names, name) && ours(o, name))
            strlist_add(&now, o->old.v[i]);
        free(name);
    }
    /* killed from here on, the mark still covers both the old and the new files */
    for (size_t i = 0; !err && i < o->old.n; i++)
        strlist_add(&pending, o->old.v[i]);
    for (size_t i = 0; !err && i < now.n; i++)
        strlist_add_unique(&pending, now.v[i]);
    if (!err && pending.n)
        err = write_mark(o, &pending);
    char *charts = xprintf("%s/charts", o->dir);
    struct stat st;
    if (!err && lstat(charts, &st) == 0 && !S_ISDIR(st.st_mode))
        err = error_set(BG_EUSAGE, "%s is no longer a directory: nothing moved into it", charts);
    for (size_t i = 0; !err && i < names.n; i++) {
        if (!strncmp(names.v[i], "charts/", 7) && lstat(charts, &st) != 0 && mkdir(charts, 0755) != 0)
            err = error_set(BG_EIO, "cannot create %s: %s", charts, strerror(errno));
        char *s = xprintf("%s/%s", o->stage, names.v[i]), *t = xprintf("%s/%s", o->dir, names.v[i]);
        int there = lstat(t, &st) == 0;
        /* a name that was free must still be: never replace a file that appeared meanwhile */
        if (!err && (there ? rename(s, t) : renameat2(AT_FDCWD, s, AT_FDCWD, t, RENAME_NOREPLACE)) != 0)
            err = error_set(errno == EEXIST ? BG_EUSAGE : BG_EIO, "cannot move %s into place: %s", t,
                            errno == EEXIST ? "a file appeared there meanwhile" : strerror(errno));
        free(s);
        free(t);
    }
    /* the old files this render did not write: removed when still unchanged */
    for (size_t i = 0; !err && i < o->old.n; i++) {
        char *name = xstrndup(o->old.v[i], strcspn(o->old.v[i], "\t"));
        int keep = strlist_contains(&names, name);
        for (size_t k = 0; !keep && k < now.n; k++)
            keep = !strcmp(now.v[k], o->old.v[i]);
        if (!keep && ours(o, name)) {
            char *t = xprintf("%s/%s", o->dir, name);
            if (unlink(t) != 0 && errno != ENOENT)
                err = error_set(BG_EIO, "cannot remove %s: %s", t, strerror(errno));
            free(t);
        }
        free(name);
    }
    strlist_sort(&now, false);
    if (!err)
        err = write_mark(o, &now);
    if (!err) {
        char *sc = xprintf("%s/charts", o->stage);
        rmdir(sc);
        free(sc);
        rmdir(o->stage);
    }
    free(charts);
    strlist_free(&names);
    strlist_free(&now);
    strlist_free(&pending);
    return err;
}

void outdir_close(struct outdir *o)
{
    if (o->stage && o->lock_fd >= 0) {
        struct stat st;
        if (lstat(o->stage, &st) == 0 && S_ISDIR(st.st_mode))
            util_rm_rf(o->stage);
    }
    if (o->lock_fd >= 0) {
        char *path = xprintf("%s/%s", o->dir, OUTDIR_LOCK);
        unlink(path); /* while held: a waiter that opened it retries (lock_dir) */
        free(path);
        close(o->lock_fd);
    }
    free(o->dir);
    free(o->stage);
    free(o->mark);
    free(o->head);
    strlist_free(&o->old);
    memset(o, 0, sizeof(*o));
    o->lock_fd = -1;
}
