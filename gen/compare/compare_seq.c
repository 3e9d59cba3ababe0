/*
 * compare_seq.c - the verdicts of a sequential `run --ab` (see
 * compare_seq_apply() in compare.h; the rule is stats/seqtest.h, the run's
 * side run/abseq.c; docs/COMPARE.md, "Sequential verdicts").
 */
#include "compare/compare.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "stats/seqtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "first 4, step 2, cap 12, effect 5%, alpha 0.05, spending pocock, noise 2%" (run/abseq.c) */
static int parse_design(struct seqtest_design *d, const char *s)
{
    size_t first, step, cap;
    double effect, alpha, noise;
    char spending[32];
    if (sscanf(s, "first %zu, step %zu, cap %zu, effect %lf%%, alpha %lf, spending %31[^,], noise %lf%%", &first,
               &step, &cap, &effect, &alpha, spending, &noise) != 7 ||
        (strcmp(spending, "pocock") != 0 && strcmp(spending, "obrien-fleming") != 0))
        return error_set(BG_EDAMAGED, "the run's sequential design (run.seq.design) cannot be read");
    if (seqtest_design(d, first, step, cap, alpha, effect / 100.0,
                       strcmp(spending, "obrien-fleming") == 0 ? SEQTEST_OBF : SEQTEST_POCOCK) < 0)
        return error_prefix(BG_EDAMAGED, "the run's sequential design (run.seq.design)");
    return 0;
}

/* The log of each ok process's mean ms/step, in repeat order; how many. */
static size_t logs(const struct compare_side *s, double *out)
{
    size_t n = 0;
    for (size_t r = 0; r < s->nreps; r++) {
        const struct rd_cell *c = s->reps[r];
        if (c->result.status != STATUS_OK || c->result.ntimed == 0)
            continue;
        double sum = 0.0;
        for (size_t i = 0; i < c->result.ntimed; i++)
            sum += (double)c->result.timed_ns[i] / 1e6;
        out[n++] = log(sum / (double)c->result.ntimed);
    }
    return n;
}

int compare_seq_apply(struct compare_pair *p, const struct rundata *A, const struct rundata *B,
                      const struct compare_options *o, struct significance_test *tests)
{
    const char *da = kvlist_get(&A->env, "run.seq.design"), *db = kvlist_get(&B->env, "run.seq.design");
    if (!p->ab || !da || !db || strcmp(da, db) != 0)
        return 0;
    struct seqtest_design d;
    int err = parse_design(&d, da);
    if (err < 0)
        return err;
    double *pp = xmalloc((p->ncells ? p->ncells : 1) * sizeof(*pp)), *q = xmalloc((p->ncells ? p->ncells : 1) * sizeof(*q));
    struct seqtest_result *res = xcalloc(p->ncells ? p->ncells : 1, sizeof(*res));
    for (size_t i = 0; i < p->ncells; i++) {
        struct compare_cell *c = &p->cells[i];
        struct significance_test *t = &tests[i];
        pp[i] = NAN;
        if (c->match != COMPARE_MATCHED)
            continue;
        char *key = xprintf("run.seq.cell.%s", c->id);
        c->seq_stop = kvlist_get(&A->env, key);
        free(key);
        c->sequential = true;
        c->seq_looks = d.nlooks;
        if (!t->valid || !t->per_process || !t->paired)
            continue;
        double *la = xmalloc(c->a.nreps * sizeof(*la)), *lb = xmalloc(c->b.nreps * sizeof(*lb));
        size_t na = logs(&c->a, la), nb = logs(&c->b, lb);
        int k = na == nb ? seqtest_look_index(&d, na) : -1;
        if (k >= 0 && (err = seqtest_look(&res[i], &d, la, lb, na, o->noise)) == 0) {
            c->seq_look = (size_t)k + 1;
            pp[i] = fmin(1.0, res[i].p * d.alpha / res[i].level);
        }
        free(la);
        free(lb);
        if (err < 0)
            goto done;
        if (k < 0) {
            t->verdict = SIGNIFICANCE_AMBIGUOUS;
            snprintf(t->why, sizeof(t->why), "%zu processes a side is not a look of the sequential design (the run "
                     "was interrupted or resumed)", na);
        }
    }
    if ((err = significance_bh(pp, p->ncells, q)) < 0)
        goto done;
    for (size_t i = 0; i < p->ncells; i++) {
        struct significance_test *t = &tests[i];
        const struct seqtest_result *s = &res[i];
        if (!p->cells[i].seq_look)
            continue;
        t->ci_lo = s->lo; /* the repeated confidence interval */
        t->ci_hi = s->hi;
        t->p_adj = q[i];
        snprintf(t->why, sizeof(t->why), "%s", s->why);
        switch (s->decision) {
        case SEQTEST_SLOWER:
        case SEQTEST_FASTER:
            if (q[i] < d.alpha) {
                t->verdict = s->decision == SEQTEST_SLOWER ? SIGNIFICANCE_SLOWER : SIGNIFICANCE_FASTER;
            } else {
                t->verdict = SIGNIFICANCE_AMBIGUOUS;
                size_t len = strlen(t->why);
                snprintf(t->why + len, sizeof(t->why) - len, "; not significant after Benjamini-Hochberg over the "
                         "comparison's cells (q %.3g)", q[i]);
            }
            break;
        case SEQTEST_SAME:
            t->verdict = SIGNIFICANCE_SAME;
            t->band = s->margin;
            t->band_wide = s->margin > o->noise;
            break;
        default:
            t->verdict = SIGNIFICANCE_AMBIGUOUS;
            break;
        }
    }
done:
    free(pp);
    free(q);
    free(res);
    return err;
}
