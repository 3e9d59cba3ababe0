/*
 * collect.c - attempt files into run.db (see collect.h).
 */
#include "run/collect.h"
#include "run/cellfile.h"
#include "run/executor.h"
#include "base/error.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int collect_cell(struct store *st, const struct cell *c, int *merged, char latest[16])
{
    struct cellfile_attempts a = {0};
    struct result r = {0};
    const char **names = NULL, **tags = NULL, **statuses = NULL;
    char *log = NULL;
    const char *dir = store_dir(st);
    *merged = 0;
    if (latest)
        latest[0] = '\0';
    int err = cellfile_list_attempts(dir, c->id, &a);
    if (err < 0 || a.n == 0)
        goto done;
    const struct cellfile_attempt *newest = &a.v[a.n - 1];
    if (latest)
        snprintf(latest, 16, "%s", newest->status);
    names = calloc(a.n, sizeof(*names));
    tags = calloc(a.n, sizeof(*tags));
    statuses = calloc(a.n, sizeof(*statuses));
    log = executor_log_path(dir, c);
    if (!names || !tags || !statuses || !log) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < a.n; i++) {
        names[i] = a.v[i].name;
        tags[i] = a.v[i].tag;
        statuses[i] = a.v[i].status;
    }
    if ((err = cellfile_read_attempt(dir, c, newest->name, &r)) < 0)
        goto done;
    err = store_merge(st, c, &r, log, names, tags, statuses, a.n, merged);
done:
    if (err < 0)
        error_prefix(err, "collect cell %d (%s)", c->id, c->key);
    result_free(&r);
    free(names);
    free(tags);
    free(statuses);
    free(log);
    cellfile_attempts_free(&a);
    return err;
}

int collect_run(struct store *st, const struct matrix *plan, int *files, int *cells)
{
    int err = 0;
    *files = *cells = 0;
    for (size_t i = 0; !err && i < plan->ncells; i++) {
        int merged = 0;
        err = collect_cell(st, &plan->cells[i], &merged, NULL);
        *files += merged;
        *cells += merged > 0;
    }
    return err;
}
