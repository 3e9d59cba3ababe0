/*
 * runinputs.c - the list of a run's input files (see runinputs.h; their
 * rows in run.db are written and read in store_sql.c).
 */
#include "store/runinputs.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static struct run_input *append(struct run_inputs *l, const char *path, const char *kind, const char *origin)
{
    if (run_inputs_find(l, path))
        return NULL;
    l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
    struct run_input *in = &l->v[l->n++];
    memset(in, 0, sizeof(*in));
    in->path = xstrdup(path);
    in->kind = xstrdup(kind);
    in->origin = origin ? xstrdup(origin) : NULL;
    return in;
}

int run_inputs_add(struct run_inputs *l, const char *path, const char *kind, const char *origin,
                   const void *data, size_t len)
{
    char hex[65];
    int err = sha256_hex(data, len, hex);
    if (err < 0)
        return err;
    struct run_input *in = append(l, path, kind, origin);
    if (!in)
        return 0;
    memcpy(in->sha256, hex, sizeof(hex));
    in->size = len;
    if (len <= RUNINPUT_MAX_CONTENT) {
        in->content = xmalloc(len ? len : 1);
        memcpy(in->content, data, len);
        in->len = len;
    }
    return 0;
}

int run_inputs_add_hash(struct run_inputs *l, const char *path, const char *kind, const char *origin,
                        const char sha256[65], uint64_t size)
{
    struct run_input *in = append(l, path, kind, origin);
    if (in) {
        memcpy(in->sha256, sha256, 65);
        in->size = size;
    }
    return 0;
}

const struct run_input *run_inputs_find(const struct run_inputs *l, const char *path)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].path, path))
            return &l->v[i];
    return NULL;
}

static int cmp_input(const void *a, const void *b)
{
    return strcmp(((const struct run_input *)a)->path, ((const struct run_input *)b)->path);
}

void run_inputs_sort(struct run_inputs *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), cmp_input);
}

void run_inputs_free(struct run_inputs *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].path);
        free(l->v[i].kind);
        free(l->v[i].origin);
        free(l->v[i].content);
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
