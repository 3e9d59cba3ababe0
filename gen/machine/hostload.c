/*
 * hostload.c - CPU time used outside benchgen, load, governor, turbo (see hostload.h).
 *
 * Only plain reads of /proc and /sys: safe to call from the telemetry thread
 * (no error_set(), whose message buffer the main thread owns).
 */
#include "machine/hostload.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct procent {
    pid_t pid, ppid;
    double self_s, tree_s; /* utime+stime; utime+stime+cutime+cstime */
    char comm[24];
    int ours;
};

static int read_small(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (int)n;
}

/* One /proc/PID/stat line: "pid (comm) state ppid ... utime stime cutime cstime". */
static int parse_stat(const char *buf, double tick, struct procent *p)
{
    const char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
    if (!lp || !rp || rp < lp)
        return -1;
    size_t n = (size_t)(rp - lp - 1);
    if (n >= sizeof(p->comm))
        n = sizeof(p->comm) - 1;
    memcpy(p->comm, lp + 1, n);
    p->comm[n] = '\0';
    for (char *c = p->comm; *c; c++)
        if (!isprint((unsigned char)*c))
            *c = '?';
    long ppid = 0;
    unsigned long long ut = 0, st = 0;
    long long cut = 0, cst = 0;
    /* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime */
    if (sscanf(rp + 2, "%*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld", &ppid, &ut, &st, &cut,
               &cst) != 5)
        return -1;
    p->ppid = (pid_t)ppid;
    p->self_s = (double)(ut + st) / tick;
    p->tree_s = p->self_s + (double)(cut + cst) / tick;
    return 0;
}

/* Every process, with benchgen's tree marked. *out is malloc'd. */
static int scan_procs(struct procent **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return BG_EIO;
    double tick = (double)sysconf(_SC_CLK_TCK);
    if (tick <= 0)
        tick = 100;
    size_t n = 0, cap = 256;
    struct procent *v = xmalloc(cap * sizeof(*v));
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[64], buf[1024];
        snprintf(path, sizeof(path), "/proc/%.20s/stat", e->d_name);
        if (read_small(path, buf, sizeof(buf)) <= 0)
            continue;
        if (n == cap) {
            v = xrealloc(v, 2 * cap * sizeof(*v));
            cap *= 2;
        }
        struct procent *p = &v[n];
        memset(p, 0, sizeof(*p));
        p->pid = (pid_t)atol(e->d_name);
        if (parse_stat(buf, tick, p) == 0)
            n++;
    }
    closedir(d);
    /* Mark the tree: self, then anything whose parent is marked, until no
     * change (depth passes; process trees are shallow). */
    pid_t self = getpid();
    for (size_t i = 0; i < n; i++)
        v[i].ours = v[i].pid == self;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (v[i].ours)
                continue;
            for (size_t j = 0; j < n; j++)
                if (v[j].ours && v[j].pid == v[i].ppid) {
                    v[i].ours = changed = 1;
                    break;
                }
        }
    }
    *out = v;
    *nout = n;
    return 0;
}

static int cmp_proc_pid(const void *a, const void *b)
{
    pid_t x = ((const struct hostload_proc *)a)->pid, y = ((const struct hostload_proc *)b)->pid;
    return (x > y) - (x < y);
}

/* Busy ticks of the CPUs this process may run on: every CPU's line of
 * /proc/stat when pinned to a subset (run --cpus-per-cell), else the total. */
static int busy_ticks(unsigned long long *busy)
{
    cpu_set_t set;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    bool subset = sched_getaffinity(0, sizeof(set), &set) == 0 && online > 0 && CPU_COUNT(&set) < online;
    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return BG_EIO;
    char line[512];
    int found = 0;
    *busy = 0;
    while (fgets(line, sizeof(line), f) && strncmp(line, "cpu", 3) == 0) {
        unsigned long long user = 0, nice = 0, sys = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
        int cpu = -1;
        if (line[3] == ' ') {
            if (subset)
                continue;
        } else if (sscanf(line + 3, "%d", &cpu) != 1 || !subset || cpu < 0 || cpu >= CPU_SETSIZE ||
                   !CPU_ISSET(cpu, &set)) {
            continue;
        }
        const char *p = strchr(line, ' ');
        if (p && sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle, &iowait, &irq,
                        &softirq, &steal) >= 4) {
            *busy += user + nice + sys + irq + softirq + steal;
            found++;
        }
        if (!subset)
            break;
    }
    fclose(f);
    return found ? 0 : BG_EIO;
}

int hostload_snap(struct hostload_snap *s, int with_procs)
{
    memset(s, 0, sizeof(*s));
    unsigned long long busy = 0;
    if (busy_ticks(&busy) < 0)
        return BG_EIO;
    double tick = (double)sysconf(_SC_CLK_TCK);
    if (tick <= 0)
        tick = 100;
    struct procent *v = NULL;
    size_t n = 0;
    int err = scan_procs(&v, &n);
    s->t_ns = util_now_ns();
    s->busy_s = (double)busy / tick;
    if (err)
        return err;
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].ours)
            s->ours_s += v[i].tree_s;
        else
            nf++;
    }
    if (with_procs && nf) {
        s->foreign = xmalloc(nf * sizeof(*s->foreign));
        for (size_t i = 0; i < n; i++) {
            if (v[i].ours)
                continue;
            struct hostload_proc *p = &s->foreign[s->nforeign++];
            p->pid = v[i].pid;
            p->cpu_s = v[i].self_s;
            snprintf(p->comm, sizeof(p->comm), "%s", v[i].comm);
        }
        qsort(s->foreign, s->nforeign, sizeof(*s->foreign), cmp_proc_pid);
    }
    free(v);
    return 0;
}

void hostload_snap_free(struct hostload_snap *s)
{
    free(s->foreign);
    s->foreign = NULL;
    s->nforeign = 0;
}

double hostload_other_cores(const struct hostload_snap *a, const struct hostload_snap *b)
{
    double dt = (double)(b->t_ns - a->t_ns) / 1e9;
    if (dt <= 0)
        return 0;
    double other = (b->busy_s - a->busy_s) - (b->ours_s - a->ours_s);
    return other > 0 ? other / dt : 0;
}

void hostload_top(const struct hostload_snap *a, const struct hostload_snap *b, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    double dt = (double)(b->t_ns - a->t_ns) / 1e9;
    if (dt <= 0 || !b->nforeign)
        return;
    size_t off = 0;
    /* Small n: pick the largest n times, each time skipping those taken. */
    double last = 1e300;
    pid_t last_pid = 0;
    for (size_t k = 0; k < n; k++) {
        const struct hostload_proc *best = NULL;
        double best_cores = 0.01;
        for (size_t i = 0; i < b->nforeign; i++) {
            const struct hostload_proc *pb = &b->foreign[i];
            struct hostload_proc key = {.pid = pb->pid};
            const struct hostload_proc *pa =
                a->nforeign ? bsearch(&key, a->foreign, a->nforeign, sizeof(key), cmp_proc_pid) : NULL;
            double cores = (pb->cpu_s - (pa ? pa->cpu_s : 0)) / dt; /* a new process: all of its time */
            bool after = cores < last || (cores == last && pb->pid > last_pid);
            if (after && cores > best_cores) {
                best = pb;
                best_cores = cores;
            }
        }
        if (!best)
            break;
        off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%spid %d %s (%.2f cores)", k ? ", " : "",
                                (int)best->pid, best->comm, best_cores);
        last = best_cores;
        last_pid = best->pid;
    }
}

double hostload_load1(void)
{
    char buf[128];
    double l1 = -1;
    if (read_small("/proc/loadavg", buf, sizeof(buf)) > 0 && sscanf(buf, "%lf", &l1) != 1)
        l1 = -1;
    return l1;
}

void hostload_governor(char *buf, size_t len)
{
    char names[4][32] = {{0}};
    int counts[4] = {0};
    size_t nnames = 0;
    buf[0] = '\0';
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    for (long c = 0; c < ncpu && c < 4096; c++) {
        char path[96], g[64];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", c);
        if (read_small(path, g, sizeof(g)) <= 0)
            continue;
        g[strcspn(g, "\n")] = '\0';
        size_t k = 0;
        while (k < nnames && strcmp(names[k], g))
            k++;
        if (k == nnames && nnames < 4)
            snprintf(names[nnames++], sizeof(names[0]), "%.31s", g);
        if (k < 4)
            counts[k]++;
    }
    size_t off = 0;
    for (size_t k = 0; k < nnames; k++) {
        if (nnames == 1)
            off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s", names[k]);
        else
            off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s (%d)", k ? ", " : "", names[k],
                                    counts[k]);
    }
}

int hostload_turbo(void)
{
    char buf[16];
    if (read_small("/sys/devices/system/cpu/intel_pstate/no_turbo", buf, sizeof(buf)) > 0)
        return buf[0] == '0';
    if (read_small("/sys/devices/system/cpu/cpufreq/boost", buf, sizeof(buf)) > 0)
        return buf[0] == '1';
    return -1;
}

size_t hostload_our_pids(pid_t *pids, size_t cap)
{
    struct procent *v = NULL;
    size_t n = 0, k = 0;
    if (scan_procs(&v, &n) < 0)
        return 0;
    for (size_t i = 0; i < n && k < cap; i++)
        if (v[i].ours)
            pids[k++] = v[i].pid;
    free(v);
    return k;
}
