/*
 * envs.c - the Python environments backends run in: a lock's
 * hash and resolving a name to its environment (see envs.h). Building them
 * is envs_sync.c, listing envs_list.c, registering envs_add.c; the
 * interpreters are found and probed in envs_python.c.
 *
 * Why the interpreter version is part of a venv's hash: a venv is bound to
 * the interpreter that made it; another release of it gets its own venv.
 */
#include "envs/envs.h"
#include "envs/envs_cache.h"
#include "envs/envs_names.h"
#include "envs/envs_python.h"
#include "envs/envs_variant.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- names, paths and hashes ---------------------------------------------- */

const char *envs_base_python_version(void) { return envs_python_version(BENCHGEN_PYTHON); }

int envs_lock_hash(const char *lock_path, const char *pyver, char out[17])
{
    char *data = NULL, hex[65];
    size_t len = 0;
    struct sha256 h = {0};
    int err;
    out[0] = '\0';
    if ((err = util_read_file(lock_path, &data, &len)) < 0)
        return err;
    if ((err = sha256_init(&h)) < 0)
        goto done;
    if ((err = sha256_update(&h, data, len)) < 0 || (err = sha256_update(&h, "", 1)) < 0 ||
        (err = sha256_update(&h, pyver, strlen(pyver))) < 0) {
        sha256_final(&h, hex); /* releases the context */
        goto done;
    }
    if ((err = sha256_final(&h, hex)) < 0)
        goto done;
    memcpy(out, hex, 16);
    out[16] = '\0';
done:
    free(data);
    return err;
}

/* ---- resolving ------------------------------------------------------------ */

void env_info_free(struct env_info *e)
{
    if (!e)
        return;
    free(e->name);
    free(e->lock_path);
    free(e->dir);
    free(e->python);
    free(e->builder);
    free(e->note);
    for (char **a = e->prefix; a && *a; a++)
        free(*a);
    free(e->prefix);
    memset(e, 0, sizeof(*e));
}

/* <cache>/external/<name> holds the interpreter path, then its prefix and
 * version as they were when registered, then the command prefix, one
 * argument per line (none for a plain interpreter). */
static int resolve_external(const char *name, const char *reg, struct env_info *out)
{
    char *text = NULL;
    int err;
    if ((err = util_read_file(reg, &text, NULL)) < 0)
        return err;
    char *save = NULL;
    char *python = strtok_r(text, "\n", &save);
    char *prefix = python ? strtok_r(NULL, "\n", &save) : NULL;
    char *ver = prefix ? strtok_r(NULL, "\n", &save) : NULL;
    struct strlist cmd = {0};
    for (char *a = ver ? strtok_r(NULL, "\n", &save) : NULL; a; a = strtok_r(NULL, "\n", &save))
        if ((err = strlist_add(&cmd, a)) < 0)
            goto done;
    if (!python || (python[0] != '/' && cmd.n == 0)) {
        err = error_set(BG_EPYTHON, "%s: not a registration written by `benchgen env add`", reg);
        goto done;
    }
    out->name = xstrdup(name);
    out->python = xstrdup(python);
    if (prefix && prefix[0] == '/') {
        out->dir = xstrdup(prefix);
    } else { /* <prefix>/bin/python */
        out->dir = xstrdup(python);
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(out->dir, '/');
            if (slash && slash != out->dir)
                *slash = '\0';
        }
    }
    out->hash[0] = '\0';
    snprintf(out->variant, sizeof(out->variant), "external");
    snprintf(out->pyver, sizeof(out->pyver), "%s", ver ? ver : "");
    if (cmd.n) {
        out->prefix = xcalloc(cmd.n + 1, sizeof(char *));
        for (size_t i = 0; i < cmd.n; i++)
            out->prefix[i] = cmd.v[i];
        cmd.n = 0;
    }
    out->state = cmd.n || out->prefix || access(python, X_OK) == 0 ? "external" : "broken";
done:
    strlist_free(&cmd);
    free(text);
    if (err)
        env_info_free(out);
    return err;
}

int envs_resolve_lock(const char *name, const char *lock, struct env_info *out)
{
    int err;
    memset(out, 0, sizeof(*out));
    char want[16];
    envs_python_requested(lock, want);
    out->builder = want[0] ? envs_python_find(want) : xstrdup(BENCHGEN_PYTHON);
    const char *ver = out->builder ? envs_python_version(out->builder) : "";
    snprintf(out->pyver, sizeof(out->pyver), "%s", ver[0] ? ver : want);
    if (want[0] && ver[0] && strncmp(ver, want, strlen(want)) != 0) {
        free(out->builder); /* python3.12 on PATH that is something else */
        out->builder = NULL;
        snprintf(out->pyver, sizeof(out->pyver), "%s", want);
    }
    if ((err = envs_lock_hash(lock, out->pyver, out->hash)) < 0) {
        env_info_free(out);
        return err;
    }
    out->name = xstrdup(name);
    out->lock_path = xstrdup(lock);
    /* the lock's file name: NAME, or a variant's NAME-cuN */
    const char *file = strrchr(lock, '/') ? strrchr(lock, '/') + 1 : lock;
    size_t stem = strlen(file) > 4 ? strlen(file) - 4 : strlen(file);
    out->dir = xprintf("%s/envs/%.*s-%s", envs_cache_dir(), (int)stem, file, out->hash);
    envs_variant_label(name, lock, out->variant);
    out->python = xprintf("%s/bin/python", out->dir);
    char *marker = xprintf("%s/" ENVS_READY_MARKER, out->dir);
    if (util_is_file(marker))
        out->state = access(out->python, X_OK) == 0 ? "ready" : "broken";
    else if (util_is_dir(out->dir))
        out->state = "incomplete";
    else
        out->state = "missing";
    free(marker);
    return 0;
}

/* NAME's variant for this machine (envs_variant.h): the first candidate
 * that is ready, or the first when none is, the variant is forced or
 * wanted (what `env sync` builds) is set. */
static int resolve_variant(const char *name, const char *lock, const char *backend, bool wanted,
                           struct env_info *out)
{
    struct strlist cand = {0};
    bool strict = false;
    char *note = NULL;
    int err = envs_variant_candidates(name, lock, backend, &cand, &strict, &note);
    for (size_t i = 0; !err && i < cand.n; i++) {
        struct env_info e;
        if ((err = envs_resolve_lock(name, cand.v[i], &e)) < 0)
            break;
        bool take = i == 0 || strcmp(e.state, "ready") == 0;
        if (take) {
            env_info_free(out);
            *out = e;
        } else {
            env_info_free(&e);
        }
        if (strict || wanted || strcmp(out->state, "ready") == 0)
            break;
    }
    if (!err && out->name) {
        out->note = note;
        note = NULL;
    }
    free(note);
    strlist_free(&cand);
    if (err)
        env_info_free(out);
    return err;
}

static int resolve_(const char *name, const char *backend, bool wanted, struct env_info *out);

int envs_resolve(const char *name, struct env_info *out) { return resolve_(name, NULL, false, out); }

int envs_resolve_for(const char *name, const char *backend, struct env_info *out)
{
    return resolve_(name, backend, false, out);
}

int envs_resolve_wanted(const char *name, struct env_info *out) { return resolve_(name, NULL, true, out); }

static int resolve_(const char *name, const char *backend, bool wanted, struct env_info *out)
{
    memset(out, 0, sizeof(*out));
    if (!util_is_safe_name(name))
        return error_set(BG_EUSAGE, "invalid environment name '%s' (letters, digits, '.', '_', '+', '-')",
                         name ? name : "");
    char *reg = xprintf("%s/external/%s", envs_cache_dir(), name);
    char *lock = xprintf("%s/data/envs/%s.txt", util_home_dir(), name);
    int err = 0;
    if (util_is_file(reg)) {
        err = resolve_external(name, reg, out);
    } else if (util_is_file(lock)) {
        err = resolve_variant(name, lock, backend, wanted, out);
    } else if (strchr(name, '+')) {
        /* A derived environment (`run --with`): its lock lives in the cache. */
        free(lock);
        lock = xprintf("%s/derived/%s.txt", envs_cache_dir(), name);
        if (util_is_file(lock))
            err = envs_resolve_lock(name, lock, out);
        else
            err = error_set(BG_ENOTFOUND, "no derived environment '%s' (made by `benchgen run --with`)", name);
    } else {
        char *known = envs_names_known();
        err = error_set(BG_ENOTFOUND,
                        "no environment '%s': neither %s nor a registration from `benchgen env add` exists "
                        "(known environments: %s)",
                        name, lock, known ? known : "?");
        free(known);
    }
    free(reg);
    free(lock);
    return err;
}
