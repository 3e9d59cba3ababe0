/*
 * envs_names.c - the names environments go by: lock files in data/envs (or
 * another directory) and `env add` registrations (see envs_names.h).
 */
#include "envs/envs_names.h"
#include "envs/envs_cache.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

char *envs_names_lock_dir(void) { return xprintf("%s/data/envs", util_home_dir()); }

int envs_names_locks(struct strlist *nl, const char *where)
{
    char *dir = where ? xstrdup(where) : envs_names_lock_dir();
    int err = 0;
    DIR *d = opendir(dir);
    if (!d)
        goto done; /* no data/envs: no lock files */
    struct dirent *e;
    while (!err && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".txt"))
            continue;
        char name[256];
        snprintf(name, sizeof(name), "%.*s", (int)(strlen(e->d_name) - 4), e->d_name);
        if (util_is_safe_name(name))
            err = strlist_add_unique(nl, name);
    }
    closedir(d);
    strlist_sort(nl, false);
done:
    free(dir);
    return err;
}

int envs_names_external(struct strlist *nl)
{
    char *dir = xprintf("%s/external", envs_cache_dir());
    int err = 0;
    DIR *d = opendir(dir);
    if (!d)
        goto done;
    struct dirent *e;
    while (!err && (e = readdir(d))) {
        /* skip dot files and util_write_file_atomic's "<name>.tmp.<pid>" */
        if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp.") || !util_is_safe_name(e->d_name))
            continue;
        err = strlist_add_unique(nl, e->d_name);
    }
    closedir(d);
    strlist_sort(nl, false);
done:
    free(dir);
    return err;
}

char *envs_names_known(void)
{
    struct strlist a = {0}, b = {0};
    struct strbuf sb = {0};
    envs_names_locks(&a, NULL);
    envs_names_external(&b);
    for (size_t i = 0; i < b.n; i++)
        strlist_add_unique(&a, b.v[i]);
    strlist_sort(&a, false);
    for (size_t i = 0; i < a.n; i++)
        strbuf_printf(&sb, "%s%s", i ? ", " : "", a.v[i]);
    if (a.n == 0)
        strbuf_puts(&sb, "none");
    strlist_free(&a);
    strlist_free(&b);
    return strbuf_detach(&sb);
}
