/*
 * bisect_state.c - DIR/bisect.json, the state and answer of `benchgen
 * bisect` ("format": "benchgen-bisect/2", docs/BISECT.md): written after
 * every change (atomically), read back by `bisect --resume DIR`. A
 * "benchgen-bisect/1" state (before the steps stopped sequentially) reads
 * as a bisect with a fixed count a side, and is saved as /2.
 */
#include "bisect/bisect.h"
#include "base/error.h"
#include "base/json.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *cells_json(const struct bisect_step *s, int *err)
{
    json_t *a = json_array();
    for (size_t i = 0; i < s->ncells; i++) {
        const struct bisect_cell *c = &s->cells[i];
        json_t *o = json_object();
        json_put(o, "id", json_str(c->id), err);
        json_put(o, "verdict", json_str(c->verdict), err);
        json_put(o, "ratio", json_num(c->ratio), err);
        json_put(o, "ci_lo", json_num(c->lo), err);
        json_put(o, "ci_hi", json_num(c->hi), err);
        json_put(o, "processes", json_integer(c->processes), err);
        json_push(a, o, err);
    }
    return a;
}

static json_t *step_json(const struct bisect *b, const struct bisect_step *s, int *err)
{
    json_t *o = json_object();
    json_put(o, "step", json_integer(s->no), err);
    json_put(o, "attempt", json_integer(s->attempt), err);
    json_put(o, "a", json_integer((json_int_t)s->a), err);
    json_put(o, "b", json_integer((json_int_t)s->b), err);
    json_put(o, "good", json_str(b->rel.v[s->a].version), err);
    json_put(o, "tested", json_str(b->rel.v[s->b].version), err);
    json_put(o, "dir", json_str(s->dir), err);
    json_put(o, "processes", json_integer(s->processes), err);
    json_put(o, "noise", json_num(s->noise), err);
    json_put(o, "verdict", json_str(bisect_verdict_name(s->verdict)), err);
    json_put(o, "reason", json_str(s->reason), err);
    json_put(o, "ratio", json_num(s->ratio), err);
    json_put(o, "cells", cells_json(s, err), err);
    return o;
}

static json_t *strings_json(char *const *v, size_t n, int *err)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_push(a, json_str(v[i]), err);
    return a;
}

int bisect_save(const struct bisect *b)
{
    int err = 0;
    json_t *root = json_object(), *opt = json_object(), *rel = json_array(), *steps = json_array(),
           *diff = json_array();
    json_put(root, "format", json_str(BISECT_FORMAT), &err);
    json_put(opt, "spec", json_str(b->o.spec), &err);
    json_put(opt, "package", json_str(b->o.package), &err);
    json_put(opt, "good", json_str(b->o.good), &err);
    json_put(opt, "bad", json_str(b->o.bad), &err);
    json_put(opt, "only", json_str(b->o.only), &err);
    json_put(opt, "index", json_str(b->rel.index), &err);
    json_put(opt, "faster", json_boolean(b->o.faster), &err);
    json_put(opt, "pre", json_boolean(b->o.pre), &err);
    json_put(opt, "yanked", json_boolean(b->o.yanked), &err);
    json_put(opt, "sequential", json_boolean(b->o.sequential), &err);
    json_put(opt, "first", json_integer(b->o.first), &err);
    json_put(opt, "cap", json_integer(b->o.cap), &err);
    json_put(opt, "effect", json_num(b->o.effect), &err);
    json_put(opt, "processes", json_integer(b->o.processes), &err);
    json_put(opt, "max_processes", json_integer(b->o.max_processes), &err);
    json_put(opt, "noise", json_num(b->o.noise), &err);
    json_put(root, "options", opt, &err);
    for (size_t i = 0; i < b->rel.n; i++) {
        json_t *o = json_object();
        json_put(o, "version", json_str(b->rel.v[i].version), &err);
        json_put(o, "wheel", json_boolean(b->rel.v[i].wheel), &err);
        json_put(o, "files", json_str(b->rel.v[i].files), &err);
        json_put(o, "skipped", json_boolean(b->skipped && b->skipped[i]), &err);
        json_push(rel, o, &err);
    }
    json_put(root, "releases", rel, &err);
    json_put(root, "excluded", strings_json(b->rel.excluded, b->rel.nexcluded, &err), &err);
    json_put(root, "cells", strings_json(b->targets, b->ntargets, &err), &err);
    for (size_t i = 0; i < b->nsteps; i++)
        json_push(steps, step_json(b, &b->steps[i], &err), &err);
    json_put(root, "steps", steps, &err);
    json_put(root, "lo", json_integer((json_int_t)b->lo), &err);
    json_put(root, "hi", json_integer((json_int_t)b->hi), &err);
    json_put(root, "outcome", json_str(bisect_outcome_name(b->outcome)), &err);
    bool found = b->outcome == BISECT_FOUND || b->outcome == BISECT_UNDECIDED;
    json_put(root, "last_good", found ? json_str(b->rel.v[b->lo].version) : json_null(), &err);
    json_put(root, "first_bad", found ? json_str(b->rel.v[b->hi].version) : json_null(), &err);
    for (size_t i = 0; i < b->ndiff; i++) {
        json_t *o = json_object();
        json_put(o, "key", json_str(b->diff[i].key), &err);
        json_put(o, "good", json_str(b->diff[i].a), &err);
        json_put(o, "bad", json_str(b->diff[i].b), &err);
        json_put(o, "intended", json_boolean(b->diff[i].intended), &err);
        json_push(diff, o, &err);
    }
    json_put(root, "environment_diff", diff, &err);
    char *text = err ? NULL : json_text(root);
    json_decref(root);
    if (!text)
        return err ? err : BG_EGENERIC;
    char *path = xprintf("%s/%s", b->dir, BISECT_STATE);
    err = util_write_file_atomic(path, text, strlen(text));
    free(path);
    free(text);
    return err;
}

/* ---- reading it back ------------------------------------------------------ */

static char *get_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? xstrdup(s) : NULL;
}

static double get_num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long get_int(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static enum bisect_verdict verdict_parse(const char *s)
{
    for (int v = BISECT_PENDING; v <= BISECT_SKIP; v++)
        if (s && strcmp(s, bisect_verdict_name((enum bisect_verdict)v)) == 0)
            return (enum bisect_verdict)v;
    return (enum bisect_verdict)-1;
}

static int load_step(struct bisect *b, struct bisect_step *s, const json_t *o, const char *path)
{
    s->no = (int)get_int(o, "step");
    s->attempt = (int)get_int(o, "attempt");
    long long a = get_int(o, "a"), bb = get_int(o, "b");
    s->dir = get_str(o, "dir");
    s->reason = get_str(o, "reason");
    s->processes = (int)get_int(o, "processes");
    s->ratio = get_num(o, "ratio");
    s->noise = get_num(o, "noise");
    int v = (int)verdict_parse(json_string_value(json_object_get(o, "verdict")));
    if (a < 0 || bb < 0 || (size_t)a >= b->rel.n || (size_t)bb >= b->rel.n || !s->dir || !s->reason || v < 0 ||
        s->processes < 1 || !(s->noise >= 0 && s->noise < 1) || strstr(s->dir, "..") || s->dir[0] == '/')
        return error_set(BG_EDAMAGED, "%s: step %zu is not a bisect step", path, b->nsteps);
    s->a = (size_t)a;
    s->b = (size_t)bb;
    s->verdict = (enum bisect_verdict)v;
    const json_t *cells = json_object_get(o, "cells");
    s->cells = xcalloc(json_array_size(cells) + 1, sizeof(*s->cells));
    for (size_t i = 0; i < json_array_size(cells); i++) {
        const json_t *c = json_array_get(cells, i);
        struct bisect_cell *bc = &s->cells[s->ncells++];
        bc->id = get_str(c, "id");
        bc->verdict = get_str(c, "verdict");
        bc->ratio = get_num(c, "ratio");
        bc->lo = get_num(c, "ci_lo");
        bc->hi = get_num(c, "ci_hi");
        bc->processes = (int)get_int(c, "processes"); /* 0 in a /1 state */
        if (!bc->id || !bc->verdict)
            return error_set(BG_EDAMAGED, "%s: a cell of step %d has no id or verdict", path, s->no);
    }
    return 0;
}

static int load_json(struct bisect *b, const json_t *root, const char *path)
{
    const json_t *opt = json_object_get(root, "options"), *rel = json_object_get(root, "releases");
    b->o.spec = get_str(opt, "spec");
    b->o.package = get_str(opt, "package");
    b->o.good = get_str(opt, "good");
    b->o.bad = get_str(opt, "bad");
    b->o.only = get_str(opt, "only");
    b->o.index = get_str(opt, "index");
    b->rel.index = get_str(opt, "index");
    b->o.faster = json_is_true(json_object_get(opt, "faster"));
    b->o.pre = json_is_true(json_object_get(opt, "pre"));
    b->o.yanked = json_is_true(json_object_get(opt, "yanked"));
    b->o.sequential = json_is_true(json_object_get(opt, "sequential")); /* false in a /1 state */
    b->o.first = (int)get_int(opt, "first");
    b->o.cap = (int)get_int(opt, "cap");
    b->o.effect = get_num(opt, "effect");
    b->o.processes = (int)get_int(opt, "processes");
    b->o.max_processes = (int)get_int(opt, "max_processes");
    b->o.noise = get_num(opt, "noise");
    size_t n = json_array_size(rel);
    bool rule = b->o.sequential ? b->o.first >= 1 && b->o.cap >= b->o.first && b->o.effect > 0 && b->o.effect < 1
                                : b->o.processes >= 1 && b->o.max_processes >= b->o.processes;
    if (!b->o.spec || !b->o.package || !b->o.good || !b->o.bad || n < 2 || !rule ||
        !(b->o.noise >= 0 && b->o.noise < 1))
        return error_set(BG_EDAMAGED, "%s: not the state of a bisect (options or releases missing)", path);
    b->rel.v = xcalloc(n, sizeof(*b->rel.v));
    b->skipped = xcalloc(n, sizeof(*b->skipped));
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(rel, i);
        b->rel.v[i].version = get_str(r, "version");
        b->rel.v[i].files = get_str(r, "files");
        b->rel.v[i].wheel = json_is_true(json_object_get(r, "wheel"));
        b->skipped[i] = json_is_true(json_object_get(r, "skipped"));
        b->rel.n++;
        if (!b->rel.v[i].version || !b->rel.v[i].files)
            return error_set(BG_EDAMAGED, "%s: release %zu has no version", path, i);
    }
    const json_t *ex = json_object_get(root, "excluded"), *cells = json_object_get(root, "cells");
    b->rel.excluded = xcalloc(json_array_size(ex) + 1, sizeof(char *));
    for (size_t i = 0; i < json_array_size(ex); i++) {
        const char *s = json_string_value(json_array_get(ex, i));
        if (s)
            b->rel.excluded[b->rel.nexcluded++] = xstrdup(s);
    }
    b->targets = xcalloc(json_array_size(cells) + 1, sizeof(char *));
    for (size_t i = 0; i < json_array_size(cells); i++) {
        const char *s = json_string_value(json_array_get(cells, i));
        if (s)
            b->targets[b->ntargets++] = xstrdup(s);
    }
    const json_t *steps = json_object_get(root, "steps");
    b->steps = xcalloc(json_array_size(steps) + 1, sizeof(*b->steps));
    int err = 0;
    for (size_t i = 0; i < json_array_size(steps) && !err; i++) {
        err = load_step(b, &b->steps[b->nsteps], json_array_get(steps, i), path);
        b->nsteps++;
    }
    long long lo = get_int(root, "lo"), hi = get_int(root, "hi");
    if (!err && (lo < 0 || hi <= lo || (size_t)hi >= n))
        err = error_set(BG_EDAMAGED, "%s: the range %lld..%lld is not one of its releases", path, lo, hi);
    b->lo = (size_t)lo;
    b->hi = (size_t)hi;
    const char *oc = json_string_value(json_object_get(root, "outcome"));
    for (int k = BISECT_RUNNING; !err && k <= BISECT_UNDECIDED; k++)
        if (oc && strcmp(oc, bisect_outcome_name((enum bisect_outcome)k)) == 0)
            b->outcome = (enum bisect_outcome)k;
    return err;
}

int bisect_load(struct bisect *b, const char *dir)
{
    char *path = xprintf("%s/%s", dir, BISECT_STATE), *text = NULL;
    size_t len = 0;
    int err = 0;
    b->dir = xstrdup(dir);
    if (!util_is_file(path)) {
        err = error_set(BG_ENOTFOUND, "%s holds no bisect (no %s)", dir, BISECT_STATE);
        goto done;
    }
    if ((err = util_read_regular(path, "a bisect state", 64u << 20, &text, &len)) < 0)
        goto done;
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    const char *fmt = root ? json_string_value(json_object_get(root, "format")) : NULL;
    if (!root || !fmt || (strcmp(fmt, BISECT_FORMAT) != 0 && strcmp(fmt, BISECT_FORMAT_1) != 0))
        err = error_set(BG_EDAMAGED, "%s:%d:%d: not a %s file%s%s", path, je.line, je.column, BISECT_FORMAT,
                        root ? "" : ": ", root ? "" : je.text);
    else if (strcmp(fmt, BISECT_FORMAT_1) == 0 && json_is_true(json_object_get(json_object_get(root, "options"),
                                                                              "sequential")))
        err = error_set(BG_EDAMAGED, "%s: a %s state has no sequential steps", path, BISECT_FORMAT_1);
    else
        err = load_json(b, root, path);
    json_decref(root);
done:
    free(path);
    free(text);
    return err;
}
