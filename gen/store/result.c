/*
 * result.c - growing a cell's sample arrays and releasing a result.
 */
#include "store/result.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int result_add_sample(struct result *r, int warmup, int64_t ns)
{
    int64_t **arr = warmup ? &r->warmup_ns : &r->timed_ns;
    size_t *n = warmup ? &r->nwarmup : &r->ntimed;
    size_t *cap = warmup ? &r->capwarmup : &r->captimed;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 128;
        *arr = xrealloc(*arr, c * sizeof(**arr));
        *cap = c;
    }
    (*arr)[(*n)++] = ns;
    return 0;
}

const char *result_device(const struct result *r)
{
    const char *d = kvlist_get(&r->facts, "placement.device");
    if (!d || !*d)
        d = kvlist_get(&r->facts, "audit.device");
    return d && *d ? d : NULL;
}

bool result_warm_cache(const struct result *r)
{
    const char *v = kvlist_get(&r->facts, "compile.cache");
    return v && strcmp(v, "warm") == 0;
}

double result_compile_ms(const struct result *r)
{
    return r->nwarmup && !result_warm_cache(r) ? (double)r->warmup_ns[0] / 1e6 : NAN;
}

void result_free(struct result *r)
{
    free(r->detail);
    free(r->warmup_ns);
    free(r->timed_ns);
    kvlist_free(&r->phases);
    kvlist_free(&r->facts);
    kvlist_free(&r->env);
    tseries_free(&r->telemetry);
    r->detail = NULL;
    r->warmup_ns = r->timed_ns = NULL;
    r->nwarmup = r->ntimed = r->capwarmup = r->captimed = 0;
}

int tseries_add(struct tseries *s, const char *name, int64_t t_ns, double value)
{
    if (s->n == s->cap) {
        size_t c = s->cap ? s->cap * 2 : 256;
        s->rows = xrealloc(s->rows, c * sizeof(*s->rows));
        s->cap = c;
    }
    struct tseries_row *row = &s->rows[s->n++];
    row->t_ns = t_ns;
    row->value = value;
    snprintf(row->name, sizeof(row->name), "%s", name);
    return 0;
}

void tseries_free(struct tseries *s)
{
    free(s->rows);
    s->rows = NULL;
    s->n = s->cap = 0;
}
