/*
 * compare.c - `benchgen compare` (see compare.h; the rules and formats are in
 * docs/COMPARE.md).
 *
 * The statistics live in significance.c; this file decides what may be
 * compared with what (identity, must-be-equal fields, repeats), what else
 * changed in the environment, and how the verdicts are shown. Text and JSON
 * are deterministic: the same runs always print the same bytes.
 */
#include "compare/compare.h"
#include "base/error.h"
#include "base/json.h"
#include "stats/stats.h"
#include "base/util.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* ---- environment keys ---------------------------------------------------- */

/* Keys that describe where or how a run happened rather than what it ran on:
 * they differ between any two runs (paths, host names, serial numbers,
 * momentary clocks) and are shown but never counted as a component change. */
static const char *const informational_[] = {
    "python.executable", "python.prefix", "os.hostname", "os.kernel_version", "benchgen.git_commit",
    "benchgen.git_dirty", "gpu.*.uuid", "gpu.*.pci_bus_id", "gpu.*.sm_clock_khz", "gpu.*.mem_clock_khz",
    "gpu.status", "nvml.status", "cuda.linked", "cudnn.library", "cudnn.cudart", "mem.total_bytes",
    "mem.cgroup_limit_bytes", "pkg.pip", "pkg.setuptools", "pkg.wheel",
    "run.*", /* how the run was asked for (run.with: the pins, i.e. the intent itself) */
};

static bool counted_(const char *key)
{
    for (size_t i = 0; i < sizeof(informational_) / sizeof(*informational_); i++)
        if (fnmatch(informational_[i], key, 0) == 0)
            return false;
    return true;
}

/* PEP 503 form of a package name: lower case, runs of "-_." as one '-'. */
static void pkg_normalise_(const char *s, char *out, size_t n)
{
    size_t k = 0;
    bool sep = false;
    for (; *s && k + 1 < n; s++) {
        if (*s == '-' || *s == '_' || *s == '.') {
            sep = true;
            continue;
        }
        if (sep && k > 0 && k + 2 < n)
            out[k++] = '-';
        sep = false;
        out[k++] = (char)tolower((unsigned char)*s);
    }
    out[k] = '\0';
}

/* A pattern names a package ("diffusers", "nvidia-*", "pkg.torch") or any
 * other key ("cuda.runtime", "gpu.*"). */
static bool intent_matches_(const char *pattern, const char *key)
{
    if (strncmp(key, "pkg.", 4) == 0) {
        char name[256], pat[256];
        pkg_normalise_(key + 4, name, sizeof(name));
        pkg_normalise_(strncmp(pattern, "pkg.", 4) == 0 ? pattern + 4 : pattern, pat, sizeof(pat));
        if (fnmatch(pat, name, 0) == 0)
            return true;
    }
    return fnmatch(pattern, key, 0) == 0;
}

/* "diffusers" for "pkg.diffusers"; other keys as they are. */
static const char *display_key_(const char *key)
{
    return strncmp(key, "pkg.", 4) == 0 ? key + 4 : key;
}

static int add_pattern_(struct compare_pair *p, const char *s, size_t n)
{
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < p->nintended; i++)
        if (strlen(p->intended[i]) == n && strncmp(p->intended[i], s, n) == 0)
            return 0;
    char **grown = realloc(p->intended, (p->nintended + 1) * sizeof(*grown));
    if (!grown)
        return error_set(BG_ENOMEM, "out of memory");
    p->intended = grown;
    if (!(p->intended[p->nintended] = strndup(s, n)))
        return error_set(BG_ENOMEM, "out of memory");
    p->nintended++;
    return 0;
}

static int add_patterns_(struct compare_pair *p, const char *list)
{
    int err = 0;
    while (list && *list && !err) {
        const char *comma = strchr(list, ',');
        size_t n = comma ? (size_t)(comma - list) : strlen(list);
        err = add_pattern_(p, list, n);
        list = comma ? comma + 1 : NULL;
    }
    return err;
}

/* The packages a run pinned with `--with PKG==VER` (or --with=PKG==VER). */
static int add_with_pins_(struct compare_pair *p, const char *command_line)
{
    const char *s = command_line;
    int err = 0;
    while (s && *s && !err) {
        while (*s == ' ')
            s++;
        const char *end = s;
        while (*end && *end != ' ')
            end++;
        const char *pin = NULL;
        if ((size_t)(end - s) == 6 && strncmp(s, "--with", 6) == 0) {
            pin = end;
            while (*pin == ' ')
                pin++;
            end = pin;
            while (*end && *end != ' ')
                end++;
        } else if (end - s > 7 && strncmp(s, "--with=", 7) == 0) {
            pin = s + 7;
        }
        if (pin) {
            const char *eq = pin;
            while (eq < end && !(eq[0] == '=' && eq + 1 < end && eq[1] == '='))
                eq++;
            const char *q = pin;
            if (*q == '\'' || *q == '"')
                q++;
            if (eq < end && eq > q)
                err = add_pattern_(p, q, (size_t)(eq - q));
        }
        s = end;
    }
    return err;
}

/* ---- environment differences --------------------------------------------- */

static int push_change_(struct compare_change **v, size_t *n, const char *key, const char *a, const char *b)
{
    struct compare_change *grown = realloc(*v, (*n + 1) * sizeof(**v));
    if (!grown)
        return error_set(BG_ENOMEM, "out of memory");
    *v = grown;
    struct compare_change *c = &grown[*n];
    memset(c, 0, sizeof(*c));
    c->key = strdup(key);
    c->a = a ? strdup(a) : NULL;
    c->b = b ? strdup(b) : NULL;
    (*n)++;
    if (!c->key || (a && !c->a) || (b && !c->b))
        return error_set(BG_ENOMEM, "out of memory");
    c->counted = counted_(key);
    return 0;
}

static int cmp_change_(const void *x, const void *y)
{
    return strcmp(((const struct compare_change *)x)->key, ((const struct compare_change *)y)->key);
}

/* Every value of key in kl, joined with ", " (a key may repeat: run.with
 * holds one pin per value); NULL when absent. *oom on allocation failure. */
static char *joined_(const struct kvlist *kl, const char *key, bool *oom)
{
    struct strbuf sb = {0};
    bool found = false;
    for (size_t i = 0; i < kl->n && !*oom; i++) {
        if (strcmp(kl->items[i].key, key) != 0)
            continue;
        if ((found && strbuf_puts(&sb, ", ") < 0) ||
            strbuf_puts(&sb, kl->items[i].value ? kl->items[i].value : "") < 0)
            *oom = true;
        found = true;
    }
    if (!found || *oom) {
        strbuf_free(&sb);
        return NULL;
    }
    char *s = sb.buf ? strbuf_detach(&sb) : strdup("");
    if (!s)
        *oom = true;
    return s;
}

/* Every key whose value(s) differ between a and b, sorted by key. */
static int env_diff_(const struct kvlist *a, const struct kvlist *b, struct compare_change **out, size_t *n)
{
    int err = 0;
    for (int side = 0; side < 2 && !err; side++) {
        const struct kvlist *x = side ? b : a, *y = side ? a : b;
        for (size_t i = 0; i < x->n && !err; i++) {
            const char *k = x->items[i].key;
            bool oom = false, first = true;
            for (size_t j = 0; j < i && first; j++) /* a repeated key: once */
                first = strcmp(x->items[j].key, k) != 0;
            if (!first || (side == 1 && kvlist_get(y, k))) /* the second pass adds what a lacks */
                continue;
            char *vx = joined_(x, k, &oom), *vy = joined_(y, k, &oom);
            if (oom)
                err = error_set(BG_ENOMEM, "out of memory");
            else if (!vy || strcmp(vx, vy) != 0)
                err = side ? push_change_(out, n, k, vy, vx) : push_change_(out, n, k, vx, vy);
            free(vx);
            free(vy);
        }
    }
    if (!err && *n > 1)
        qsort(*out, *n, sizeof(**out), cmp_change_);
    return err;
}

static void mark_intended_(struct compare_change *c, size_t n, const struct compare_pair *p)
{
    for (size_t i = 0; i < n; i++) {
        c[i].intended = false;
        for (size_t k = 0; c[i].counted && k < p->nintended && !c[i].intended; k++)
            c[i].intended = intent_matches_(p->intended[k], c[i].key);
    }
}

static void changes_free_(struct compare_change *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].key);
        free(c[i].a);
        free(c[i].b);
    }
    free(c);
}

static int describe_change_(struct strbuf *sb, const struct compare_change *c)
{
    return strbuf_printf(sb, "%s %s -> %s", display_key_(c->key), c->a ? c->a : "(none)",
                         c->b ? c->b : "(none)");
}

/* ---- cells and sides ----------------------------------------------------- */

static char *identity_(const struct rd_cell *c)
{
    return util_printf("%s/%s/b%d/%s", c->model, c->task, c->batch, c->backend);
}

static void side_init_(struct compare_side *s)
{
    memset(s, 0, sizeof(*s));
    s->status = "missing";
    s->mean_ms = s->ci_lo_ms = s->ci_hi_ms = NAN;
}

static int cmp_rep_(const void *x, const void *y)
{
    const struct rd_cell *a = *(const struct rd_cell *const *)x, *b = *(const struct rd_cell *const *)y;
    if (a->repeat != b->repeat)
        return (a->repeat > b->repeat) - (a->repeat < b->repeat);
    return (a->id > b->id) - (a->id < b->id);
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
    s->reps = malloc(s->nreps * sizeof(*s->reps));
    if (!s->reps)
        return error_set(BG_ENOMEM, "out of memory");
    size_t k = 0, total = 0;
    for (size_t i = 0; i < rd->ncells; i++)
        if (!strcmp(ids[i], id))
            s->reps[k++] = &rd->cells[i];
    qsort(s->reps, s->nreps, sizeof(*s->reps), cmp_rep_);
    s->status = "ok";
    for (size_t r = 0; r < s->nreps; r++) {
        const char *st = s->reps[r]->status ? s->reps[r]->status : "pending";
        if (strcmp(st, "ok") != 0) {
            s->status = st;
            break;
        }
    }
    for (size_t r = 0; r < s->nreps; r++)
        if (s->reps[r]->status && !strcmp(s->reps[r]->status, "ok"))
            total += s->reps[r]->ntimed;
    if (total == 0)
        return 0;
    if (!(pool = malloc(total * sizeof(*pool)))) {
        free(s->reps);
        side_init_(s);
        return error_set(BG_ENOMEM, "out of memory");
    }
    size_t at = 0;
    for (size_t r = 0; r < s->nreps; r++) {
        if (!s->reps[r]->status || strcmp(s->reps[r]->status, "ok") != 0)
            continue;
        memcpy(pool + at, s->reps[r]->timed_ns, s->reps[r]->ntimed * sizeof(*pool));
        at += s->reps[r]->ntimed;
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

/* The repeat whose environment stands for the side: the first ok one. */
static const struct rd_cell *side_rep_(const struct compare_side *s)
{
    for (size_t r = 0; r < s->nreps; r++)
        if (s->reps[r]->status && !strcmp(s->reps[r]->status, "ok"))
            return s->reps[r];
    return s->nreps ? s->reps[0] : NULL;
}

static const char *side_input_(const struct compare_side *s)
{
    for (size_t r = 0; r < s->nreps; r++)
        if (s->reps[r]->input_sha256 && s->reps[r]->input_sha256[0])
            return s->reps[r]->input_sha256;
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
    if (!c->workload || !c->workload[0])
        return "built-in";
    const char *slash = strrchr(c->workload, '/');
    return slash ? slash + 1 : c->workload;
}

/* What must be equal for a delta to mean anything; "" when all is. */
static char *mismatch_(const struct compare_side *a, const struct compare_side *b)
{
    const struct rd_cell *x = a->reps[0], *y = b->reps[0];
    struct strbuf sb = {0};
    int err = 0;
#define DIFF_STR(field, label)                                                                               \
    if (!err && strcmp(x->field, y->field) != 0)                                                             \
        err = strbuf_printf(&sb, "%s%s %s vs %s", sb.len ? "; " : "", label, x->field, y->field);
    DIFF_STR(size, "size")
    DIFF_STR(precision, "precision")
#undef DIFF_STR
    const char *ia = side_input_(a), *ib = side_input_(b);
    if (!err && ia && ib && strcmp(ia, ib) != 0)
        err = strbuf_printf(&sb, "%sinput hash %.12s vs %.12s", sb.len ? "; " : "", ia, ib);
    if (!err && strcmp(workload_name_(x), workload_name_(y)) != 0)
        err = strbuf_printf(&sb, "%sworkload %s vs %s", sb.len ? "; " : "", workload_name_(x),
                            workload_name_(y));
    if (!err && x->warmup != y->warmup)
        err = strbuf_printf(&sb, "%swarm-up steps %d vs %d", sb.len ? "; " : "", x->warmup, y->warmup);
    if (err) {
        strbuf_free(&sb);
        return NULL;
    }
    if (!sb.buf)
        return strdup("");
    return strbuf_detach(&sb);
}

static void test_init_(struct significance_test *t)
{
    memset(t, 0, sizeof(*t));
    t->mean_a = t->mean_b = t->ratio = t->ci_lo = t->ci_hi = t->p_adj = NAN;
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
        total += s->reps[r]->ntimed;
    *g = malloc((s->nreps ? s->nreps : 1) * sizeof(**g));
    *buf = malloc((total ? total : 1) * sizeof(**buf));
    if (!*g || !*buf)
        return error_set(BG_ENOMEM, "out of memory");
    size_t at = 0;
    for (size_t r = 0; r < s->nreps; r++) {
        const struct rd_cell *c = s->reps[r];
        if (!c->status || strcmp(c->status, "ok") != 0 || c->ntimed == 0)
            continue;
        for (size_t i = 0; i < c->ntimed; i++)
            (*buf)[at + i] = (double)c->timed_ns[i] / 1e6;
        (*g)[(*ng)++] = (struct significance_group){*buf + at, c->ntimed};
        at += c->ntimed;
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
                err = describe_change_(&sb, &v[i]);
        }
    }
    c->confounded = p->nintended ? unintended > 0 : counted > 1;
    if (!err && !c->confounded)
        strbuf_free(&sb);
    if (err) {
        strbuf_free(&sb);
        return err;
    }
    c->unintended = sb.buf ? strbuf_detach(&sb) : strdup("");
    return c->unintended ? 0 : error_set(BG_ENOMEM, "out of memory");
}

/* ---- building a comparison ----------------------------------------------- */


static int cmp_backend_(const void *x, const void *y)
{
    return strcmp(((const struct compare_backend *)x)->backend, ((const struct compare_backend *)y)->backend);
}

static int geomeans_(struct compare_pair *p)
{
    double all = 0.0;
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        if (!c->t.valid || !(c->t.ratio > 0.0) || !isfinite(c->t.ratio))
            continue;
        size_t k = 0;
        while (k < p->nbackends && strcmp(p->backends[k].backend, c->backend) != 0)
            k++;
        if (k == p->nbackends) {
            struct compare_backend *grown = realloc(p->backends, (k + 1) * sizeof(*grown));
            if (!grown)
                return error_set(BG_ENOMEM, "out of memory");
            p->backends = grown;
            p->backends[k] = (struct compare_backend){strdup(c->backend), 0, 0.0};
            p->nbackends++;
            if (!p->backends[k].backend)
                return error_set(BG_ENOMEM, "out of memory");
        }
        p->backends[k].ncells++;
        p->backends[k].geomean_ratio += log(c->t.ratio); /* sum of logs until the end */
        all += log(c->t.ratio);
        p->ngeomean++;
    }
    for (size_t k = 0; k < p->nbackends; k++)
        p->backends[k].geomean_ratio = exp(p->backends[k].geomean_ratio / (double)p->backends[k].ncells);
    if (p->nbackends > 1)
        qsort(p->backends, p->nbackends, sizeof(*p->backends), cmp_backend_);
    p->geomean_ratio = p->ngeomean ? exp(all / (double)p->ngeomean) : NAN;
    return 0;
}

static int pair_build_(struct compare_result *r, struct compare_pair *p, char **ids[],
                       const struct strlist *all)
{
    const struct rundata *A = r->runs[0], *B = r->runs[p->run];
    struct significance_test *tests = NULL;
    int err = 0;

    if ((err = add_patterns_(p, r->opt.intended)) < 0 || (err = add_with_pins_(p, A->command_line)) < 0 ||
        (err = add_with_pins_(p, B->command_line)) < 0)
        return err;
    for (int side = 0; side < 2; side++) { /* the pins recorded as run.with, one per value */
        const struct kvlist *env = side ? &B->env : &A->env;
        for (size_t i = 0; i < env->n; i++) {
            const char *v = env->items[i].value, *eq = v ? strstr(v, "==") : NULL;
            if (strcmp(env->items[i].key, "run.with") == 0 && eq && eq > v &&
                (err = add_pattern_(p, v, (size_t)(eq - v))) < 0)
                return err;
        }
    }
    if ((err = env_diff_(&A->env, &B->env, &p->env, &p->nenv)) < 0)
        return err;
    mark_intended_(p->env, p->nenv, p);
    {
        const char *ta = kvlist_get(&A->env, "run.ab"), *tb = kvlist_get(&B->env, "run.ab");
        p->ab = ta && tb && !strcmp(ta, "a") && !strcmp(tb, "b") && A->command_line && B->command_line &&
                !strcmp(A->command_line, B->command_line);
    }

    /* baseline identities first (plan order), then the run's own */
    p->cells = calloc(all->n ? all->n : 1, sizeof(*p->cells));
    if (!p->cells)
        return error_set(BG_ENOMEM, "out of memory");
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
            c->model = any->model;
            c->task = any->task;
            c->backend = any->backend;
            c->batch = any->batch;
            c->id = strdup(all->v[i]);
            if (!c->id) {
                err = error_set(BG_ENOMEM, "out of memory");
                break;
            }
            if (b.nreps == 0) {
                c->match = COMPARE_ONLY_BASE;
            } else if (a.nreps == 0) {
                c->match = COMPARE_ONLY_RUN;
            } else {
                if (!(c->mismatch = mismatch_(&a, &b))) {
                    err = error_set(BG_ENOMEM, "out of memory");
                    break;
                }
                c->match = c->mismatch[0] ? COMPARE_MISMATCH : COMPARE_MATCHED;
                /* A cell that failed early may have recorded no environment:
                 * nothing to compare then, rather than "everything removed". */
                const struct rd_cell *ra = side_rep_(&a), *rb = side_rep_(&b);
                if (ra->environment.n && rb->environment.n &&
                    (err = env_diff_(&ra->environment, &rb->environment, &c->changes, &c->nchanges)) < 0)
                    break;
                mark_intended_(c->changes, c->nchanges, p);
                if ((err = confounding_(p, c)) < 0)
                    break;
                if (c->match == COMPARE_MATCHED && !strcmp(a.status, "ok") && !strcmp(b.status, "ok"))
                    err = test_cell_(c, &r->opt, p->ab);
            }
            if (!c->mismatch && !(c->mismatch = strdup("")))
                err = error_set(BG_ENOMEM, "out of memory");
            if (!c->unintended && !(c->unintended = strdup("")))
                err = error_set(BG_ENOMEM, "out of memory");
        }
    }
    if (err)
        return err;

    /* Benjamini-Hochberg over this comparison's tested cells */
    tests = malloc((p->ncells ? p->ncells : 1) * sizeof(*tests));
    if (!tests)
        return error_set(BG_ENOMEM, "out of memory");
    for (size_t i = 0; i < p->ncells; i++)
        tests[i] = p->cells[i].t;
    if ((err = significance_decide(tests, p->ncells, r->opt.alpha, r->opt.noise)) == 0) {
        for (size_t i = 0; i < p->ncells; i++) {
            struct compare_cell *c = &p->cells[i];
            c->t = tests[i];
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
    }
    free(tests);
    return err;
}

static int trend_build_(struct compare_result *r, char **ids[], const struct strlist *all)
{
    r->trend = calloc(all->n ? all->n : 1, sizeof(*r->trend));
    if (!r->trend)
        return error_set(BG_ENOMEM, "out of memory");
    for (size_t i = 0; i < all->n; i++) {
        struct compare_trend *t = &r->trend[i];
        r->ntrend++;
        t->id = strdup(all->v[i]);
        t->points = calloc(r->nruns, sizeof(*t->points));
        if (!t->id || !t->points)
            return error_set(BG_ENOMEM, "out of memory");
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
    *dst = (struct compare_options){SIGNIFICANCE_ALPHA, SIGNIFICANCE_NOISE, SIGNIFICANCE_RESAMPLES, NULL};
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
    out->runs = malloc(n * sizeof(*out->runs));
    if (!out->runs) {
        for (size_t k = 0; k < n; k++)
            rundata_free(runs[k]);
        return error_set(BG_ENOMEM, "out of memory");
    }
    memcpy(out->runs, runs, n * sizeof(*runs));
    out->nruns = n;
    if ((err = options_(&out->opt, opt)) < 0)
        goto done;

    ids = calloc(n, sizeof(*ids));
    if (!ids) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < n && !err; k++) {
        const struct rundata *rd = runs[k];
        ids[k] = calloc(rd->ncells ? rd->ncells : 1, sizeof(**ids));
        if (!ids[k]) {
            err = error_set(BG_ENOMEM, "out of memory");
            break;
        }
        for (size_t i = 0; i < rd->ncells && !err; i++) {
            if (!(ids[k][i] = identity_(&rd->cells[i])))
                err = error_set(BG_ENOMEM, "out of memory");
            else
                err = strlist_add_unique(&all, ids[k][i]);
        }
    }
    if (err)
        goto done;

    out->pairs = calloc(n - 1, sizeof(*out->pairs));
    if (!out->pairs) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
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
    struct rundata **runs = calloc(n, sizeof(*runs));
    if (!runs)
        return error_set(BG_ENOMEM, "out of memory");
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
        changes_free_(p->env, p->nenv);
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
            changes_free_(c->changes, c->nchanges);
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

/* ---- text ---------------------------------------------------------------- */

const char *compare_match_name(enum compare_match m)
{
    switch (m) {
    case COMPARE_MATCHED:
        return "matched";
    case COMPARE_MISMATCH:
        return "mismatch";
    case COMPARE_ONLY_BASE:
        return "only_baseline";
    case COMPARE_ONLY_RUN:
        return "only_run";
    }
    return "?";
}

void compare_fmt_ms(char *buf, size_t n, double ms)
{
    if (!isfinite(ms))
        snprintf(buf, n, "-");
    else if (ms >= 100.0)
        snprintf(buf, n, "%.2f", ms);
    else if (ms >= 1.0)
        snprintf(buf, n, "%.3f", ms);
    else
        snprintf(buf, n, "%.4g", ms);
}

static void fmt_p_(char *buf, size_t n, double p)
{
    if (!isfinite(p))
        snprintf(buf, n, "-");
    else if (p < 1e-4)
        snprintf(buf, n, "%.1e", p);
    else
        snprintf(buf, n, "%.4f", p);
}

static void fmt_side_status_(char *buf, size_t n, const struct compare_side *s)
{
    if (s->nreps == 0)
        snprintf(buf, n, "-");
    else if (!strcmp(s->status, "ok"))
        compare_fmt_ms(buf, n, s->mean_ms);
    else
        snprintf(buf, n, "%s", s->status);
}

void compare_verdict_text(char *buf, size_t n, const struct compare_cell *c)
{
    switch (c->match) {
    case COMPARE_MISMATCH:
        snprintf(buf, n, "mismatch");
        return;
    case COMPARE_ONLY_BASE:
        snprintf(buf, n, "only in baseline");
        return;
    case COMPARE_ONLY_RUN:
        snprintf(buf, n, "only in this run");
        return;
    case COMPARE_MATCHED:
        break;
    }
    if (c->t.verdict == SIGNIFICANCE_NONE)
        snprintf(buf, n, "none (%s / %s)", c->a.status, c->b.status);
    else
        snprintf(buf, n, "%s", significance_verdict_name(c->t.verdict));
}

static void print_change_(FILE *out, const struct compare_change *c, const struct compare_pair *p, int width)
{
    const char *tag = !c->counted     ? "not counted"
                      : !p->nintended ? "counted"
                      : c->intended   ? "intended"
                                      : "NOT intended";
    fprintf(out, "  %-*s %s -> %s  (%s)\n", width, c->key, c->a ? c->a : "(none)", c->b ? c->b : "(none)",
            tag);
}

/* Per-cell environment differences, grouped: cells with the same list share
 * one paragraph (typically one per Python environment). */
static int print_cell_changes_(FILE *out, const struct compare_pair *p)
{
    char **sig = calloc(p->ncells ? p->ncells : 1, sizeof(*sig));
    bool *done = calloc(p->ncells ? p->ncells : 1, sizeof(*done));
    int err = 0;
    if (!sig || !done) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < p->ncells && !err; i++) {
        const struct compare_cell *c = &p->cells[i];
        struct strbuf sb = {0};
        if (c->a.nreps == 0 || c->b.nreps == 0) {
            done[i] = true;
            continue;
        }
        size_t quiet = 0;
        for (size_t k = 0; k < c->nchanges && !err; k++) {
            const struct compare_change *ch = &c->changes[k];
            const char *tag = !p->nintended ? "counted" : ch->intended ? "intended" : "NOT intended";
            if (ch->counted)
                err = strbuf_printf(&sb, "    %s %s -> %s  (%s)\n", display_key_(ch->key),
                                    ch->a ? ch->a : "(none)", ch->b ? ch->b : "(none)", tag);
            else
                quiet++;
        }
        /* paths and the like differ between any two environments: named, not listed */
        size_t shown = 0;
        for (size_t k = 0; quiet && k < c->nchanges && !err; k++) {
            if (c->changes[k].counted)
                continue;
            shown++;
            err = strbuf_printf(&sb, "%s%s%s", shown == 1 ? "    not counted: " : ", ",
                                display_key_(c->changes[k].key), shown == quiet ? "\n" : "");
        }
        if (!err && !sb.buf)
            err = strbuf_puts(&sb, side_rep_(&c->a)->environment.n && side_rep_(&c->b)->environment.n
                                       ? "    (no differences)\n"
                                       : "    (environment not recorded on a side)\n");
        sig[i] = err ? NULL : strbuf_detach(&sb);
        strbuf_free(&sb);
        if (!err && !sig[i])
            err = error_set(BG_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < p->ncells && !err; i++) {
        if (done[i])
            continue;
        size_t count = 0;
        for (size_t j = i; j < p->ncells; j++)
            count += !done[j] && !strcmp(sig[i], sig[j]);
        fprintf(out, "  %zu cell%s (env %s -> %s):", count, count == 1 ? "" : "s", p->cells[i].a.reps[0]->env,
                p->cells[i].b.reps[0]->env);
        size_t shown = 0;
        for (size_t j = i; j < p->ncells; j++) {
            if (done[j] || strcmp(sig[i], sig[j]) != 0)
                continue;
            if (j != i)
                done[j] = true;
            if (shown < 4)
                fprintf(out, "%s %s", shown ? "," : "", p->cells[j].id);
            shown++;
        }
        if (shown > 4)
            fprintf(out, ", and %zu more", shown - 4);
        fprintf(out, "\n%s", sig[i]);
        done[i] = true;
    }
out:
    for (size_t i = 0; sig && i < p->ncells; i++)
        free(sig[i]);
    free(sig);
    free(done);
    return err;
}

static void print_pair_(FILE *out, const struct compare_result *r, const struct compare_pair *p, int idw)
{
    const struct rundata *A = r->runs[0], *B = r->runs[p->run];
    fprintf(out, "\n== [%zu] %s vs [0] %s\n", p->run, B->name, A->name);
    if (p->nintended) {
        fprintf(out, "intended change:");
        for (size_t i = 0; i < p->nintended; i++)
            fprintf(out, "%s %s", i ? "," : "", p->intended[i]);
        fprintf(out, "\n");
    } else {
        fprintf(out,
                "intended change: not stated (no --intended, no --with pins): a cell is confounded when\n"
                "more than one counted component changed\n");
    }

    fprintf(out, "\nenvironment, whole run:%s\n", p->nenv ? "" : " no differences");
    int w = 0;
    for (size_t i = 0; i < p->nenv; i++)
        if ((int)strlen(p->env[i].key) > w)
            w = (int)strlen(p->env[i].key);
    for (size_t i = 0; i < p->nenv; i++)
        print_change_(out, &p->env[i], p, w);
    fprintf(out, "\nenvironment, per cell (Python and packages):\n");
    print_cell_changes_(out, p);

    fprintf(out, "\n%-*s  %10s  %10s  %7s  %-17s  %8s  %s\n", idw, "cell", "A ms/step", "B ms/step", "B/A",
            "95% CI", "q (BH)", "verdict");
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        char ma[32], mb[32], ratio[32] = "-", ci[48] = "-", q[32], v[96];
        fmt_side_status_(ma, sizeof(ma), &c->a);
        fmt_side_status_(mb, sizeof(mb), &c->b);
        if (c->t.valid) {
            snprintf(ratio, sizeof(ratio), "%.4f", c->t.ratio);
            snprintf(ci, sizeof(ci), "[%.4f, %.4f]", c->t.ci_lo, c->t.ci_hi);
        }
        fmt_p_(q, sizeof(q), c->t.p_adj);
        compare_verdict_text(v, sizeof(v), c);
        fprintf(out, "%-*s  %10s  %10s  %7s  %-17s  %8s  %s", idw, c->id, ma, mb, ratio, ci, q, v);
        if (c->match == COMPARE_MISMATCH)
            fprintf(out, ": %s", c->mismatch);
        else if (c->t.verdict == SIGNIFICANCE_AMBIGUOUS)
            fprintf(out, " (%s)", c->t.why);
        if (c->confounded)
            fprintf(out, "  [confounded]");
        fprintf(out, "\n");
    }
    if (p->ncells == 0)
        fprintf(out, "(no cells)\n");

    fprintf(out, "\ngeometric-mean ratio B/A over tested cells (below 1: B is faster)\n");
    for (size_t k = 0; k < p->nbackends; k++)
        fprintf(out, "  %-20s %4zu cell%s  %.4f  (speed-up %.3fx)\n", p->backends[k].backend,
                p->backends[k].ncells, p->backends[k].ncells == 1 ? " " : "s", p->backends[k].geomean_ratio,
                1.0 / p->backends[k].geomean_ratio);
    if (p->ngeomean)
        fprintf(out, "  %-20s %4zu cell%s  %.4f  (speed-up %.3fx)\n", "all", p->ngeomean,
                p->ngeomean == 1 ? " " : "s", p->geomean_ratio, 1.0 / p->geomean_ratio);
    else
        fprintf(out, "  (no tested cells)\n");

    if (p->nconfounded) {
        fprintf(out, "\nconfounded: %zu cell%s changed in more than the intended component%s\n",
                p->nconfounded, p->nconfounded == 1 ? "" : "s", p->nintended ? "" : " (none stated)");
        for (size_t i = 0; i < p->ncells; i++)
            if (p->cells[i].confounded)
                fprintf(out, "  %-*s  %s\n", idw, p->cells[i].id, p->cells[i].unintended);
    }
    fprintf(out,
            "\nsummary: %zu slower, %zu faster, %zu same, %zu ambiguous, %zu untested, %zu mismatched, "
            "%zu only in baseline, %zu only in this run; %zu confounded\n",
            p->nslower, p->nfaster, p->nsame, p->nambiguous, p->nuntested, p->nmismatch, p->nonly_base,
            p->nonly_run, p->nconfounded);
}

int compare_write_text(const struct compare_result *r, FILE *out)
{
    int idw = 4;
    for (size_t i = 0; i < r->ntrend; i++)
        if ((int)strlen(r->trend[i].id) > idw)
            idw = (int)strlen(r->trend[i].id);
    fprintf(out,
            "benchgen compare: %zu runs, each compared with the first. A cell is faster or slower only when\n"
            "a Mann-Whitney U test is significant at %g after Benjamini-Hochberg over the comparison's\n"
            "tested cells AND the %g%% bootstrap interval of the ratio of means B/A lies outside the\n"
            "noise band of +/-%g%%; same when the interval lies inside it; ambiguous otherwise.\n\n",
            r->nruns, r->opt.alpha, (1.0 - r->opt.alpha) * 100.0, r->opt.noise * 100.0);
    int namew = 0;
    for (size_t k = 0; k < r->nruns; k++)
        if ((int)strlen(r->runs[k]->name) > namew)
            namew = (int)strlen(r->runs[k]->name);
    for (size_t k = 0; k < r->nruns; k++) {
        const struct rundata *rd = r->runs[k];
        fprintf(out, "  [%zu] %-*s  created %s  benchgen %s (%s)  %s%s\n", k, namew, rd->name,
                rd->created_utc, rd->benchgen_version, rd->git_commit, rd->dir, k == 0 ? "  (baseline)" : "");
    }
    for (size_t k = 0; k < r->npairs; k++)
        print_pair_(out, r, &r->pairs[k], idw);

    if (r->nruns >= 3) {
        fprintf(out, "\n== trend: mean ms/step in each run\n%-*s", idw, "cell");
        for (size_t k = 0; k < r->nruns; k++)
            fprintf(out, "  %10s%zu]", "[", k);
        fprintf(out, "\n");
        for (size_t i = 0; i < r->ntrend; i++) {
            fprintf(out, "%-*s", idw, r->trend[i].id);
            for (size_t k = 0; k < r->nruns; k++) {
                char buf[32];
                fmt_side_status_(buf, sizeof(buf), &r->trend[i].points[k]);
                fprintf(out, "  %12s", buf);
            }
            fprintf(out, "\n");
        }
    }
    int rc = compare_exit_status(r);
    fprintf(out, "\nresult: %s\n", rc ? "some cell got slower (exit status 3)" : "no cell got slower");
    if (ferror(out))
        return error_set(BG_EIO, "compare: write failed: %s", strerror(errno));
    return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

/* The one JSON writer (base/json.h): its UTF-8 rule, null for NaN, the
 * builders' error contract; the local names keep this file's call sites. */
static json_t *jstr_(const char *s) { return json_str(s); }
static json_t *jreal_(double x) { return json_num(x); }
static void set_(json_t *o, const char *key, json_t *v, int *err) { json_put(o, key, v, err); }
static void push_(json_t *a, json_t *v, int *err) { json_push(a, v, err); }

static json_t *jchanges_(const struct compare_change *c, size_t n, int *err)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n && !*err; i++) {
        json_t *o = json_object();
        if (o) {
            set_(o, "key", jstr_(c[i].key), err);
            set_(o, "a", jstr_(c[i].a), err);
            set_(o, "b", jstr_(c[i].b), err);
            set_(o, "counted", json_boolean(c[i].counted), err);
            set_(o, "intended", json_boolean(c[i].intended), err);
        }
        push_(a, o, err);
    }
    if (!a)
        *err = error_set(BG_ENOMEM, "out of memory");
    return a;
}

static json_t *jside_(const struct compare_side *s, int *err)
{
    if (s->nreps == 0)
        return json_null();
    json_t *o = json_object();
    if (!o) {
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    set_(o, "status", jstr_(s->status), err);
    set_(o, "repeats", json_integer((json_int_t)s->nreps), err);
    set_(o, "n", json_integer((json_int_t)s->n), err);
    set_(o, "mean_ms", jreal_(s->mean_ms), err);
    set_(o, "ci_lo_ms", jreal_(s->ci_lo_ms), err);
    set_(o, "ci_hi_ms", jreal_(s->ci_hi_ms), err);
    set_(o, "env", jstr_(s->reps[0]->env), err);
    set_(o, "input_sha256", jstr_(side_input_(s)), err);
    return o;
}

static json_t *jcell_(const struct compare_cell *c, int *err)
{
    json_t *o = json_object();
    if (!o) {
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    const struct significance_test *t = &c->t;
    set_(o, "id", jstr_(c->id), err);
    set_(o, "model", jstr_(c->model), err);
    set_(o, "task", jstr_(c->task), err);
    set_(o, "batch", json_integer(c->batch), err);
    set_(o, "backend", jstr_(c->backend), err);
    set_(o, "match", jstr_(compare_match_name(c->match)), err);
    set_(o, "mismatch", jstr_(c->mismatch), err);
    set_(o, "a", jside_(&c->a, err), err);
    set_(o, "b", jside_(&c->b, err), err);
    set_(o, "verdict", jstr_(significance_verdict_name(t->verdict)), err);
    set_(o, "why", jstr_(t->why), err);
    set_(o, "tested", json_boolean(t->valid), err);
    set_(o, "ratio", jreal_(t->ratio), err);
    set_(o, "ci_lo", jreal_(t->ci_lo), err);
    set_(o, "ci_hi", jreal_(t->ci_hi), err);
    set_(o, "u", jreal_(t->mwu.u1), err);
    set_(o, "z", jreal_(t->mwu.z), err);
    set_(o, "p", jreal_(t->mwu.p), err);
    set_(o, "p_adj", jreal_(t->p_adj), err);
    set_(o, "exact", json_boolean(t->valid && t->mwu.exact), err);
    set_(o, "changes", jchanges_(c->changes, c->nchanges, err), err);
    set_(o, "confounded", json_boolean(c->confounded), err);
    set_(o, "unintended", jstr_(c->unintended), err);
    return o;
}

static json_t *jpair_(const struct compare_result *r, const struct compare_pair *p, int *err)
{
    json_t *o = json_object(), *cells = json_array(), *backends = json_array(), *intended = json_array();
    json_t *summary = json_object();
    if (!o || !cells || !backends || !intended || !summary) {
        json_decref(o);
        json_decref(cells);
        json_decref(backends);
        json_decref(intended);
        json_decref(summary);
        *err = error_set(BG_ENOMEM, "out of memory");
        return NULL;
    }
    set_(o, "baseline", json_integer(0), err);
    set_(o, "run", json_integer((json_int_t)p->run), err);
    for (size_t i = 0; i < p->nintended; i++)
        push_(intended, jstr_(p->intended[i]), err);
    set_(o, "intended", intended, err);
    set_(o, "environment", jchanges_(p->env, p->nenv, err), err);
    for (size_t i = 0; i < p->ncells && !*err; i++)
        push_(cells, jcell_(&p->cells[i], err), err);
    set_(o, "cells", cells, err);
    for (size_t k = 0; k < p->nbackends && !*err; k++) {
        json_t *b = json_object();
        if (b) {
            set_(b, "backend", jstr_(p->backends[k].backend), err);
            set_(b, "cells", json_integer((json_int_t)p->backends[k].ncells), err);
            set_(b, "geomean_ratio", jreal_(p->backends[k].geomean_ratio), err);
            set_(b, "speedup", jreal_(1.0 / p->backends[k].geomean_ratio), err);
        }
        push_(backends, b, err);
    }
    set_(o, "backends", backends, err);
    set_(o, "geomean_ratio", jreal_(p->geomean_ratio), err);
    set_(o, "speedup", jreal_(1.0 / p->geomean_ratio), err);
    set_(summary, "slower", json_integer((json_int_t)p->nslower), err);
    set_(summary, "faster", json_integer((json_int_t)p->nfaster), err);
    set_(summary, "same", json_integer((json_int_t)p->nsame), err);
    set_(summary, "ambiguous", json_integer((json_int_t)p->nambiguous), err);
    set_(summary, "untested", json_integer((json_int_t)p->nuntested), err);
    set_(summary, "mismatch", json_integer((json_int_t)p->nmismatch), err);
    set_(summary, "only_baseline", json_integer((json_int_t)p->nonly_base), err);
    set_(summary, "only_run", json_integer((json_int_t)p->nonly_run), err);
    set_(summary, "confounded", json_integer((json_int_t)p->nconfounded), err);
    set_(o, "summary", summary, err);
    (void)r;
    return o;
}

int compare_write_json(const struct compare_result *r, FILE *out)
{
    int err = 0;
    json_t *root = json_object(), *runs = json_array(), *pairs = json_array(), *trend = json_array();
    if (!root || !runs || !pairs || !trend) {
        json_decref(root);
        json_decref(runs);
        json_decref(pairs);
        json_decref(trend);
        return error_set(BG_ENOMEM, "out of memory");
    }
    set_(root, "format", jstr_(COMPARE_JSON_FORMAT), &err);
    set_(root, "alpha", json_real(r->opt.alpha), &err);
    set_(root, "noise", json_real(r->opt.noise), &err);
    set_(root, "confidence", json_real(1.0 - r->opt.alpha), &err);
    set_(root, "resamples", json_integer((json_int_t)r->opt.resamples), &err);
    set_(root, "min_samples", json_integer(SIGNIFICANCE_MIN_SAMPLES), &err);
    for (size_t k = 0; k < r->nruns && !err; k++) {
        const struct rundata *rd = r->runs[k];
        json_t *o = json_object();
        if (o) {
            set_(o, "index", json_integer((json_int_t)k), &err);
            set_(o, "dir", jstr_(rd->dir), &err);
            set_(o, "name", jstr_(rd->name), &err);
            set_(o, "created_utc", jstr_(rd->created_utc), &err);
            set_(o, "benchgen_version", jstr_(rd->benchgen_version), &err);
            set_(o, "git_commit", jstr_(rd->git_commit), &err);
            set_(o, "command_line", jstr_(rd->command_line), &err);
        }
        push_(runs, o, &err);
    }
    set_(root, "runs", runs, &err);
    for (size_t k = 0; k < r->npairs && !err; k++)
        push_(pairs, jpair_(r, &r->pairs[k], &err), &err);
    set_(root, "comparisons", pairs, &err);
    for (size_t i = 0; i < r->ntrend && !err; i++) {
        json_t *o = json_object(), *pts = json_array();
        for (size_t k = 0; o && pts && k < r->nruns && !err; k++)
            push_(pts, jside_(&r->trend[i].points[k], &err), &err);
        if (o) {
            set_(o, "id", jstr_(r->trend[i].id), &err);
            set_(o, "points", pts, &err);
        } else {
            json_decref(pts);
        }
        push_(trend, o, &err);
    }
    set_(root, "trend", trend, &err);
    set_(root, "exit_status", json_integer(compare_exit_status(r)), &err);
    if (!err)
        err = json_write(root, out);
    json_decref(root);
    return err;
}
