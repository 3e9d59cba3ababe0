/*
 * contain_tree.c - containment without cgroups (see contain_backend.h).
 *
 * benchgen is a child subreaper (contain.c), so a cell's orphans come back
 * to it instead of init; every process carries the cell's token in its
 * environment. The sweep (contain_sweep) finds the worker, its session and
 * process group, everything carrying the token, and their descendants;
 * kill() SIGKILLs them until none is left. Memory is the sum of their
 * resident sizes, polled by the parent against the limit.
 *
 * What this cannot reach: a process that left the session, dropped the
 * token from a fresh environment, and was orphaned after benchgen itself
 * died. cgroups have no such gap; this is the fallback.
 */
#include "runners/contain_backend.h"

#include <signal.h>
#include <stdio.h>
#include <time.h>

static int tree_open(struct contain *ct)
{
    snprintf(ct->desc, sizeof(ct->desc), "tree (subreaper + sweep)");
    return 0;
}

static int tree_enter(struct contain *ct)
{
    (void)ct;
    return 0;
}

static int64_t tree_memory(struct contain *ct, int64_t *peak)
{
    int64_t rss = 0;
    contain_sweep(ct, 0, &rss);
    if (peak)
        *peak = 0;
    return rss;
}

static bool tree_oom(struct contain *ct)
{
    (void)ct;
    return false;
}

static void tree_kill(struct contain *ct)
{
    struct timespec tick = {0, 10 * 1000000L};
    for (int round = 0; round < 100; round++) { /* about a second at most */
        if (contain_sweep(ct, SIGKILL, NULL) == 0)
            return;
        contain_reap_orphans(ct);
        nanosleep(&tick, NULL);
    }
}

static void tree_close(struct contain *ct) { (void)ct; }

static bool tree_limits_memory(const struct contain *ct)
{
    (void)ct;
    return false;
}

const struct contain_ops contain_tree_ops = {
    .name = "tree",
    .open = tree_open,
    .enter = tree_enter,
    .memory = tree_memory,
    .oom = tree_oom,
    .limits_memory = tree_limits_memory,
    .kill = tree_kill,
    .close = tree_close,
};
