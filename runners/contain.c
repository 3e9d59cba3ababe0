/*
 * contain.c - picking a containment backend, the watchdog, and the process
 * sweep the backends share (see contain.h and contain_backend.h).
 */
#include "runners/contain.h"
#include "runners/ablate.h"
#include "runners/contain_backend.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* close_range(2) is number 436 on every architecture (Linux 5.9); glibc
 * 2.31's headers (the kit's build root, docs/GPU.md) do not name it, and an
 * older kernel answers ENOSYS, which the callers handle. */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

static pid_t watchdog_pid = -1;
static pid_t watchdog_owner = -1; /* the process that forked it (fork()ed tests have their own) */
static int watchdog_fd = -1;
static unsigned cell_counter;

int contain_write_file(const char *dir, const char *file, const char *text)
{
    char path[CONTAIN_DIR_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

long long contain_read_number(const char *dir, const char *file, const char *field)
{
    char path[CONTAIN_DIR_MAX + 64], buf[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    if (!field)
        return strtoll(buf, NULL, 10);
    size_t fl = strlen(field);
    for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, field, fl) == 0 && l[fl] == ' ')
            return strtoll(l + fl + 1, NULL, 10);
    return -1;
}

int contain_kill_procs(const char *dir)
{
    char path[CONTAIN_DIR_MAX + 64];
    snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int n = 0, pid;
    while (fscanf(f, "%d", &pid) == 1) {
        if (!contain_alive(pid))
            continue;
        kill(pid, SIGKILL);
        n++;
    }
    fclose(f);
    return n;
}

/* ---- the sweep ------------------------------------------------------------ */

struct proc {
    pid_t pid, ppid, pgrp, sid;
    int64_t rss;
    bool mark;
};

static bool has_token(pid_t pid, const char *token)
{
    char path[64], buf[65536];
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    size_t tl = strlen(token);
    for (ssize_t i = 0; i + (ssize_t)tl <= n; i += (ssize_t)strnlen(buf + i, (size_t)(n - i)) + 1)
        if (memcmp(buf + i, token, tl) == 0 && (i + (ssize_t)tl == n || buf[i + tl] == '\0'))
            return true;
    return false;
}

static int read_procs(struct proc **out, size_t *n)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    size_t cap = 256, len = 0;
    struct proc *v = malloc(cap * sizeof(*v));
    long page = sysconf(_SC_PAGESIZE);
    struct dirent *e;
    while (v && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[1024];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t k = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (k <= 0)
            continue;
        buf[k] = '\0';
        /* Fields after the parenthesised command: state ppid pgrp session ... rss is field 24. */
        char *rp = strrchr(buf, ')');
        int ppid, pgrp, sid;
        long long rss = 0;
        if (!rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X') /* the dead hold nothing */
            continue;
        if (sscanf(rp + 2, "%*c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %*u %lld",
                          &ppid, &pgrp, &sid, &rss) != 4)
            continue;
        if (len == cap) {
            struct proc *p = realloc(v, (cap *= 2) * sizeof(*v));
            if (!p)
                break;
            v = p;
        }
        v[len++] = (struct proc){.pid = atoi(e->d_name), .ppid = ppid, .pgrp = pgrp, .sid = sid, .rss = rss * page};
    }
    closedir(d);
    *out = v;
    *n = v ? len : 0;
    return v ? 0 : -1;
}

int contain_sweep(struct contain *ct, int sig, int64_t *rss)
{
    struct proc *v = NULL;
    size_t n = 0;
    int found = 0;
    if (rss)
        *rss = 0;
    if (read_procs(&v, &n) < 0)
        return 0;
    pid_t self = getpid();
    for (size_t i = 0; i < n; i++) {
        struct proc *p = &v[i];
        if (p->pid == self || p->pid == watchdog_pid || p->pid == 1)
            continue;
        p->mark = (ct->pid > 0 && (p->pid == ct->pid || p->pgrp == ct->pid || p->sid == ct->pid)) ||
                  p->ppid == ct->owner || has_token(p->pid, ct->token);
    }
    for (bool grew = true; grew;) { /* descendants of anything marked */
        grew = false;
        for (size_t i = 0; i < n; i++) {
            if (v[i].mark || v[i].pid == self || v[i].pid == watchdog_pid || v[i].pid == 1)
                continue;
            for (size_t j = 0; j < n && !v[i].mark; j++)
                if (v[j].mark && v[j].pid == v[i].ppid)
                    v[i].mark = grew = true;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!v[i].mark)
            continue;
        found++;
        if (rss)
            *rss += v[i].rss;
        if (sig)
            kill(v[i].pid, sig);
    }
    free(v);
    return found;
}

bool contain_alive(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

void contain_reap_orphans(const struct contain *ct)
{
    for (;;) {
        siginfo_t si = {0};
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
            return;
        if (si.si_pid == ct->pid || si.si_pid == watchdog_pid)
            return; /* the worker is worker.c's to reap; the watchdog never exits first */
        waitpid(si.si_pid, NULL, WNOHANG);
    }
}

/* ---- the watchdog --------------------------------------------------------- */

enum { WD_CELL = 1, WD_DONE = 2 };
struct wd_msg {
    int kind;
    struct contain ct;
};

static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static _Noreturn void watchdog_main(int fd)
{
    prctl(PR_SET_NAME, "benchgen-watch");
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    /* The cells in flight, by token (an executor may run several at once). */
    enum { MAX_CELLS = 64 };
    static struct contain cells[MAX_CELLS];
    static bool used[MAX_CELLS];
    struct wd_msg m;
    while (read_full(fd, &m, sizeof(m)) == 0) {
        int slot = -1, free_slot = -1;
        for (int i = 0; i < MAX_CELLS; i++) {
            if (used[i] && strcmp(cells[i].token, m.ct.token) == 0)
                slot = i;
            else if (!used[i] && free_slot < 0)
                free_slot = i;
        }
        if (m.kind == WD_DONE && slot >= 0)
            used[slot] = false;
        else if (m.kind == WD_CELL && (slot >= 0 || free_slot >= 0)) {
            slot = slot >= 0 ? slot : free_slot;
            cells[slot] = m.ct;
            used[slot] = true;
        }
    }
    /* benchgen is gone (or closed the pipe at exit with no cell in flight). */
    for (int i = 0; i < MAX_CELLS; i++) {
        if (!used[i])
            continue;
        cells[i].owner = getpid(); /* its orphans are ours now: nothing of benchgen's to spare */
        cells[i].ops->kill(&cells[i]);
        cells[i].ops->close(&cells[i]);
        if (cells[i].scratch[0])
            util_rm_rf(cells[i].scratch);
    }
    _exit(0);
}

static void watchdog_start(void)
{
    if (watchdog_fd >= 0 && watchdog_owner == getpid())
        return;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        int keep = fcntl(fds[0], F_DUPFD_CLOEXEC, 3);
        /* Nothing of benchgen's stays open here (run.db above all). */
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (keep < 0 || null < 0)
            _exit(1);
        dup2(null, 0);
        dup2(null, 1);
        dup2(keep, 3);
        if (syscall(SYS_close_range, 4U, ~0U, 0) < 0)
            for (int f = 4; f < 4096; f++)
                close(f);
        setpgid(0, 0); /* out of the terminal's Ctrl-C */
        watchdog_main(3);
    }
    close(fds[0]);
    watchdog_pid = pid;
    watchdog_owner = getpid();
    watchdog_fd = fds[1];
}

static void watchdog_tell(int kind, const struct contain *ct)
{
    if (watchdog_fd < 0 || watchdog_owner != getpid())
        return;
    struct wd_msg m = {.kind = kind, .ct = *ct};
    const char *p = (const char *)&m;
    size_t left = sizeof(m);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    while (left > 0) {
        ssize_t w = write(watchdog_fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        left -= (size_t)w;
    }
    signal(SIGPIPE, old);
}

/* ---- the interface -------------------------------------------------------- */

int contain_open(struct contain **out, const char *cell_key, uint64_t memory_limit)
{
    static const struct contain_ops *const backends[] = {&contain_cgroup1_ops, &contain_cgroup2_ops,
                                                         &contain_tree_ops};
    (void)cell_key;
    *out = NULL;
    struct contain *ct = xcalloc(1, sizeof(*ct));
    /* Orphans of the cell are re-parented to benchgen, not init, so the
     * sweep and the reaping below find them. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    watchdog_start();
    uint64_t rnd = 0;
    if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
        rnd = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    ct->owner = getpid();
    ct->memory_limit = memory_limit;
    snprintf(ct->token, sizeof(ct->token), "BENCHGEN_CELL_TOKEN=%d.%u.%016llx", (int)getpid(), ++cell_counter,
             (unsigned long long)rnd);
    const char *force = getenv("BENCHGEN_CONTAINMENT");
    if (ablate_active() & ABLATE_CGROUP)
        force = "tree"; /* test-only: no cgroup at all (runners/ablate.h) */
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
        if (force && *force && strcmp(force, backends[i]->name) != 0)
            continue;
        ct->ops = backends[i];
        ct->ndirs = 0;
        if (backends[i]->open(ct) == 0)
            break;
        ct->ops = NULL;
    }
    if (!ct->ops) {
        free(ct);
        return error_set(BG_EGENERIC, "no containment backend works here%s%s", force ? " (BENCHGEN_CONTAINMENT=" : "",
                         force ? force : "");
    }
    watchdog_tell(WD_CELL, ct);
    *out = ct;
    return 0;
}

int contain_enter(struct contain *ct) { return ct ? ct->ops->enter(ct) : 0; }

void contain_scratch(struct contain *ct, const char *dir)
{
    if (ct && dir && strlen(dir) < sizeof(ct->scratch))
        snprintf(ct->scratch, sizeof(ct->scratch), "%s", dir);
}

void contain_started(struct contain *ct, pid_t pid)
{
    ct->pid = pid;
    watchdog_tell(WD_CELL, ct);
}

int64_t contain_memory(struct contain *ct, int64_t *peak)
{
    int64_t now = ct->ops->memory(ct, peak);
    if (now > ct->peak)
        ct->peak = now;
    if (peak && *peak < ct->peak)
        *peak = ct->peak;
    return now;
}

bool contain_oom(struct contain *ct) { return ct->ops->oom(ct); }

bool contain_limits_memory(const struct contain *ct) { return ct->ops->limits_memory(ct); }

void contain_kill(struct contain *ct)
{
    if (!ct)
        return;
    ct->ops->kill(ct);
    contain_reap_orphans(ct);
}

const char *contain_describe(const struct contain *ct) { return ct->desc; }

const char *contain_token(const struct contain *ct) { return ct ? ct->token : NULL; }

void contain_close(struct contain *ct)
{
    if (!ct)
        return;
    ct->ops->kill(ct);
    contain_reap_orphans(ct);
    ct->ops->close(ct);
    watchdog_tell(WD_DONE, ct);
    free(ct);
}
