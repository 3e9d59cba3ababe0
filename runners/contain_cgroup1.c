/*
 * contain_cgroup1.c - a cell in its own cgroup v1 memory, pids and freezer
 * groups (see contain_backend.h).
 *
 * The groups are made below benchgen's own group in each hierarchy
 * (/proc/self/cgroup), so a limit set on benchgen by its caller still holds.
 * The memory group's limit is the cell's memory_limit (and its swap limit
 * the same, so a full group is OOM-killed rather than swapped out); the
 * kernel's OOM kill is read back from memory.oom_control. At the cell's end
 * the freezer group is frozen, every task in it is SIGKILLed, and it is
 * thawed so the kills land: a process cannot fork away while frozen.
 */
#include "runners/contain_backend.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MEMORY, PIDS, FREEZER };
static const char *const controllers[] = {"memory", "pids", "freezer"};

static const char *root(void)
{
    const char *r = getenv("BENCHGEN_CGROUP_ROOT");
    return r && *r ? r : "/sys/fs/cgroup";
}

/* benchgen's own group in the hierarchy of controller, from /proc/self/cgroup. */
static int own_group(const char *controller, char *buf, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[1024];
    int found = -1;
    while (found < 0 && fgets(line, sizeof(line), f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        for (char *tok = strtok(c1 + 1, ","); tok; tok = strtok(NULL, ","))
            if (strcmp(tok, controller) == 0) {
                c2[1 + strcspn(c2 + 1, "\n")] = '\0';
                snprintf(buf, len, "%s", strcmp(c2 + 1, "/") == 0 ? "" : c2 + 1);
                found = 0;
            }
    }
    fclose(f);
    return found;
}

static void cg_close(struct contain *ct)
{
    for (int i = ct->ndirs - 1; i >= 0; i--) {
        /* A task that just died may still be leaving: retry for a moment. */
        for (int tries = 0; tries < 50 && rmdir(ct->dirs[i]) < 0 && errno == EBUSY; tries++) {
            struct timespec ts = {0, 10 * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    ct->ndirs = 0;
}

static int cg_open(struct contain *ct)
{
    for (int i = 0; i < 3; i++) {
        char own[CONTAIN_DIR_MAX / 2], probe[CONTAIN_DIR_MAX];
        snprintf(probe, sizeof(probe), "%s/%s/cgroup.procs", root(), controllers[i]);
        if (access(probe, W_OK) != 0 || own_group(controllers[i], own, sizeof(own)) < 0)
            goto fail;
        int n = snprintf(ct->dirs[i], CONTAIN_DIR_MAX, "%s/%s%s/benchgen-%s", root(), controllers[i], own,
                         strchr(ct->token, '=') + 1);
        if (n >= CONTAIN_DIR_MAX || mkdir(ct->dirs[i], 0755) < 0)
            goto fail;
        ct->ndirs = i + 1;
    }
    if (ct->memory_limit) {
        char lim[32];
        snprintf(lim, sizeof(lim), "%llu", (unsigned long long)ct->memory_limit);
        if (contain_write_file(ct->dirs[MEMORY], "memory.limit_in_bytes", lim) < 0)
            goto fail;
        /* Without swap accounting this file does not exist: nothing to limit. */
        contain_write_file(ct->dirs[MEMORY], "memory.memsw.limit_in_bytes", lim);
    }
    ct->memory_controller = true;
    snprintf(ct->desc, sizeof(ct->desc), "cgroup1 (memory, pids, freezer)");
    return 0;
fail:
    cg_close(ct);
    return -1;
}

static int cg_enter(struct contain *ct)
{
    char pid[32];
    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    for (int i = 0; i < ct->ndirs; i++)
        if (contain_write_file(ct->dirs[i], "cgroup.procs", pid) < 0)
            return -1;
    return 0;
}

static int64_t cg_memory(struct contain *ct, int64_t *peak)
{
    if (peak) {
        long long p = contain_read_number(ct->dirs[MEMORY], "memory.max_usage_in_bytes", NULL);
        *peak = p > 0 ? p : 0;
    }
    long long now = contain_read_number(ct->dirs[MEMORY], "memory.usage_in_bytes", NULL);
    return now > 0 ? now : 0;
}

static bool cg_oom(struct contain *ct)
{
    return contain_read_number(ct->dirs[MEMORY], "memory.oom_control", "oom_kill") > 0;
}

static void cg_kill(struct contain *ct)
{
    if (ct->ndirs < 3)
        return;
    const char *fz = ct->dirs[FREEZER];
    struct timespec tick = {0, 5 * 1000000L};
    for (int round = 0; round < 200; round++) { /* about a second at most */
        contain_write_file(fz, "freezer.state", "FROZEN");
        for (int i = 0; i < 20; i++) {
            char state[32] = "";
            char path[CONTAIN_DIR_MAX + 32];
            snprintf(path, sizeof(path), "%s/freezer.state", fz);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            ssize_t n = fd >= 0 ? read(fd, state, sizeof(state) - 1) : -1;
            if (fd >= 0)
                close(fd);
            if (n > 0 && strncmp(state, "FROZEN", 6) == 0)
                break;
            nanosleep(&tick, NULL);
        }
        int left = contain_kill_procs(fz);
        contain_write_file(fz, "freezer.state", "THAWED");
        if (left == 0)
            return;
        contain_reap_orphans(ct);
        nanosleep(&tick, NULL);
    }
}

static bool cg_limits_memory(const struct contain *ct) { return ct->memory_controller; }

const struct contain_ops contain_cgroup1_ops = {
    .name = "cgroup1",
    .open = cg_open,
    .enter = cg_enter,
    .memory = cg_memory,
    .oom = cg_oom,
    .limits_memory = cg_limits_memory,
    .kill = cg_kill,
    .close = cg_close,
};
