/*
 * collect.c - attempt files into run.db (see collect.h).
 */
#include "run/collect.h"
#include "run/cellfile.h"
#include "run/executor.h"
#include "base/error.h"
#include "base/xalloc.h"
#include "base/util.h"
#include "store/store_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int collect_read(const char *run_dir, const struct cell *c, struct result *r, struct strlist *files,
                 struct strlist *tags, struct strlist *statuses)
{
    struct cellfile_attempts a = {0};
    int err = cellfile_list_attempts(run_dir, c->id, &a);
    for (size_t i = 0; !err && i < a.n; i++)
        if ((err = strlist_add(files, a.v[i].name)) == 0 && (err = strlist_add(tags, a.v[i].tag)) == 0)
            err = strlist_add(statuses, status_name(a.v[i].status));
    if (!err && a.n)
        err = cellfile_read_attempt(run_dir, c, a.v[a.n - 1].name, r);
    cellfile_attempts_free(&a);
    return err;
}

int collect_cell(struct store *st, const struct cell *c, int *merged)
{
    struct result r = {0};
    struct strlist files = {0}, tags = {0}, statuses = {0};
    char *log = NULL;
    *merged = 0;
    int err = collect_read(store_dir(st), c, &r, &files, &tags, &statuses);
    if (!err && files.n) {
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

int collect_run(struct store *st, const struct matrix *plan, int *files, int *cells)
{
    int err = 0;
    *files = *cells = 0;
    for (size_t i = 0; !err && i < plan->ncells; i++) {
        int merged = 0;
        err = collect_cell(st, &plan->cells[i], &merged);
        *files += merged;
        *cells += merged > 0;
    }
    return err;
}
