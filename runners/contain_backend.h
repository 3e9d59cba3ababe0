/*
 * contain_backend.h - what each containment backend provides (see contain.h).
 *
 * A backend fills struct contain's dirs and desc in open(), and must make
 * kill() reach every process of the cell, including ones that called
 * setsid(). The struct holds no pointers but ops (a static table), so the
 * watchdog, a fork of benchgen, gets a usable copy through a pipe.
 */
#ifndef BENCHGEN_CONTAIN_BACKEND_H
#define BENCHGEN_CONTAIN_BACKEND_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define CONTAIN_MAX_DIRS 3
#define CONTAIN_DIR_MAX 512

struct contain_ops;

struct contain {
    const struct contain_ops *ops;
    char token[80];           /* BENCHGEN_CELL_TOKEN=<pid>.<n>.<random> */
    char desc[96];
    uint64_t memory_limit;
    pid_t pid;                /* the worker, once forked */
    pid_t owner;              /* benchgen */
    int ndirs;
    char dirs[CONTAIN_MAX_DIRS][CONTAIN_DIR_MAX]; /* cgroup directories, created by open() */
    int64_t peak;
    bool memory_controller;   /* the cgroup enforces memory_limit itself */
    char scratch[CONTAIN_DIR_MAX]; /* the cell's scratch directory, removed by the watchdog
                                    * when benchgen dies; "" for none */
};

struct contain_ops {
    const char *name;
    int (*open)(struct contain *ct);     /* 0, or negative: try the next backend */
    int (*enter)(struct contain *ct);    /* in the child */
    int64_t (*memory)(struct contain *ct, int64_t *peak);
    bool (*oom)(struct contain *ct);
    bool (*limits_memory)(const struct contain *ct);
    void (*kill)(struct contain *ct);
    void (*close)(struct contain *ct);   /* removes what open() made; after kill() */
};

extern const struct contain_ops contain_cgroup1_ops;
extern const struct contain_ops contain_cgroup2_ops;
extern const struct contain_ops contain_tree_ops;

/* Shared by the backends (contain.c). */
int contain_write_file(const char *dir, const char *file, const char *text);
/* Reaps children of benchgen that the cell left behind (orphans adopted as
 * subreaper), never the worker itself nor the watchdog. */
void contain_reap_orphans(const struct contain *ct);
/* A number from dir/file: the whole file, or the value of the line
 * "FIELD VALUE" when field is given; -1 when unreadable or absent. */
long long contain_read_number(const char *dir, const char *file, const char *field);
/* SIGKILLs every live process listed in dir/cgroup.procs; how many. */
int contain_kill_procs(const char *dir);
/* Whether pid exists and is not a zombie. */
bool contain_alive(pid_t pid);
/* Sends sig (0: none) to every process the sweep finds: the cell's token in
 * its environment, the worker's session or process group, or descent from
 * one of those or from benchgen (orphans it adopted). Returns how many it
 * found; *rss (may be NULL) gets their resident bytes. */
int contain_sweep(struct contain *ct, int sig, int64_t *rss);

#endif /* BENCHGEN_CONTAIN_BACKEND_H */
