/*
 * compare_profile.c - noise profiles: made from an A/A comparison, used by
 * a later one when the machine has not moved (see compare_profile.h;
 * docs/COMPARE.md, "Noise profiles").
 */
#include "compare/compare_profile.h"
#include "base/error.h"
#include "base/json.h"
#include "base/util.h"
#include "base/xalloc.h"
#include "stats/tdist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define PROFILE_MAX_BYTES (16u << 20)

/* Mean and standard deviation of the canary logs of every process of both
 * runs; how many. */
static size_t canary_stats(const struct rundata *A, const struct rundata *B, double *mean, double *sd, double **logs)
{
    size_t n = 0;
    *logs = xmalloc((A->ncells + B->ncells + 1) * sizeof(**logs));
    for (int k = 0; k < 2; k++) {
        const struct rundata *rd = k ? B : A;
        for (size_t i = 0; i < rd->ncells; i++) {
            double l = compare_canary_log(&rd->cells[i]);
            if (!isnan(l))
                (*logs)[n++] = l;
        }
    }
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (*logs)[i];
    *mean = n ? s / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        ss += ((*logs)[i] - *mean) * ((*logs)[i] - *mean);
    *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
    return n;
}

static bool counted_any(const struct compare_change *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (c[i].counted)
            return true;
    return false;
}

int compare_profile_save(const struct compare_result *r, const char *path)
{
    if (r->npairs < 1)
        return error_set(BG_EUSAGE, "--save-profile needs a comparison");
    const struct compare_pair *p = &r->pairs[0];
    const struct rundata *A = r->runs[0], *B = r->runs[p->run];
    if (counted_any(p->env, p->nenv))
        return error_set(BG_EUSAGE, "--save-profile: not an A/A comparison (the runs differ in a counted "
                                    "component); make the profile from two runs of the same code");
    for (size_t i = 0; i < p->ncells; i++)
        if (counted_any(p->cells[i].changes, p->cells[i].nchanges))
            return error_set(BG_EUSAGE, "--save-profile: not an A/A comparison (%s differs in a counted component)",
                             p->cells[i].id);
    double mean, sd, *logs = NULL;
    size_t n = canary_stats(A, B, &mean, &sd, &logs);
    free(logs);
    if (n < 4 || !isfinite(sd))
        return error_set(BG_EUSAGE, "--save-profile: the runs recorded no drift canary (benchgen before it had "
                                    "one): a profile could never be checked");
    int err = 0;
    json_t *root = json_object(), *cells = json_array();
    json_put(root, "format", json_str(COMPARE_PROFILE_FORMAT), &err);
    json_put(root, "host", json_str(kvlist_get(&A->env, "os.hostname")), &err);
    json_put(root, "cpu", json_str(kvlist_get(&A->env, "cpu.model")), &err);
    json_put(root, "made", json_str(A->created_utc), &err);
    json_put(root, "canary_mean", json_num(mean), &err);
    json_put(root, "canary_sd", json_num(sd), &err);
    json_put(root, "canary_n", json_integer((json_int_t)n), &err);
    for (size_t i = 0; i < p->ncells; i++) {
        const struct compare_cell *c = &p->cells[i];
        if (!c->t.valid || !c->t.per_process || !isfinite(c->t.cv_process))
            continue;
        json_t *o = json_object();
        json_put(o, "id", json_str(c->id), &err);
        json_put(o, "cv", json_num(c->t.cv_process), &err);
        json_put(o, "processes", json_integer((json_int_t)(c->t.groups_a < c->t.groups_b ? c->t.groups_a
                                                                                           : c->t.groups_b)),
                 &err);
        json_push(cells, o, &err);
    }
    json_put(root, "cells", cells, &err);
    char *text = err ? NULL : json_text(root);
    json_decref(root);
    if (!text)
        return err ? err : error_code();
    err = util_write_file_atomic(path, text, strlen(text));
    free(text);
    return err;
}

static char *jdup(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? xstrdup(s) : NULL;
}

int compare_profile_load(struct compare_profile **out, const char *path)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    int err = util_read_file(path, &text, &len);
    if (err < 0)
        return error_prefix(err, "noise profile");
    json_error_t je;
    json_t *root = len <= PROFILE_MAX_BYTES ? json_loadb(text, len, 0, &je) : NULL;
    free(text);
    const char *fmt = json_string_value(json_object_get(root, "format"));
    json_t *cells = json_object_get(root, "cells");
    struct compare_profile *pf = xcalloc(1, sizeof(*pf));
    pf->host = jdup(root, "host");
    pf->cpu = jdup(root, "cpu");
    pf->made = jdup(root, "made");
    pf->canary_mean = json_number_value(json_object_get(root, "canary_mean"));
    pf->canary_sd = json_number_value(json_object_get(root, "canary_sd"));
    json_int_t cn = json_integer_value(json_object_get(root, "canary_n"));
    pf->canary_n = cn > 0 ? (size_t)cn : 0;
    if (!root || !fmt || strcmp(fmt, COMPARE_PROFILE_FORMAT) != 0 || !json_is_array(cells) || !pf->host || !pf->cpu ||
        !pf->made || !isfinite(pf->canary_mean) || !(pf->canary_sd >= 0.0) || pf->canary_n < 4) {
        err = error_set(BG_EDAMAGED, "%s is not a benchgen noise profile (%s)", path, COMPARE_PROFILE_FORMAT);
        goto done;
    }
    pf->cells = xcalloc(json_array_size(cells) + 1, sizeof(*pf->cells));
    for (size_t i = 0; i < json_array_size(cells); i++) {
        json_t *o = json_array_get(cells, i);
        const char *id = json_string_value(json_object_get(o, "id"));
        double cv = json_number_value(json_object_get(o, "cv"));
        json_int_t n = json_integer_value(json_object_get(o, "processes"));
        if (!id || !(cv >= 0.0 && cv < 100.0) || n < 2) {
            err = error_set(BG_EDAMAGED, "%s: cell %zu of the noise profile is not valid", path, i + 1);
            goto done;
        }
        pf->cells[pf->ncells++] = (struct compare_profile_cell){xstrdup(id), cv, (size_t)n};
    }
done:
    json_decref(root);
    if (err < 0)
        compare_profile_free(pf);
    else
        *out = pf;
    return err;
}

void compare_profile_free(struct compare_profile *pf)
{
    if (!pf)
        return;
    for (size_t i = 0; i < pf->ncells; i++)
        free(pf->cells[i].id);
    free(pf->cells);
    free(pf->host);
    free(pf->cpu);
    free(pf->made);
    free(pf);
}

int compare_profile_canary_ok(const struct compare_profile *pf, const double *logs, size_t n, double noise,
                              double alpha, double *ratio, double *lo, double *hi)
{
    *ratio = *lo = *hi = NAN;
    if (n < 2)
        return 0;
    double s = 0.0, ss = 0.0;
    for (size_t i = 0; i < n; i++)
        s += logs[i];
    double mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (logs[i] - mean) * (logs[i] - mean);
    /* Welch from the profile's summary and these processes */
    double va = pf->canary_sd * pf->canary_sd / (double)pf->canary_n, vb = ss / (double)(n - 1) / (double)n;
    double se = sqrt(va + vb), diff = mean - pf->canary_mean;
    double df = se > 0.0 ? (va + vb) * (va + vb) /
                               (va * va / (double)(pf->canary_n - 1) + vb * vb / (double)(n - 1))
                         : 1.0;
    double q = se > 0.0 ? tdist_quantile(1.0 - alpha / 2.0, df) : 0.0;
    *ratio = exp(diff);
    *lo = exp(diff - q * se);
    *hi = exp(diff + q * se);
    return *lo >= 1.0 - noise && *hi <= 1.0 + noise;
}

void compare_profile_apply(struct compare_pair *p, const struct compare_profile *pf, const struct rundata *A,
                           const struct rundata *B, const struct compare_options *o,
                           struct significance_test *tests)
{
    const char *ha = kvlist_get(&A->env, "os.hostname"), *hb = kvlist_get(&B->env, "os.hostname");
    const char *ca = kvlist_get(&A->env, "cpu.model"), *cb = kvlist_get(&B->env, "cpu.model");
    p->profile_used = false;
    p->profile_cells = 0;
    if (!ha || !hb || strcmp(ha, pf->host) || strcmp(hb, pf->host) || !ca || !cb || strcmp(ca, pf->cpu) ||
        strcmp(cb, pf->cpu)) {
        snprintf(p->profile_note, sizeof(p->profile_note),
                 "refused: made on %s (%s); these runs ran on %s and %s", pf->host, pf->cpu, ha ? ha : "?",
                 hb ? hb : "?");
        return;
    }
    double mean, sd, *logs = NULL, ratio, lo, hi;
    size_t n = canary_stats(A, B, &mean, &sd, &logs);
    int ok = compare_profile_canary_ok(pf, logs, n, o->noise, o->alpha, &ratio, &lo, &hi);
    free(logs);
    if (!ok) {
        if (n < 2)
            snprintf(p->profile_note, sizeof(p->profile_note), "refused: these runs recorded no drift canary");
        else
            snprintf(p->profile_note, sizeof(p->profile_note),
                     "refused: the drift canary %s since the profile was made (%s): %.4f [%.4f, %.4f], band "
                     "+/-%g%%",
                     lo > 1.0 + o->noise || hi < 1.0 - o->noise ? "moved" : "cannot tell whether the machine moved",
                     pf->made, ratio, lo, hi, o->noise * 100.0);
        return;
    }
    for (size_t i = 0; i < p->ncells; i++)
        for (size_t k = 0; k < pf->ncells; k++)
            if (p->cells[i].match == COMPARE_MATCHED && !strcmp(p->cells[i].id, pf->cells[k].id)) {
                tests[i].cv_from_profile = 1;
                tests[i].cv_profile = pf->cells[k].cv;
                p->profile_cells++;
            }
    p->profile_used = true;
    snprintf(p->profile_note, sizeof(p->profile_note),
             "used for the band and planning of %zu cell%s: made %s on %s, the drift canary has not moved since "
             "(%.4f [%.4f, %.4f])",
             p->profile_cells, p->profile_cells == 1 ? "" : "s", pf->made, pf->host, ratio, lo, hi);
}
