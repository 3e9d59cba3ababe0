/*
 * compare.c - `benchgen compare`: what may be compared with what (identity,
 * must-be-equal fields, repeats), the verdicts and the drift canary (see
 * compare.h; the rules are in docs/COMPARE.md).
 *
 * The statistics live in gen/stats (significance.c, tdist.c); the
 * environment diff in compare_env.c; the text output in compare_text.c and
 * the JSON in compare_json.c.
 */
#include "compare/compare.h"
#include "compare/compare_env.h"
#include "base/error.h"
#include "stats/stats.h"
#include "stats/tdist.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- cells and sides ----------------------------------------------------- */

/* model/task/b<batch>/backend, and "@<method>" when the run has the cell
 * under both methods (its key says so): the two methods never pool. */
static char *identity_(const struct rd_cell *c)
{
    const char *at = strchr(c->cell.key, '@');
    size_t n = at ? strcspn(at, "#") : 0;
    return xprintf("%s/%s/b%d/%s%.*s", c->cell.model, c->cell.task, c->cell.batch, c->cell.backend, (int)n,
                   at ? at : "");
}

static void side_init_(struct compare_side *s)
{
    memset(s, 0, sizeof(*s));
    s->mean_ms = s->ci_lo_ms = s->ci_hi_ms = NAN;
}

static int cmp_rep_(const void *x, const void *y)
{
    const struct rd_cell *a = *(const struct rd_cell *const *)x, *b = *(const struct rd_cell *const *)y;
    if (a->cell.repeat != b->cell.repeat)
        return (a->cell.repeat > b->cell.repeat) - (a->cell.repeat < b->cell.repeat);
    return (a->cell.id > b->cell.id) - (a->cell.id < b->cell.id);
}

/* The repeats of identity id in run rd (ids[i] is cell i's identity), their
 * status and pooled statistics. */
static int side_fill_(struct compare_side *s, const struct rundata *rd, char *const *ids, const char *id)
{
    int64_t *pool = NULL;
    int err = 0;
    side_init_(s);
    for (size_t i = 0; i < rd->ncells; i++)
        if (!strcmp(ids[i], id))
            s->nreps++;
    if (s->nreps == 0)
        return 0;
    s->reps = xmalloc(s->nreps * sizeof(*s->reps));
    size_t k = 0, total = 0;
    for (size_t i = 0; i < rd->ncells; i++)
        if (!strcmp(ids[i], id))
            s->reps[k++] = &rd->cells[i];
    qsort(s->reps, s->nreps, sizeof(*s->reps), cmp_rep_);
    s->status = STATUS_OK;
    for (size_t r = 0; r < s->nreps; r++) {
        if (s->reps[r]->result.status != STATUS_OK) {
            s->status = s->reps[r]->result.status;
            break;
        }
    }
    for (size_t r = 0; r < s->nreps; r++)
        if (s->reps[r]->result.status == STATUS_OK)
            total += s->reps[r]->result.ntimed;
    if (total == 0)
        return 0;
    pool = xmalloc(total * sizeof(*pool));
    size_t at = 0;
    for (size_t r = 0; r < s->nreps; r++) {
        if (s->reps[r]->result.status != STATUS_OK)
            continue;
        memcpy(pool + at, s->reps[r]->result.timed_ns, s->reps[r]->result.ntimed * sizeof(*pool));
        at += s->reps[r]->result.ntimed;
    }
    struct stats st;
    if ((err = stats_compute(pool, total, &st)) == 0) {
        s->n = total;
        s->mean_ms = st.mean;
        s->ci_lo_ms = st.ci_lo;
        s->ci_hi_ms = st.ci_hi;
    } else {
        free(s->reps);
        side_init_(s);
    }
    free(pool);
    return err;
}

const char *compare_side_status(const struct compare_side *s)
{
    if (s->nreps == 0)
        return "missing";
    return s->status == STATUS_NONE ? "pending" : status_name(s->status);
}

/* The repeat whose environment stands for the side: the first ok one. */
const struct rd_cell *compare_side_rep(const struct compare_side *s)
{
    for (size_t r = 0; r < s->nreps; r++)
        if (s->reps[r]->result.status == STATUS_OK)
            return s->reps[r];
    return s->nreps ? s->reps[0] : NULL;
}

const char *compare_side_input(const struct compare_side *s)
{
    for (size_t r = 0; r < s->nreps; r++)
        if (s->reps[r]->result.input_sha256[0])
            return s->reps[r]->result.input_sha256;
    return NULL;
}

static bool present_(const struct rundata *rd, char *const *ids, const char *id)
{
    for (size_t i = 0; i < rd->ncells; i++)
        if (!strcmp(ids[i], id))
            return true;
    return false;
}

static const char *workload_name_(const struct rd_cell *c)
{
    if (!c->cell.workload || !c->cell.workload[0])
        return "built-in";
    const char *slash = strrchr(c->cell.workload, '/');
    return slash ? slash + 1 : c->cell.workload;
}

/* What must be equal for a delta to mean anything; "" when all is. */
static char *mismatch_(const struct compare_side *a, const struct compare_side *b)
{
    const struct rd_cell *x = a->reps[0], *y = b->reps[0];
    struct strbuf sb = {0};
#define DIFF_STR(field, label)                                                                               \
    if (strcmp(x->field, y->field) != 0)                                                                     \
        strbuf_printf(&sb, "%s%s %s vs %s", sb.len ? "; " : "", label, x->field, y->field);
    DIFF_STR(cell.size, "size")
    DIFF_STR(cell.precision, "precision")
#undef DIFF_STR
    const char *ia = compare_side_input(a), *ib = compare_side_input(b);
    if (ia && ib && strcmp(ia, ib) != 0)
        strbuf_printf(&sb, "%sinput hash %.12s vs %.12s", sb.len ? "; " : "", ia, ib);
    if (strcmp(workload_name_(x), workload_name_(y)) != 0)
        strbuf_printf(&sb, "%sworkload %s vs %s", sb.len ? "; " : "", workload_name_(x), workload_name_(y));
    if (x->cell.warmup != y->cell.warmup)
        strbuf_printf(&sb, "%swarm-up steps %d vs %d", sb.len ? "; " : "", x->cell.warmup, y->cell.warmup);
    return strbuf_detach(&sb); /* "" when they agree; these formats always expand */
}

static void test_init_(struct significance_test *t)
{
    memset(t, 0, sizeof(*t));
    t->mean_a = t->mean_b = t->ratio = t->ci_lo = t->ci_hi = t->p_adj = NAN;
    t->gmean_a = t->gmean_b = NAN;
    t->p = t->t_stat = t->df = t->cv_process = t->cv_a = t->cv_b = t->band = NAN;
    t->mwu.u1 = t->mwu.z = t->mwu.p = NAN;
    t->verdict = SIGNIFICANCE_NONE;
    snprintf(t->why, sizeof(t->why), "not tested");
}

/* Steps of every ok repeat of a side as ms, one group per repeat. */
static int groups_(const struct compare_side *s, struct significance_group **g, size_t *ng, double **buf)
{
    size_t total = 0;
    *ng = 0;
    for (size_t r = 0; r < s->nreps; r++)
        total += s->reps[r]->result.ntimed;
    *g = xmalloc((s->nreps ? s->nreps : 1) * sizeof(**g));
    *buf = xmalloc((total ? total : 1) * sizeof(**buf));
    size_t at = 0;
    for (size_t r = 0; r < s->nreps; r++) {
        const struct rd_cell *c = s->reps[r];
        if (c->result.status != STATUS_OK || c->result.ntimed == 0)
            continue;
        for (size_t i = 0; i < c->result.ntimed; i++)
            (*buf)[at + i] = (double)c->result.timed_ns[i] / 1e6;
        (*g)[(*ng)++] = (struct significance_group){*buf + at, c->result.ntimed};
        at += c->result.ntimed;
    }
    return 0;
}

/* Paired when both runs are the arms of one interleaved `run --ab` and every
 * repeat is ok on both sides: then group k of A and of B ran next to each
 * other (plan/abplan.h). */
static int test_cell_(struct compare_cell *c, const struct compare_options *o, bool ab)
{
    struct significance_group *ga = NULL, *gb = NULL;
    double *ba = NULL, *bb = NULL;
    size_t nga = 0, ngb = 0;
    int err;
    if ((err = groups_(&c->a, &ga, &nga, &ba)) == 0 && (err = groups_(&c->b, &gb, &ngb, &bb)) == 0)
        err = significance_test(ga, nga, gb, ngb, 1.0 - o->alpha, o->resamples,
                                ab && nga == c->a.nreps && ngb == c->b.nreps && nga == ngb, &c->t);
    free(ga);
    free(gb);
    free(ba);
    free(bb);
    return err;
}

/* Which counted changes the intent does not explain, for one cell. */
static int confounding_(struct compare_pair *p, struct compare_cell *c)
{
    struct strbuf sb = {0};
    size_t counted = 0, unintended = 0;
    int err = 0;
    for (int pass = 0; pass < 2 && !err; pass++) {
        const struct compare_change *v = pass ? c->changes : p->env;
        size_t n = pass ? c->nchanges : p->nenv;
        for (size_t i = 0; i < n && !err; i++) {
            if (!v[i].counted)
                continue;
            counted++;
            if (p->nintended && v[i].intended)
                continue;
            unintended++;
            if (sb.len)
                err = strbuf_puts(&sb, ", ");
            if (!err)
                err = compare_env_describe_change(&sb, &v[i]);
        }
    }
    c->confounded = p->nintended ? unintended > 0 : counted > 1;
    if (!err && !c->confounded)
        strbuf_free(&sb);
    if (err) {
        strbuf_free(&sb);
        return err;
    }
    c->unintended = strbuf_detach(&sb); /* "" when nothing was appended */
    return 0;
}

/* ---- the drift canary ---------------------------------------------------- */

/* log(canary.gemm_ms + canary.copy_ms) of cell c, or NAN without one. */
double compare_canary_log(const struct rd_cell *c)
{
    const char *g = kvlist_get(&c->result.facts, "canary.gemm_ms"), *k = kvlist_get(&c->result.facts, "canary.copy_ms");
    double v = (g ? atof(g) : NAN) + (k ? atof(k) : NAN);
    return v > 0.0 && isfinite(v) ? log(v) : NAN;
}

/* The canary logs of every process of run rd (NAN-free, malloc'd). */
static int canary_logs_(const struct rundata *rd, double **out, size_t *n)
{
    *n = 0;
    *out = xmalloc((rd->ncells ? rd->ncells : 1) * sizeof(**out));
    for (size_t i = 0; i < rd->ncells; i++) {
        double l = compare_canary_log(&rd->cells[i]);
        if (!isnan(l))
            (*out)[(*n)++] = l;
    }
    return 0;
}

static double side_canary_(const struct compare_side *s)
{
    double sum = 0.0;
    size_t n = 0;
    for (size_t r = 0; r < s->nreps; r++) {
        double l = compare_canary_log(s->reps[r]);
        if (!isnan(l)) {
            sum += l;
            n++;
        }
    }
    return n ? sum / (double)n : NAN;
}

/* The comparison's canary: ratio, interval, drift; and each cell's ratio.
 * Drift when the interval of the machine's own speed ratio lies entirely
 * outside the noise band: the machine, not the code, moved. */
static int canary_build_(struct compare_pair *p, const struct rundata *A, const struct rundata *B,
                         const struct compare_options *o)
{
    double *la = NULL, *lb = NULL;
    int err = 0;
    p->canary_ratio = p->canary_lo = p->canary_hi = NAN;
    for (size_t i = 0; i < p->ncells; i++) {
        struct compare_cell *c = &p->cells[i];
        double a = side_canary_(&c->a), b = side_canary_(&c->b);
        c->canary_ratio = isnan(a) || isnan(b) ? NAN : exp(b - a);
    }
    if ((err = canary_logs_(A, &la, &p->canary_a)) < 0 || (err = canary_logs_(B, &lb, &p->canary_b)) < 0)
        goto done;
    if (p->canary_a >= 2 && p->canary_b >= 2) {
        struct tdist_test t;
        if ((err = tdist_test_logs(la, p->canary_a, lb, p->canary_b, 0, 1.0 - o->alpha, &t)) < 0)
            goto done;
        p->canary_ratio = exp(t.diff);
        p->canary_lo = exp(t.lo);
        p->canary_hi = exp(t.hi);
        p->drift = p->canary_lo > 1.0 + o->noise || p->canary_hi < 1.0 - o->noise;
        p->canary_unsure = !p->drift && (p->canary_lo < 1.0 - o->noise || p->canary_hi > 1.0 + o->noise);
    }
    for (size_t i = 0; p->drift && i < p->ncells; i++) {
        struct compare_cell *c = &p->cells[i];
        c->drift = c->t.verdict != SIGNIFICANCE_NONE;
        p->ndrift += c->drift;
    }
done:
    free(la);
    free(lb);
    return err;
}

/* ---- building a comparison ----------------------------------------------- */


static int cmp_backend_(const void *x, const void *y)
{
    return strcmp(((const struct compare_backend *)x)->backend, ((const struct compare_backend *)y)->backend);
}

/* Sums of logs, turned into a struct compare_geomean by geomean_end_(). */
struct gsum {
    double ld, llo, lhi;
};

static bool has_ratio_(const struct compare_cell *c)
{
    return c->t.valid && c->t.ratio > 0.0 && isfinite(c->t.ratio) && c->t.ci_lo > 0.0 && isfinite(c->t.ci_hi);
}

static bool decided_(const struct compare_cell *c)
{
    return c->t.verdict == SIGNIFICANCE_SAME || c->t.verdict == SIGNIFICANCE_FASTER ||
           c->t.verdict == SIGNIFICANCE_SLOWER;
}

static void geomean_add_(struct compare_geomean *g, struct gsum *s, const struct compare_cell *c)
{
    g->ncells++;
    s->llo += log(c->t.ci_lo);
    s->lhi += log(c->t.ci_hi);
    if (decided_(c)) {
        g->ndecided++;
        s->ld += log(c->t.ratio);
    }
}

static void geomean_end_(struct compare_geomean *g, const struct gsum *s)
{
    g->ratio = g->ndecided ? exp(s->ld / (double)g->ndecided) : NAN;
    g->lo = g->ncells ? exp(s->llo / (double)g->ncells) : NAN;
    g->hi = g->ncells ? exp(s->lhi / (double)g->ncells) : NAN;
}

static int geomeans_(struct compare_pair *p)
{
    struct gsum all = {0}, *sums = NULL;
    p->all = (struct compare_geomean){0};
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        if (!has_ratio_(c))
            continue;
        size_t k = 0;
        while (k < p->nbackends && strcmp(p->backends[k].backend, c->backend) != 0)
            k++;
        if (k == p->nbackends) {
            p->backends = xrealloc(p->backends, (k + 1) * sizeof(*p->backends));
            sums = xrealloc(sums, (k + 1) * sizeof(*sums));
            p->backends[k] = (struct compare_backend){xstrdup(c->backend), {0}};
            sums[k] = (struct gsum){0};
            p->nbackends++;
        }
        geomean_add_(&p->backends[k].g, &sums[k], c);
        geomean_add_(&p->all, &all, c);
    }
    for (size_t k = 0; k < p->nbackends; k++)
        geomean_end_(&p->backends[k].g, &sums[k]);
    geomean_end_(&p->all, &all);
    free(sums);
    if (p->nbackends > 1)
        qsort(p->backends, p->nbackends, sizeof(*p->backends), cmp_backend_);
    return 0;
}

static bool side_contended_(const struct compare_side *s)
{
    for (size_t i = 0; i < s->nreps; i++) {
        const char *v = kvlist_get(&s->reps[i]->result.facts, "contention");
        if (v && !strcmp(v, "yes"))
            return true;
    }
    return false;
}

/* ---- scope: the cells a change can affect, and host changes ---------------
 *
 * A cell is affected when something that can change its performance differs
 * for it: a counted difference in its own environment (Python, packages), a
 * counted run-wide difference the comparison intends (--intended, --with),
 * or, when no intent is known, any counted run-wide difference; a cell
 * whose environment is not recorded on a side counts as affected (nothing
 * rules it out). The overall speed-up is the geometric mean over the
 * affected tested cells; the unaffected ones (the control: same Python,
 * same packages) get their own.
 *
 * A tested cell whose ratio B/A moved by COMPARE_HOST_MOVE or more while
 * nothing counted changed, neither its own environment nor the run-wide,
 * but the two runs ran on different hosts, is flagged "host changed:
 * A -> B": the host, not the software, is the likely cause. */

static bool counted_change(const struct compare_change *c, size_t n, bool intended_only)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].counted && (!intended_only || c[i].intended))
            return true;
    return false;
}

static bool env_recorded(const struct compare_side *s)
{
    return s->nreps && compare_side_rep(s)->result.env.n > 0;
}

static const struct compare_change *host_change(const struct compare_pair *p)
{
    for (size_t i = 0; i < p->nenv; i++)
        if (!strcmp(p->env[i].key, "os.hostname") && p->env[i].a && p->env[i].b)
            return &p->env[i];
    return NULL;
}

static void scope_(struct compare_pair *p)
{
    /* run-wide: intended counted changes reach every cell; with no intent
     * known, any counted one does */
    bool run_wide = counted_change(p->env, p->nenv, p->nintended > 0);
    bool run_counted = counted_change(p->env, p->nenv, false);
    const struct compare_change *host = host_change(p);
    struct gsum sa = {0}, su = {0};
    p->affected = p->unaffected = (struct compare_geomean){0};
    for (size_t i = 0; i < p->ncells; i++) {
        struct compare_cell *c = &p->cells[i];
        bool recorded = env_recorded(&c->a) && env_recorded(&c->b);
        bool own = counted_change(c->changes, c->nchanges, false);
        c->affected = run_wide || own || !recorded;
        c->host_changed[0] = '\0';
        if (!has_ratio_(c))
            continue;
        if (c->affected)
            geomean_add_(&p->affected, &sa, c);
        else
            geomean_add_(&p->unaffected, &su, c);
        if (host && recorded && !own && !run_counted && fabs(c->t.ratio - 1.0) >= COMPARE_HOST_MOVE)
            snprintf(c->host_changed, sizeof(c->host_changed), "%s -> %s", host->a, host->b);
    }
    geomean_end_(&p->affected, &sa);
    geomean_end_(&p->unaffected, &su);
}

static int pair_build_(struct compare_result *r, struct compare_pair *p, char **ids[],
                       const struct strlist *all)
{
    const struct rundata *A = r->runs[0], *B = r->runs[p->run];
    struct significance_test *tests = NULL;
    int err = 0;

    if ((err = compare_env_add_patterns(&p->intended, &p->nintended, r->opt.intended)) < 0 || (err = compare_env_add_with_pins(&p->intended, &p->nintended, A->command_line)) < 0 ||
        (err = compare_env_add_with_pins(&p->intended, &p->nintended, B->command_line)) < 0)
        return err;
    for (int side = 0; side < 2; side++) { /* the pins recorded as run.with, one per value */
        const struct kvlist *env = side ? &B->env : &A->env;
        for (size_t i = 0; i < env->n; i++) {
            const char *v = env->items[i].value, *eq = v ? strstr(v, "==") : NULL;
            if (strcmp(env->items[i].key, "run.with") == 0 && eq && eq > v &&
                (err = compare_env_add_pattern(&p->intended, &p->nintended, v, (size_t)(eq - v))) < 0)
                return err;
        }
    }
    if ((err = compare_env_diff(&A->env, &B->env, &p->env, &p->nenv)) < 0)
        return err;
    compare_env_mark_intended(p->env, p->nenv, p->intended, p->nintended);
    {
        const char *ta = kvlist_get(&A->env, "run.ab"), *tb = kvlist_get(&B->env, "run.ab");
        p->ab = ta && tb && !strcmp(ta, "a") && !strcmp(tb, "b") && A->command_line && B->command_line &&
                !strcmp(A->command_line, B->command_line);
    }

    /* baseline identities first (plan order), then the run's own */
    p->cells = xcalloc(all->n ? all->n : 1, sizeof(*p->cells));
    for (int pass = 0; pass < 2 && !err; pass++) {
        for (size_t i = 0; i < all->n && !err; i++) {
            struct compare_cell *c = &p->cells[p->ncells];
            struct compare_side a, b;
            bool in_a = present_(A, ids[0], all->v[i]), in_b = present_(B, ids[p->run], all->v[i]);
            if (pass == 0 ? !in_a : (in_a || !in_b))
                continue;
            if ((err = side_fill_(&a, A, ids[0], all->v[i])) < 0)
                break;
            if ((err = side_fill_(&b, B, ids[p->run], all->v[i])) < 0) {
                free(a.reps);
                break;
            }
            p->ncells++;
            c->a = a;
            c->b = b;
            test_init_(&c->t);
            const struct rd_cell *any = a.nreps ? a.reps[0] : b.reps[0];
            c->model = any->cell.model;
            c->task = any->cell.task;
            c->backend = any->cell.backend;
            c->batch = any->cell.batch;
            c->id = xstrdup(all->v[i]);
            if (b.nreps == 0) {
                c->match = COMPARE_ONLY_BASE;
            } else if (a.nreps == 0) {
                c->match = COMPARE_ONLY_RUN;
            } else {
                c->mismatch = mismatch_(&a, &b);
                c->match = c->mismatch[0] ? COMPARE_MISMATCH : COMPARE_MATCHED;
                /* A cell that failed early may have recorded no environment:
                 * nothing to compare then, rather than "everything removed". */
                const struct rd_cell *ra = compare_side_rep(&a), *rb = compare_side_rep(&b);
                if (ra->result.env.n && rb->result.env.n &&
                    (err = compare_env_diff(&ra->result.env, &rb->result.env, &c->changes, &c->nchanges)) < 0)
                    break;
                compare_env_mark_intended(c->changes, c->nchanges, p->intended, p->nintended);
                if ((err = confounding_(p, c)) < 0)
                    break;
                if (c->match == COMPARE_MATCHED && a.status == STATUS_OK && b.status == STATUS_OK)
                    err = test_cell_(c, &r->opt, p->ab);
            }
            if (!c->mismatch)
                c->mismatch = xstrdup("");
            if (!c->unintended)
                c->unintended = xstrdup("");
        }
    }
    if (err)
        return err;

    /* Benjamini-Hochberg over this comparison's tested cells */
    tests = xmalloc((p->ncells ? p->ncells : 1) * sizeof(*tests));
    for (size_t i = 0; i < p->ncells; i++)
        tests[i] = p->cells[i].t;
    if (r->opt.profile)
        compare_profile_apply(p, r->opt.profile, A, B, &r->opt, tests);
    if ((err = significance_decide(tests, p->ncells, r->opt.alpha, r->opt.noise)) == 0 &&
        (err = compare_seq_apply(p, A, B, &r->opt, tests)) == 0) {
        for (size_t i = 0; i < p->ncells; i++) {
            struct compare_cell *c = &p->cells[i];
            c->t = tests[i];
            /* A number measured beside other busy processes (run/telemetry.h)
             * says nothing either way, when the other side was measured at
             * another time. The two arms of one interleaved run (paired
             * test) are the exception: the load hit the k-th A and B
             * processes alike, and what it adds is in the measured noise
             * and band; the reason says it was there. */
            if (c->match == COMPARE_MATCHED && c->t.verdict != SIGNIFICANCE_NONE &&
                (side_contended_(&c->a) || side_contended_(&c->b))) {
                if (c->t.paired) {
                    size_t len = strlen(c->t.why);
                    snprintf(c->t.why + len, sizeof(c->t.why) - len, "%s",
                             "; under contention on both arms of one interleaved run");
                } else {
                    c->t.verdict = SIGNIFICANCE_AMBIGUOUS;
                    snprintf(c->t.why, sizeof(c->t.why), "%s",
                             "measured under contention: other processes used the CPUs or the cell's GPU "
                             "(`benchgen show` names them)");
                }
            }
            switch (c->match) {
            case COMPARE_MISMATCH:
                p->nmismatch++;
                break;
            case COMPARE_ONLY_BASE:
                p->nonly_base++;
                break;
            case COMPARE_ONLY_RUN:
                p->nonly_run++;
                break;
            case COMPARE_MATCHED:
                switch (c->t.verdict) {
                case SIGNIFICANCE_SAME:
                    p->nsame++;
                    break;
                case SIGNIFICANCE_FASTER:
                    p->nfaster++;
                    break;
                case SIGNIFICANCE_SLOWER:
                    p->nslower++;
                    break;
                case SIGNIFICANCE_AMBIGUOUS:
                    p->nambiguous++;
                    break;
                case SIGNIFICANCE_NONE:
                    p->nuntested++;
                    break;
                }
                break;
            }
            p->nconfounded += c->confounded;
        }
        err = geomeans_(p);
        scope_(p);
    }
    if (!err)
        err = canary_build_(p, A, B, &r->opt);
    free(tests);
    return err;
}

static int trend_build_(struct compare_result *r, char **ids[], const struct strlist *all)
{
    r->trend = xcalloc(all->n ? all->n : 1, sizeof(*r->trend));
    for (size_t i = 0; i < all->n; i++) {
        struct compare_trend *t = &r->trend[i];
        r->ntrend++;
        t->id = xstrdup(all->v[i]);
        t->points = xcalloc(r->nruns, sizeof(*t->points));
        for (size_t k = 0; k < r->nruns; k++) {
            int err = side_fill_(&t->points[k], r->runs[k], ids[k], all->v[i]);
            if (err)
                return err;
        }
    }
    return 0;
}

static int options_(struct compare_options *dst, const struct compare_options *src)
{
    *dst = (struct compare_options){SIGNIFICANCE_ALPHA, SIGNIFICANCE_NOISE, SIGNIFICANCE_RESAMPLES, NULL, NULL};
    if (src)
        *dst = *src;
    if (dst->resamples == 0)
        dst->resamples = SIGNIFICANCE_RESAMPLES;
    if (!(dst->alpha > 0.0 && dst->alpha < 1.0))
        return error_set(BG_EUSAGE, "--alpha must be between 0 and 1 (got %g)", dst->alpha);
    if (!(dst->noise >= 0.0 && dst->noise < 1.0))
        return error_set(BG_EUSAGE, "--noise must be at least 0%% and below 100%% (got %g%%)",
                         dst->noise * 100);
    if (dst->resamples < 100 || dst->resamples > 1000000)
        return error_set(BG_EUSAGE, "resamples must be between 100 and 1000000 (got %zu)", dst->resamples);
    return 0;
}

int compare_build(struct compare_result *out, struct rundata **runs, size_t n,
                  const struct compare_options *opt)
{
    char ***ids = NULL;
    struct strlist all = {0};
    int err = 0;

    memset(out, 0, sizeof(*out));
    if (n < 2) {
        for (size_t k = 0; k < n; k++)
            rundata_free(runs[k]);
        return error_set(BG_EUSAGE, "compare needs at least two runs");
    }
    out->runs = xmalloc(n * sizeof(*out->runs));
    memcpy(out->runs, runs, n * sizeof(*runs));
    out->nruns = n;
    if ((err = options_(&out->opt, opt)) < 0)
        goto done;

    ids = xcalloc(n, sizeof(*ids));
    for (size_t k = 0; k < n && !err; k++) {
        const struct rundata *rd = runs[k];
        ids[k] = xcalloc(rd->ncells ? rd->ncells : 1, sizeof(**ids));
        for (size_t i = 0; i < rd->ncells && !err; i++) {
            ids[k][i] = identity_(&rd->cells[i]);
            err = strlist_add_unique(&all, ids[k][i]);
        }
    }
    if (err)
        goto done;

    out->pairs = xcalloc(n - 1, sizeof(*out->pairs));
    for (size_t k = 1; k < n && !err; k++) {
        out->pairs[k - 1].run = k;
        out->npairs++;
        err = pair_build_(out, &out->pairs[k - 1], ids, &all);
    }
    if (!err)
        err = trend_build_(out, ids, &all);

done:
    for (size_t k = 0; ids && k < n; k++) {
        for (size_t i = 0; ids[k] && i < runs[k]->ncells; i++)
            free(ids[k][i]);
        free(ids[k]);
    }
    free(ids);
    strlist_free(&all);
    if (err)
        compare_result_free(out);
    return err;
}

int compare_load(struct compare_result *out, const char *const *run_dirs, size_t n,
                 const struct compare_options *opt)
{
    memset(out, 0, sizeof(*out));
    if (n < 2)
        return error_set(BG_EUSAGE, "compare needs at least two runs (the first is the baseline)");
    struct rundata **runs = xcalloc(n, sizeof(*runs));
    int err = 0;
    for (size_t k = 0; k < n && !err; k++)
        err = rundata_load(&runs[k], run_dirs[k]); /* its message names the directory */
    if (err) {
        for (size_t k = 0; k < n; k++)
            if (runs[k])
                rundata_free(runs[k]);
        free(runs);
        return err;
    }
    err = compare_build(out, runs, n, opt);
    free(runs);
    return err;
}

int compare_exit_status(const struct compare_result *r)
{
    for (size_t k = 0; k < r->npairs; k++)
        if (r->pairs[k].nslower > 0)
            return COMPARE_EXIT_SLOWER;
    return 0;
}

void compare_result_free(struct compare_result *r)
{
    if (!r)
        return;
    for (size_t k = 0; k < r->npairs; k++) {
        struct compare_pair *p = &r->pairs[k];
        compare_env_changes_free(p->env, p->nenv);
        for (size_t i = 0; i < p->nintended; i++)
            free(p->intended[i]);
        free(p->intended);
        for (size_t i = 0; i < p->ncells; i++) {
            struct compare_cell *c = &p->cells[i];
            free(c->id);
            free(c->mismatch);
            free(c->unintended);
            free(c->a.reps);
            free(c->b.reps);
            compare_env_changes_free(c->changes, c->nchanges);
        }
        free(p->cells);
        for (size_t i = 0; i < p->nbackends; i++)
            free(p->backends[i].backend);
        free(p->backends);
    }
    free(r->pairs);
    for (size_t i = 0; i < r->ntrend; i++) {
        for (size_t k = 0; r->trend[i].points && k < r->nruns; k++)
            free(r->trend[i].points[k].reps);
        free(r->trend[i].points);
        free(r->trend[i].id);
    }
    free(r->trend);
    for (size_t k = 0; k < r->nruns; k++)
        rundata_free(r->runs[k]);
    free(r->runs);
    memset(r, 0, sizeof(*r));
}
