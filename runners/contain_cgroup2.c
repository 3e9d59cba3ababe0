/*
 * contain_cgroup2.c - a cell in its own cgroup v2 group (see contain_backend.h).
 *
 * The group is made below benchgen's own (the "0::" line of
 * /proc/self/cgroup) in the unified hierarchy: /sys/fs/cgroup when it is
 * cgroup2, else the hybrid /sys/fs/cgroup/unified ($BENCHGEN_CGROUP2_ROOT
 * overrides). With the memory controller delegated (enabled in the parent's
 * cgroup.subtree_control, which benchgen tries itself), memory.max is the
 * cell's limit, memory.swap.max 0, and memory.events' oom_kill tells an OOM
 * kill; without it (a hybrid machine whose memory controller is on v1) the
 * group only holds and kills, and the parent polls the members' resident
 * memory against the limit. At the cell's end cgroup.kill (Linux 5.14)
 * kills every member at once, setsid() descendants included; older kernels
 * freeze, kill each member and thaw.
 */
#include "runners/contain_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int v2_root(char *buf, size_t len)
{
    const char *r = getenv("BENCHGEN_CGROUP2_ROOT");
    if (r && *r)
        snprintf(buf, len, "%s", r);
    else if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
        snprintf(buf, len, "/sys/fs/cgroup");
    else if (access("/sys/fs/cgroup/unified/cgroup.controllers", F_OK) == 0)
        snprintf(buf, len, "/sys/fs/cgroup/unified");
    else
        return -1;
    return 0;
}

/* benchgen's own group: the "0::/path" line. */
static int own_group(char *buf, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[1024];
    int found = -1;
    while (found < 0 && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "0::", 3) != 0)
            continue;
        line[strcspn(line, "\n")] = '\0';
        const char *path = strcmp(line + 3, "/") == 0 ? "" : line + 3;
        if (strlen(path) < len) {
            memcpy(buf, path, strlen(path) + 1);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

static int read_text(const char *dir, const char *file, char *buf, size_t len)
{
    char path[CONTAIN_DIR_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* Whether dir's members may use the memory controller. */
static bool has_memory(const char *dir)
{
    char buf[512];
    return read_text(dir, "cgroup.controllers", buf, sizeof(buf)) == 0 && strstr(buf, "memory");
}

static void v2_close(struct contain *ct)
{
    for (int tries = 0; ct->ndirs && tries < 50 && rmdir(ct->dirs[0]) < 0 && errno == EBUSY; tries++) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    ct->ndirs = 0;
}

static int v2_open(struct contain *ct)
{
    char root[CONTAIN_DIR_MAX / 2], own[CONTAIN_DIR_MAX / 2], parent[CONTAIN_DIR_MAX];
    if (v2_root(root, sizeof(root)) < 0 || own_group(own, sizeof(own)) < 0)
        return -1;
    snprintf(parent, sizeof(parent), "%s%s", root, own);
    char probe[CONTAIN_DIR_MAX + 32];
    snprintf(probe, sizeof(probe), "%s/cgroup.procs", parent);
    if (access(probe, W_OK) != 0)
        return -1;
    /* Delegate memory and pids to the cells when the parent may; a parent
     * holding processes (benchgen itself) refuses, and then only hierarchies
     * where a manager enabled them for us have them. */
    contain_write_file(parent, "cgroup.subtree_control", "+memory");
    contain_write_file(parent, "cgroup.subtree_control", "+pids");
    int n = snprintf(ct->dirs[0], CONTAIN_DIR_MAX, "%s/benchgen-%s", parent, strchr(ct->token, '=') + 1);
    if (n >= CONTAIN_DIR_MAX || mkdir(ct->dirs[0], 0755) < 0)
        return -1;
    ct->ndirs = 1;
    bool memory = has_memory(ct->dirs[0]);
    if (memory && ct->memory_limit) {
        char lim[32];
        snprintf(lim, sizeof(lim), "%llu", (unsigned long long)ct->memory_limit);
        if (contain_write_file(ct->dirs[0], "memory.max", lim) < 0) {
            v2_close(ct);
            return -1;
        }
        contain_write_file(ct->dirs[0], "memory.swap.max", "0");
    }
    ct->memory_controller = memory;
    snprintf(ct->desc, sizeof(ct->desc), "cgroup2 (%s)", memory ? "memory.max, cgroup.kill" : "cgroup.kill; memory polled");
    return 0;
}

static int v2_enter(struct contain *ct)
{
    char pid[32];
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    return ct->ndirs ? contain_write_file(ct->dirs[0], "cgroup.procs", pid) : -1;
}

/* Resident bytes of the members (no memory controller). */
static int64_t members_rss(const struct contain *ct)
{
    char path[CONTAIN_DIR_MAX + 32];
    snprintf(path, sizeof(path), "%s/cgroup.procs", ct->dirs[0]);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    long page = sysconf(_SC_PAGESIZE);
    int64_t total = 0;
    int pid;
    while (fscanf(f, "%d", &pid) == 1) {
        char statm[64];
        snprintf(statm, sizeof(statm), "/proc/%d/statm", pid);
        FILE *s = fopen(statm, "re");
        long long size = 0, resident = 0;
        if (s && fscanf(s, "%lld %lld", &size, &resident) == 2)
            total += resident * page;
        if (s)
            fclose(s);
    }
    fclose(f);
    return total;
}

static int64_t v2_memory(struct contain *ct, int64_t *peak)
{
    bool memory = ct->memory_controller;
    if (peak) {
        long long p = memory ? contain_read_number(ct->dirs[0], "memory.peak", NULL) : -1;
        *peak = p > 0 ? p : 0;
    }
    if (!memory)
        return members_rss(ct);
    long long now = contain_read_number(ct->dirs[0], "memory.current", NULL);
    return now > 0 ? now : 0;
}

static bool v2_oom(struct contain *ct)
{
    return ct->ndirs && contain_read_number(ct->dirs[0], "memory.events", "oom_kill") > 0;
}

static bool v2_limits_memory(const struct contain *ct) { return ct->memory_controller; }

static void v2_kill(struct contain *ct)
{
    if (!ct->ndirs)
        return;
    struct timespec tick = {0, 5 * 1000000L};
    bool has_kill = contain_write_file(ct->dirs[0], "cgroup.kill", "1") == 0;
    for (int round = 0; round < 200; round++) { /* about a second at most */
        if (!has_kill)
            contain_write_file(ct->dirs[0], "cgroup.freeze", "1");
        int left = contain_kill_procs(ct->dirs[0]);
        if (!has_kill)
            contain_write_file(ct->dirs[0], "cgroup.freeze", "0");
        if (left == 0)
            return;
        contain_reap_orphans(ct);
        nanosleep(&tick, NULL);
        if (has_kill)
            contain_write_file(ct->dirs[0], "cgroup.kill", "1");
    }
}

const struct contain_ops contain_cgroup2_ops = {
    .name = "cgroup2",
    .open = v2_open,
    .enter = v2_enter,
    .memory = v2_memory,
    .oom = v2_oom,
    .limits_memory = v2_limits_memory,
    .kill = v2_kill,
    .close = v2_close,
};
