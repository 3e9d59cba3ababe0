/*
 * rundir.c - a run directory's lock and its creation under a temporary name
 * (see rundir.h for the rules).
 */
#include "store/rundir.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CREATING_TAG ".creating."

/* The files benchgen puts in a run directory before any cell runs. */
static const char *const created_files[] = {RUNDIR_DB_NAME,         RUNDIR_DB_NAME "-wal", RUNDIR_DB_NAME "-shm",
                                            RUNDIR_DB_NAME "-journal", RUNDIR_LOCK_NAME};

void rundir_fault(const char *stage)
{
    const char *want = getenv("BENCHGEN_FAULT");
    if (want && strcmp(want, stage) == 0)
        raise(SIGKILL);
    if (want && !strncmp(want, "stop:", 5) && strcmp(want + 5, stage) == 0)
        raise(SIGSTOP);
}

/* ---- the lock file's content ------------------------------------------- */

static void write_holder(int fd)
{
    char host[256] = "", since[32], line[384];
    gethostname(host, sizeof(host) - 1);
    util_iso8601_utc(time(NULL), since);
    int n = snprintf(line, sizeof(line), "pid=%ld host=%s since=%s\n", (long)getpid(), host, since);
    if (ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)n, 0) == n)
        return;
    /* The lock holds without its description; a refusal then says "unknown". */
}

/* "benchgen pid N on host H (since T)" from the lock file at fd. A holder
 * that has only just taken the lock may not have written it yet: retry
 * briefly. */
static void describe_holder(int fd, char *out, size_t n)
{
    char buf[384] = "";
    for (int i = 0; i < 20; i++) {
        ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
        buf[k > 0 ? k : 0] = '\0';
        if (strchr(buf, '\n'))
            break;
        struct timespec ts = {0, 25 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    long pid = 0;
    char host[256] = "", since[32] = "", me[256] = "";
    if (sscanf(buf, "pid=%ld host=%255s since=%31s", &pid, host, since) < 2 || pid <= 0) {
        snprintf(out, n, "another process (its %s does not say which)", RUNDIR_LOCK_NAME);
        return;
    }
    gethostname(me, sizeof(me) - 1);
    if (!strcmp(host, me) && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        snprintf(out, n,
                 "a process left behind by benchgen pid %ld on host %s, which has exited "
                 "(a cell worker still shutting down?)",
                 pid, host);
    else
        snprintf(out, n, "benchgen pid %ld on host %s (since %s)", pid, host, since[0] ? since : "?");
}

/* Opens path's lock without creating it; -1 (errno set) when absent. */
static int open_lock(const char *path, int flags)
{
    return open(path, flags | O_CLOEXEC | O_NOFOLLOW, 0644);
}

/* ---- lock ---------------------------------------------------------------- */

int rundir_lock(int *fd_out, const char *dir)
{
    char *path = xprintf("%s/%s", dir, RUNDIR_LOCK_NAME);
    int err = 0, fd = -1;
    *fd_out = -1;
    if ((fd = open_lock(path, O_RDWR | O_CREAT)) < 0) {
        err = error_set(BG_EIO, "cannot open %s: %s", path, strerror(errno));
        goto done;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            char who[512];
            describe_holder(fd, who, sizeof(who));
            err = error_set(BG_EUSAGE, "%s is in use by %s; wait for it to finish or stop it first", dir, who);
        } else {
            err = error_set(BG_EIO, "cannot lock %s: %s", path, strerror(errno));
        }
        goto done;
    }
    write_holder(fd);
done:
    if (err < 0 && fd >= 0)
        close(fd);
    else
        *fd_out = fd;
    free(path);
    return err;
}

void rundir_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock */
}

/* When dir/run.lock is held by a live process, describes it into who and
 * returns true. Probes with a shared lock, so it never takes the run away. */
static bool held_by(const char *dir, char *who, size_t n)
{
    char *path = xprintf("%s/%s", dir, RUNDIR_LOCK_NAME);
    int fd = open_lock(path, O_RDONLY);
    free(path);
    if (fd < 0)
        return false;
    bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (held)
        describe_holder(fd, who, n);
    close(fd);
    return held;
}

bool rundir_held(const char *dir)
{
    char who[8];
    return held_by(dir, who, sizeof(who));
}

/* ---- removing what benchgen created --------------------------------------- */

/* Removes the known files of a run directory nobody writes, then the
 * directory itself; anything else in it stays (and so does the directory). */
static bool remove_created(const char *dir)
{
    for (size_t i = 0; i < sizeof(created_files) / sizeof(created_files[0]); i++) {
        char *p = xprintf("%s/%s", dir, created_files[i]);
        unlink(p);
        free(p);
    }
    char *logs = xprintf("%s/logs", dir);
    rmdir(logs); /* only when empty */
    free(logs);
    return rmdir(dir) == 0 || errno == ENOENT;
}

void rundir_abandon(const char *tmp, const struct voice *voice)
{
    if (tmp && !remove_created(tmp))
        voice_warn(voice, "store", NULL, "could not remove %s entirely (it holds files benchgen did not create)",
                   tmp);
}

/* True when the creator pid of a temporary directory cannot be running: it
 * is gone, or it is this process (which has not made its own yet). */
static bool creator_dead(long pid)
{
    return pid == (long)getpid() || (kill((pid_t)pid, 0) != 0 && errno == ESRCH);
}

/* A temporary directory PARENT/.BASE.creating.PID of a creation that died:
 * removed when its creator is gone and nobody holds its lock; BG_EUSAGE when
 * a live creator holds it. (A live creator between mkdir and flock has its
 * pid running, so it is left alone.) */
static int clear_leftover(const char *tmp, const char *dir, long pid, const struct voice *voice)
{
    char *lock = xprintf("%s/%s", tmp, RUNDIR_LOCK_NAME);
    int fd = open_lock(lock, O_RDWR), err = 0;
    free(lock);
    if (fd < 0) {
        if (errno == ENOENT && creator_dead(pid))
            rmdir(tmp); /* killed between mkdir and creating run.lock: empty */
        return 0;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char who[512];
        describe_holder(fd, who, sizeof(who));
        err = error_set(BG_EUSAGE, "%s is being created by %s; choose another --out", dir, who);
    } else if (!creator_dead(pid)) {
        /* its creator is about to lock it; the final rename decides */
    } else if (remove_created(tmp)) {
        voice_note(voice, "store", NULL, "removed %s, an unfinished creation of %s by pid %ld", tmp, dir, pid);
    } else {
        voice_warn(voice, "store", NULL,
                   "%s (an unfinished creation of %s) holds files benchgen did not create; left alone", tmp, dir);
    }
    close(fd);
    return err;
}

/* ---- creation -------------------------------------------------------------- */

/* Splits dir into its parent and last component (trailing slashes dropped). */
static int split_dir(const char *dir, char **parent, char **base)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    const char *end = dir + n, *s = end;
    while (s > dir && s[-1] != '/')
        s--;
    *base = xprintf("%.*s", (int)(end - s), s);
    if (s == dir)
        *parent = xstrdup(".");
    else if (s - 1 == dir)
        *parent = xstrdup("/");
    else
        *parent = xprintf("%.*s", (int)(s - 1 - dir), dir);
    if (!**base || !strcmp(*base, ".") || !strcmp(*base, "..") || !strcmp(*base, "/"))
        return error_set(BG_EUSAGE, "%s: name a new directory for the run", dir);
    return 0;
}

int rundir_check_free(const char *dir)
{
    struct stat st;
    char who[512];
    if (lstat(dir, &st) != 0)
        return errno == ENOENT ? 0 : error_set(BG_EIO, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return error_set(BG_EUSAGE, "%s exists and is not a directory; choose another --out", dir);
    char *db = xprintf("%s/%s", dir, RUNDIR_DB_NAME);
    bool has_run = util_is_file(db);
    free(db);
    if (has_run && held_by(dir, who, sizeof(who)))
        return error_set(BG_EUSAGE, "%s already holds a run, in use by %s; choose another --out", dir, who);
    if (has_run)
        return error_set(BG_EUSAGE,
                         "%s already holds a run (use --resume %s to continue it, or choose another --out)", dir,
                         dir);
    DIR *d = opendir(dir);
    if (!d)
        return error_set(BG_EIO, "cannot read directory %s: %s", dir, strerror(errno));
    struct dirent *de;
    bool empty = true;
    while (empty && (de = readdir(d)) != NULL)
        empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
    closedir(d);
    if (!empty)
        return error_set(BG_EUSAGE, "%s exists and is not empty; choose another --out", dir);
    return 0;
}

/* Clears dead creators' temporary directories of DIR in parent. */
static int clear_leftovers(const char *parent, const char *base, const char *dir, const struct voice *voice)
{
    char *prefix = xprintf(".%s" CREATING_TAG, base);
    size_t pl = strlen(prefix);
    struct strlist found = {0};
    int err = 0;
    DIR *d = opendir(parent);
    if (!d) {
        free(prefix);
        return error_set(BG_EIO, "cannot read directory %s: %s", parent, strerror(errno));
    }
    struct dirent *de;
    while (!err && (de = readdir(d)) != NULL)
        if (!strncmp(de->d_name, prefix, pl) && de->d_name[pl] &&
            strspn(de->d_name + pl, "0123456789") == strlen(de->d_name + pl))
            err = strlist_add(&found, de->d_name);
    closedir(d);
    for (size_t i = 0; i < found.n && !err; i++) {
        char *tmp = xprintf("%s/%s", parent, found.v[i]);
        struct stat st;
        if (lstat(tmp, &st) == 0 && S_ISDIR(st.st_mode))
            err = clear_leftover(tmp, dir, strtol(found.v[i] + pl, NULL, 10), voice);
        free(tmp);
    }
    strlist_free(&found);
    free(prefix);
    return err;
}

int rundir_begin(char **tmp_out, int *fd_out, const char *dir, const struct voice *voice)
{
    char *parent = NULL, *base = NULL, *tmp = NULL, *logs = NULL;
    int err = 0, fd = -1;
    bool made = false;
    *tmp_out = NULL;
    *fd_out = -1;
    if ((err = split_dir(dir, &parent, &base)) < 0 || (err = rundir_check_free(dir)) < 0 ||
        (err = util_mkdir_p(parent, 0755)) < 0 || (err = clear_leftovers(parent, base, dir, voice)) < 0)
        goto done;
    rundir_fault("checked");
    tmp = xprintf("%s/.%s" CREATING_TAG "%ld", parent, base, (long)getpid());
    logs = xprintf("%s/logs", tmp);
    if (mkdir(tmp, 0755) != 0) {
        err = error_set(BG_EIO, "cannot create %s: %s", tmp, strerror(errno));
        goto done;
    }
    made = true;
    rundir_fault("mkdir");
    if ((err = rundir_lock(&fd, tmp)) < 0)
        goto done;
    rundir_fault("locked");
    if (mkdir(logs, 0755) != 0)
        err = error_set(BG_EIO, "cannot create %s: %s", logs, strerror(errno));
done:
    if (err < 0) {
        if (made)
            rundir_abandon(tmp, voice);
        rundir_unlock(fd);
        free(tmp);
    } else {
        *tmp_out = tmp;
        *fd_out = fd;
    }
    free(parent);
    free(base);
    free(logs);
    return err;
}

int rundir_publish(const char *tmp, const char *dir)
{
    if (rename(tmp, dir) != 0) {
        int e = errno;
        char who[512];
        if (e == ENOTEMPTY || e == EEXIST || e == ENOTDIR || e == EISDIR) {
            if (held_by(dir, who, sizeof(who)))
                return error_set(BG_EUSAGE, "%s was created meanwhile by %s; choose another --out", dir, who);
            return error_set(BG_EUSAGE, "%s was created meanwhile by another process; choose another --out", dir);
        }
        return error_set(BG_EIO, "cannot rename %s to %s: %s", tmp, dir, strerror(e));
    }
    /* the rename is durable once the parent directory is synced */
    char *parent = NULL, *base = NULL;
    if (split_dir(dir, &parent, &base) == 0) {
        int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (pfd >= 0) {
            fsync(pfd);
            close(pfd);
        }
    }
    error_clear();
    free(parent);
    free(base);
    return 0;
}
