/*
 * executor_local.c - the local executor: one cell at a time, each in a fresh
 * worker forked by this process (see executor.h).
 */
#include "run/executor.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

struct local {
    const struct matrix *todo;
    size_t next; /* index of the next cell to start */
};

static int local_open(struct executor *ex)
{
    struct local *l = calloc(1, sizeof(*l));
    if (!l)
        return error_set(BG_ENOMEM, "out of memory");
    ex->priv = l;
    return 0;
}

static int local_start(struct executor *ex, const struct matrix *todo)
{
    struct local *l = ex->priv;
    l->todo = todo;
    l->next = 0;
    return 0;
}

static int local_next(struct executor *ex, struct exec_event *ev)
{
    struct local *l = ex->priv;
    memset(ev, 0, sizeof(*ev));
    if (!l->todo || l->next >= l->todo->ncells || (ex->stop && *ex->stop))
        return 0;
    const struct cell *c = &l->todo->cells[l->next++];
    if (ex->hooks.started)
        ex->hooks.started(ex->hooks.arg, c);
    ev->cell = c;
    if (!(ev->log_path = executor_log_path(store_dir(ex->st), c)))
        return error_set(BG_ENOMEM, "out of memory");
    int err = executor_run_cell(c, ev->log_path, ex->stop, &ex->hooks, &ev->result);
    if (err < 0) {
        exec_event_free(ev);
        return err;
    }
    return 1;
}

static void local_close(struct executor *ex)
{
    free(ex->priv);
    ex->priv = NULL;
}

const struct executor_ops executor_local_ops = {
    .name = "local",
    .open = local_open,
    .start = local_start,
    .next = local_next,
    .close = local_close,
};
