/*
 * compare_scope.c - affected cells and host-change flags (see compare_scope.h).
 */
#include "compare/compare_scope.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool counted_change(const struct compare_change *c, size_t n, bool intended_only)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].counted && (!intended_only || c[i].intended))
            return true;
    return false;
}

static bool env_recorded(const struct compare_side *s)
{
    return s->nreps && compare_side_rep(s)->environment.n > 0;
}

static const struct compare_change *host_change(const struct compare_pair *p)
{
    for (size_t i = 0; i < p->nenv; i++)
        if (!strcmp(p->env[i].key, "os.hostname") && p->env[i].a && p->env[i].b)
            return &p->env[i];
    return NULL;
}

void compare_scope(struct compare_pair *p)
{
    /* run-wide: intended counted changes reach every cell; with no intent
     * known, any counted one does */
    bool run_wide = counted_change(p->env, p->nenv, p->nintended > 0);
    bool run_counted = counted_change(p->env, p->nenv, false);
    const struct compare_change *host = host_change(p);
    double la = 0, lu = 0;
    p->naffected = p->nunaffected = 0;
    for (size_t i = 0; i < p->ncells; i++) {
        struct compare_cell *c = &p->cells[i];
        bool recorded = env_recorded(&c->a) && env_recorded(&c->b);
        bool own = counted_change(c->changes, c->nchanges, false);
        c->affected = run_wide || own || !recorded;
        c->host_changed[0] = '\0';
        if (!c->t.valid || !(c->t.ratio > 0.0) || !isfinite(c->t.ratio))
            continue;
        if (c->affected) {
            la += log(c->t.ratio);
            p->naffected++;
        } else {
            lu += log(c->t.ratio);
            p->nunaffected++;
        }
        if (host && recorded && !own && !run_counted && fabs(c->t.ratio - 1.0) >= COMPARE_HOST_MOVE)
            snprintf(c->host_changed, sizeof(c->host_changed), "%s -> %s", host->a, host->b);
    }
    p->geomean_affected = p->naffected ? exp(la / (double)p->naffected) : NAN;
    p->geomean_unaffected = p->nunaffected ? exp(lu / (double)p->nunaffected) : NAN;
}
