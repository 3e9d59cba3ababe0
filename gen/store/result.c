/*
 * result.c - growing a cell's sample arrays and releasing a result.
 */
#include "store/result.h"
#include "base/error.h"

#include <stdlib.h>

int result_add_sample(struct result *r, int warmup, int64_t ns)
{
    int64_t **arr = warmup ? &r->warmup_ns : &r->timed_ns;
    size_t *n = warmup ? &r->nwarmup : &r->ntimed;
    size_t *cap = warmup ? &r->capwarmup : &r->captimed;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 128;
        int64_t *p = realloc(*arr, c * sizeof(*p));
        if (!p)
            return error_set(BG_ENOMEM, "out of memory");
        *arr = p;
        *cap = c;
    }
    (*arr)[(*n)++] = ns;
    return 0;
}

void result_free(struct result *r)
{
    free(r->detail);
    free(r->warmup_ns);
    free(r->timed_ns);
    kvlist_free(&r->phases);
    kvlist_free(&r->facts);
    kvlist_free(&r->env);
    r->detail = NULL;
    r->warmup_ns = r->timed_ns = NULL;
    r->nwarmup = r->ntimed = r->capwarmup = r->captimed = 0;
}
