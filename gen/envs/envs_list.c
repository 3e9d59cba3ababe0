/*
 * envs_list.c - `env list`: every environment, its state, hash, directory
 * and installed packages (see envs_list.h).
 */
#include "envs/envs_list.h"
#include "envs/envs.h"
#include "envs/envs_names.h"
#include "envs/envs_packages.h"
#include "envs/envs_variant.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One environment's line (as label) and what follows it. */
static int list_env(FILE *out, const char *label, struct env_info e, bool packages)
{
    struct strlist pkgs = {0};
    int err = 0;
    bool external = e.lock_path == NULL;
    fprintf(out, "%s  %s  %s  %s  %s\n", label, e.state, external ? "-" : e.hash, external ? e.python : e.dir,
            e.variant);
    if (strcmp(e.state, "missing") == 0) {
        fprintf(out, "  (not built yet: run `benchgen env sync %s`)\n", e.name);
    } else if (strcmp(e.state, "incomplete") == 0) {
        char *failed_path = xprintf("%s/" ENVS_FAILED_MARKER, e.dir), *why = NULL;
        if (util_is_file(failed_path) && util_read_file(failed_path, &why, NULL) == 0) {
            why[strcspn(why, "\n")] = '\0';
            fprintf(out, "  (last sync failed: %s)\n", why);
        }
        fprintf(out, "  (incomplete: `benchgen env sync %s` rebuilds it)\n", e.name);
        free(why);
        free(failed_path);
    } else if (strcmp(e.state, "broken") == 0) {
        if (external)
            fprintf(out, "  (broken: %s is gone; run `benchgen env add %s PYTHON` again)\n", e.python,
                    e.name);
        else
            fprintf(out, "  (broken: %s is gone; delete %s and run `benchgen env sync %s`)\n", e.python,
                    e.dir, e.name);
    } else if (packages) {
        if (external) {
            char *lock = xprintf("%s/data/envs/%s.txt", util_home_dir(), e.name);
            if (util_is_file(lock))
                fprintf(out, "  (this registration takes precedence over %s)\n", lock);
            free(lock);
            fprintf(out, "  prefix: %s\n", e.dir);
        }
        if ((err = envs_packages_read(e.dir, e.pyver, &pkgs)) < 0)
            goto done;
        for (size_t i = 0; i < pkgs.n; i++)
            fprintf(out, "  %s\n", pkgs.v[i]);
    }
done:
    strlist_free(&pkgs);
    return err;
}

static int list_one(FILE *out, const char *name, bool packages)
{
    struct env_info e;
    struct strlist locks = {0};
    int err = envs_resolve(name, &e);
    if (err < 0) {
        fprintf(out, "%s  error  -  %s\n", name, error_last());
        return 0; /* one unreadable registration must not hide the rest */
    }
    err = list_env(out, name, e, packages);
    /* its other variants, and the locks a CUDA variant sends a backend to */
    if (!err && e.lock_path && strcmp(e.variant, "-") != 0) {
        char *base = xprintf("%s/data/envs/%s.txt", util_home_dir(), name);
        err = envs_variant_all(name, base, &locks);
        for (size_t i = 0; i < locks.n && !err; i++)
            err = envs_variant_splits(locks.v[i], &locks);
        for (size_t i = 0; i < locks.n && !err; i++) {
            struct env_info v;
            if (strcmp(locks.v[i], e.lock_path) == 0 || envs_resolve_lock(name, locks.v[i], &v) < 0)
                continue;
            char *label = xprintf("%s:%s", name, v.variant);
            if (strcmp(v.dir, e.dir) != 0)
                err = list_env(out, label, v, packages);
            free(label);
            env_info_free(&v);
        }
        free(base);
    }
    strlist_free(&locks);
    env_info_free(&e);
    return err;
}

int envs_list(FILE *out, bool packages)
{
    struct strlist names = {0}, ext = {0};
    char *derived = xprintf("%s/derived", envs_cache_dir());
    int err = 0;
    if ((err = envs_names_locks(&names, NULL)) < 0 || (err = envs_names_external(&ext)) < 0 ||
        (err = envs_names_locks(&ext, derived)) < 0)
        goto done;
    for (size_t i = 0; i < ext.n; i++)
        if ((err = strlist_add_unique(&names, ext.v[i])) < 0)
            goto done;
    strlist_sort(&names, false);
    fprintf(out, "# cache %s; environments use Python %s (%s)\n", envs_cache_dir(),
            envs_base_python_version(), BENCHGEN_PYTHON);
    fprintf(out, "# variants: %s; cells use the first ready of what it needs (--cuda / --cpu, "
                 "BENCHGEN_ENV_VARIANT)\n",
            envs_variant_gpu()->why);
    if (!packages)
        fprintf(out, "# installed packages: `benchgen env list --packages`\n");
    fprintf(out, "# " ENVS_LIST_COLUMNS "\n");
    if (names.n == 0) {
        char *dir = envs_names_lock_dir();
        fprintf(out, "no environments: add %s/NAME.txt or run `benchgen env add NAME PYTHON`\n",
                dir ? dir : "data/envs");
        free(dir);
    }
    for (size_t i = 0; i < names.n; i++)
        if ((err = list_one(out, names.v[i], packages)) < 0)
            goto done;
done:
    strlist_free(&names);
    strlist_free(&ext);
    free(derived);
    return err;
}
