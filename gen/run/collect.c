/*
 * collect.c - attempt files into run.db, checked (see collect.h).
 */
#include "run/collect.h"
#include "run/cellcheck.h"
#include "run/cellfile.h"
#include "run/executor.h"
#include "base/voice.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"
#include "store/store_record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define QUARANTINE_DIR "quarantine"

/* One cell's files as merging sees them. */
struct scan {
    struct cellcheck_attempt *v; /* passed, in merge order after sort */
    char **names;
    size_t n, cap;
    int quarantined;
};

static void scan_free(struct scan *s)
{
    for (size_t i = 0; i < s->n; i++) {
        cellcheck_attempt_free(&s->v[i]);
        free(s->names[i]);
    }
    free(s->v);
    free(s->names);
    memset(s, 0, sizeof(*s));
}

/* Moves a refused file into cells/<id>/quarantine/ (under a free name) and
 * notes it; a file that cannot be moved stays where it is, noted. */
static int quarantine(struct store *st, const struct cell *c, int dirfd, const char *name, const char *why)
{
    char kept[300] = "";
    if (mkdirat(dirfd, QUARANTINE_DIR, 0755) == 0 || errno == EEXIST) {
        int q = openat(dirfd, QUARANTINE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        for (int k = 0; q >= 0 && k < 100; k++) {
            char target[280];
            if (k)
                snprintf(target, sizeof(target), "%s.%d", name, k);
            else
                snprintf(target, sizeof(target), "%s", name);
            if (renameat2(dirfd, name, q, target, RENAME_NOREPLACE) == 0) {
                snprintf(kept, sizeof(kept), "cells/%d/%s/%s", c->id, QUARANTINE_DIR, target);
                break;
            }
            if (errno != EEXIST)
                break;
        }
        if (q >= 0)
            close(q);
    }
    voice_note(store_voice(st), "collect", NULL, "quarantined %s/cells/%d/%s%s%s: %s", store_dir(st), c->id, name,
               *kept ? ", kept as " : " (left in place)", kept, why);
    return store_quarantine(st, c->id, name, *kept ? kept : NULL, why);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Checks one file; 0 and added to s, or 1 with why. */
static int check_file(struct scan *s, int dirfd, const char *name, const char *shown, const struct cell *c,
                      const struct store_issued_list *issued, char *why, size_t nwhy)
{
    json_t *doc = NULL;
    if (cellfile_load(dirfd, name, shown, CELLFILE_MAX_BYTES, &doc) < 0) {
        snprintf(why, nwhy, "%s", error_last());
        return 1;
    }
    struct cellcheck_attempt a;
    int bad = cellcheck_attempt(doc, name, c, issued, &a, why, nwhy);
    json_decref(doc);
    if (bad)
        return 1;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4;
        s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
        s->names = xrealloc(s->names, s->cap * sizeof(*s->names));
    }
    s->v[s->n] = a;
    s->names[s->n++] = xstrdup(name);
    return 0;
}

/* A refused file: quarantined by a writer (unless merged before), a warning
 * for a reader. */
static int refuse(struct store *st, struct scan *s, const struct cell *c, int dirfd, const char *name,
                  const char *why, bool writer, const struct strlist *merged)
{
    if (strlist_contains(merged, name))
        return 0;
    s->quarantined++;
    if (writer)
        return quarantine(st, c, dirfd, name, why);
    voice_warn(store_voice(st), "collect", NULL, "%s/cells/%d/%s will not be merged: %s", store_dir(st), c->id,
               name, why);
    return 0;
}

/* Merge order: issue, then restart, the task's own file before a verdict. */
static int order(const struct cellcheck_attempt *x, const struct cellcheck_attempt *y)
{
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->restart != y->restart)
        return x->restart < y->restart ? -1 : 1;
    return (int)x->verdict - (int)y->verdict;
}

static void sort_scan(struct scan *s)
{
    for (size_t i = 1; i < s->n; i++)
        for (size_t j = i; j > 0 && order(&s->v[j - 1], &s->v[j]) > 0; j--) {
            struct cellcheck_attempt t = s->v[j];
            s->v[j] = s->v[j - 1];
            s->v[j - 1] = t;
            char *nm = s->names[j];
            s->names[j] = s->names[j - 1];
            s->names[j - 1] = nm;
        }
}

/* A verdict joins an attempt whose task left a file, or is the ".x" one on a
 * task Slurm forgot; any other is refused. */
static int drop_orphan_verdicts(struct store *st, struct scan *s, const struct cell *c, int dirfd, bool writer,
                                const struct strlist *merged)
{
    int err = 0;
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        struct cellcheck_attempt *a = &s->v[i];
        bool joined = !a->verdict || a->restart < 0 ||
                      (k > 0 && !s->v[k - 1].verdict && strcmp(s->v[k - 1].tag, a->tag) == 0);
        if (!joined) {
            char why[200];
            snprintf(why, sizeof(why), "a verdict on attempt %s, which left no result of its own", a->tag);
            if (!err)
                err = refuse(st, s, c, dirfd, s->names[i], why, writer, merged);
            cellcheck_attempt_free(a);
            free(s->names[i]);
            continue;
        }
        s->v[k] = *a;
        s->names[k++] = s->names[i];
    }
    s->n = k;
    return err;
}

/* The index of the standing result: the last attempt's, where a task's own
 * final result stands over a verdict, and a verdict over `interrupted`. */
static size_t standing(const struct scan *s)
{
    size_t i = 0, pick = s->n;
    while (i < s->n) {
        size_t j = i, own = s->n, verdict = s->n;
        for (; j < s->n && strcmp(s->v[j].tag, s->v[i].tag) == 0; j++)
            *(s->v[j].verdict ? &verdict : &own) = j;
        if (own < s->n && s->v[own].r.status != STATUS_INTERRUPTED)
            pick = own;
        else
            pick = verdict < s->n ? verdict : own;
        i = j;
    }
    return pick;
}

static int scan_cell(struct store *st, const struct cell *c, bool writer, struct scan *s)
{
    struct store_issued_list issued = {0};
    struct strlist merged = {0};
    memset(s, 0, sizeof(*s));
    int dirfd = -1, err = cellfile_open_cell(store_dir(st), c->id, &dirfd);
    if (err < 0 || dirfd < 0) {
        if (err < 0) /* not a directory: nothing in it can merge */
            voice_warn(store_voice(st), "collect", NULL, "%s; cell %d's results there are not merged", error_last(),
                       c->id);
        return 0;
    }
    DIR *d = NULL;
    if ((err = store_issued(st, c->id, &issued)) < 0 || (err = store_merged_files(st, c->id, &merged)) < 0)
        goto done;
    int fd2 = dup(dirfd);
    if (fd2 < 0 || !(d = fdopendir(fd2))) {
        if (fd2 >= 0)
            close(fd2);
        err = error_set(BG_EIO, "%s/cells/%d: %s", store_dir(st), c->id, strerror(errno));
        goto done;
    }
    struct dirent *e;
    while (!err && (e = readdir(d))) {
        /* Temporary files of a write in progress end in .tmp.<pid>. */
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".json"))
            continue;
        char *shown = xprintf("%s/cells/%d/%s", store_dir(st), c->id, e->d_name);
        char why[512];
        if (check_file(s, dirfd, e->d_name, shown, c, &issued, why, sizeof(why)))
            err = refuse(st, s, c, dirfd, e->d_name, why, writer, &merged);
        free(shown);
    }
    sort_scan(s);
    if (!err)
        err = drop_orphan_verdicts(st, s, c, dirfd, writer, &merged);
done:
    if (d)
        closedir(d);
    close(dirfd);
    store_issued_free(&issued);
    strlist_free(&merged);
    if (err < 0)
        scan_free(s);
    return err;
}

int collect_read(struct store *st, const struct cell *c, bool writer, struct result *r, char tag[128],
                 struct strlist *files, struct strlist *tags, struct strlist *statuses, int *quarantined)
{
    struct scan s;
    tag[0] = '\0';
    int err = scan_cell(st, c, writer, &s);
    if (err < 0)
        return err;
    for (size_t i = 0; i < s.n; i++) {
        strlist_add(files, s.names[i]);
        strlist_add(tags, s.v[i].tag);
        strlist_add(statuses, status_name(s.v[i].r.status));
    }
    size_t k = standing(&s);
    if (k < s.n) {
        *r = s.v[k].r;
        memset(&s.v[k].r, 0, sizeof(s.v[k].r));
        snprintf(tag, 128, "%s", s.v[k].tag);
    }
    if (quarantined)
        *quarantined += s.quarantined;
    scan_free(&s);
    return 0;
}

int collect_cell(struct store *st, const struct cell *c, int *merged, int *quarantined)
{
    struct result r = {0};
    struct strlist files = {0}, tags = {0}, statuses = {0};
    char *log = NULL, tag[128];
    *merged = 0;
    int err = collect_read(st, c, true, &r, tag, &files, &tags, &statuses, quarantined);
    if (!err && files.n && r.status != STATUS_NONE) {
        log = executor_log_path(store_dir(st), c);
        err = store_merge(st, c, &r, log, (const char *const *)files.v, (const char *const *)tags.v,
                          (const char *const *)statuses.v, files.n, merged);
    }
    if (err < 0)
        error_prefix(err, "collect cell %d (%s)", c->id, c->key);
    result_free(&r);
    strlist_free(&files);
    strlist_free(&tags);
    strlist_free(&statuses);
    free(log);
    return err;
}

int collect_run(struct store *st, const struct matrix *plan, int *files, int *cells, int *quarantined)
{
    int err = 0;
    *files = *cells = *quarantined = 0;
    for (size_t i = 0; !err && i < plan->ncells; i++) {
        int merged = 0;
        err = collect_cell(st, &plan->cells[i], &merged, quarantined);
        *files += merged;
        *cells += merged > 0;
    }
    return err;
}
