/*
 * envs_needs.c - what an environment must import for its backends, checked
 * in the candidate interpreter (see envs_needs.h).
 */
#include "envs/envs_needs.h"
#include "envs/envs_proc.h"
#include "envs/envs_python.h"
#include "plan/catalog.h"
#include "base/error.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* What each backend imports beyond numpy, in import order. "keras=X" is
 * keras imported with KERAS_BACKEND=X. */
static const struct {
    const char *backend;
    const char *modules[3];
} needs[] = {
    {"torch-eager", {"torch", NULL, NULL}},
    {"torch-compiled", {"torch", NULL, NULL}},
    {"keras2-tensorflow", {"tensorflow", "keras", NULL}},
    {"keras3-tensorflow", {"tensorflow", "keras=tensorflow", NULL}},
    {"keras3-jax", {"jax", "keras=jax", NULL}},
    {"keras3-torch", {"torch", "keras=torch", NULL}},
    {"numpy", {NULL, NULL, NULL}},
};
#define NNEEDS (sizeof(needs) / sizeof(needs[0]))

/* Imports each argument (module, or keras=BACKEND) and prints one line
 * each: "ok MODULE VERSION" or "missing MODULE TYPE: MESSAGE". The worker
 * runs with -s (no user site), so the check does too. */
static const char check_code[] =
    "import importlib, os, sys\n"
    "for a in sys.argv[1:]:\n"
    "    m, _, kb = a.partition('=')\n"
    "    if kb: os.environ['KERAS_BACKEND'] = kb\n"
    "    try:\n"
    "        v = getattr(importlib.import_module(m), '__version__', '?')\n"
    "        print('ok', m, ' '.join(str(v).split()) or '?')\n"
    "    except BaseException as e:\n"
    "        print('missing', m, (type(e).__name__ + ': ' + ' '.join(str(e).split()))[:240])\n"
    "    sys.stdout.flush()\n";

int envs_needs_backends(struct strlist *backends, const char *name, const char *extra)
{
    if (!extra) {
        for (size_t i = 0; catalog_backend_at(i); i++)
            if (strcmp(catalog_backend_at(i)->env, name) == 0)
                strlist_add_unique(backends, catalog_backend_at(i)->name);
        return 0;
    }
    char *copy = xstrdup(extra), *save = NULL;
    int err = 0;
    for (char *b = strtok_r(copy, ",", &save); b && !err; b = strtok_r(NULL, ",", &save)) {
        b += strspn(b, " ");
        if (!catalog_backend_find(b))
            err = error_set(BG_EUSAGE, "--for: unknown backend '%s' (known: %s)", b, catalog_backend_names());
        else
            strlist_add_unique(backends, b);
    }
    free(copy);
    return err;
}

/* The modules the backends need, numpy first, each once. */
static void modules_for(struct strlist *mods, const struct strlist *backends)
{
    strlist_add(mods, "numpy");
    for (size_t i = 0; i < backends->n; i++)
        for (size_t k = 0; k < NNEEDS; k++)
            if (strcmp(needs[k].backend, backends->v[i]) == 0)
                for (size_t j = 0; j < 3 && needs[k].modules[j]; j++) {
                    /* keras is imported once: with the first backend that wants it */
                    bool keras = strncmp(needs[k].modules[j], "keras", 5) == 0, have = false;
                    for (size_t m = 0; keras && m < mods->n; m++)
                        have = have || strncmp(mods->v[m], "keras", 5) == 0;
                    if (!have)
                        strlist_add_unique(mods, needs[k].modules[j]);
                }
}

/* "every backend", or the backends in the list that need module. */
static void needed_by(struct strbuf *sb, const char *module, const struct strlist *backends)
{
    if (strcmp(module, "numpy") == 0) {
        strbuf_printf(sb, "every backend needs it");
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < backends->n; i++)
        for (size_t k = 0; k < NNEEDS; k++) {
            if (strcmp(needs[k].backend, backends->v[i]) != 0)
                continue;
            bool uses = false;
            for (size_t j = 0; j < 3 && needs[k].modules[j]; j++)
                uses = uses || strncmp(needs[k].modules[j], module, strlen(module)) == 0;
            if (uses)
                strbuf_printf(sb, "%s%s", n++ ? ", " : "", backends->v[i]);
        }
    strbuf_printf(sb, " need%s it", n == 1 ? "s" : "");
}

int envs_needs_check(const char *python, const char *const *cmd_prefix, const struct strlist *backends,
                     char **found)
{
    struct strlist mods = {0};
    modules_for(&mods, backends);
    bool prefixed = cmd_prefix && cmd_prefix[0];
    const char **args = xcalloc(mods.n + 4, sizeof(*args));
    struct strbuf out = {0}, ok = {0}, missing = {0}, pip = {0};
    int status = 0, err = 0, nmissing = 0;
    *found = NULL;
    size_t k = 0;
    args[k++] = "-s";
    args[k++] = "-c";
    args[k++] = check_code;
    for (size_t i = 0; i < mods.n; i++)
        args[k++] = mods.v[i];
    if ((err = envs_python_run(python, cmd_prefix, args, &out, &status)) < 0)
        goto done;
    size_t reported = 0;
    char *save = NULL;
    for (char *l = out.buf ? strtok_r(out.buf, "\r\n", &save) : NULL; l; l = strtok_r(NULL, "\r\n", &save)) {
        char *sp = strchr(l, ' ');
        char *mod = sp ? sp + 1 : NULL;
        char *rest = mod ? strchr(mod, ' ') : NULL;
        if (!rest)
            continue;
        *rest++ = '\0';
        if (!strlist_contains(&mods, mod) && !(strcmp(mod, "keras") == 0))
            continue;
        reported++;
        if (strncmp(l, "ok ", 3) == 0) {
            strbuf_printf(&ok, "%s%s %s", ok.len ? ", " : "", mod, rest);
        } else {
            strbuf_printf(&missing, "%s%s (%s; ", nmissing ? ", " : "", mod, rest);
            needed_by(&missing, mod, backends);
            strbuf_printf(&missing, ")");
            strbuf_printf(&pip, " %s", mod);
            nmissing++;
        }
    }
    if (reported < mods.n && nmissing == 0) {
        char how[96];
        envs_proc_status(status, how, sizeof(how));
        err = error_set(BG_EPYTHON, "%s did not say whether it imports %s (%s)", python, mods.v[reported], how);
        goto done;
    }
    if (nmissing) {
        err = error_set(BG_ENOTFOUND,
                        "%s cannot import what the backends mapped to it need: %s. Install %s into that "
                        "interpreter%s (`%s -m pip install%s`) and run `env add` again, or give `--for` only the "
                        "backends it can run; nothing was registered",
                        python, missing.buf, nmissing > 1 ? "them" : "it", prefixed ? " (inside its prefix's container)" : "",
                        python, pip.buf);
        goto done;
    }
    *found = strbuf_detach(&ok);
done:
    free(args);
    strbuf_free(&out);
    strbuf_free(&ok);
    strbuf_free(&missing);
    strbuf_free(&pip);
    strlist_free(&mods);
    return err;
}
