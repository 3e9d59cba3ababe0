/*
 * envs_seed.c - a derived environment starts from its parent's packages,
 * hard-linked (see envs_seed.h).
 */
#include "envs/envs_seed.h"
#include "envs/envs_cache.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <errno.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int envs_seed_parent(const struct env_info *e, struct env_info *parent)
{
    memset(parent, 0, sizeof(*parent));
    const char *plus = strchr(e->name, '+');
    char *derived = xprintf("%s/derived/", envs_cache_dir());
    int err = 0;
    if (!plus || !e->lock_path || strncmp(e->lock_path, derived, strlen(derived)) != 0) {
        err = error_set(BG_ENOTFOUND, "%s is not a derived environment", e->name);
        goto done;
    }
    char name[256];
    snprintf(name, sizeof(name), "%.*s", (int)(plus - e->name), e->name);
    if ((err = envs_resolve(name, parent)) < 0)
        goto done;
    if (!parent->lock_path || strcmp(parent->state, "ready") != 0 || strcmp(parent->pyver, e->pyver) != 0) {
        err = error_set(BG_ENOTFOUND, "the parent %s is not a ready venv of Python %s", name, e->pyver);
        env_info_free(parent);
    }
done:
    free(derived);
    return err;
}

/* The site-packages directory of a venv of Python pyver ("3.11.7"). */
static char *site_packages(const char *dir, const char *pyver)
{
    int major = 0, minor = 0;
    sscanf(pyver, "%d.%d", &major, &minor);
    return xprintf("%s/lib/python%d.%d/site-packages", dir, major, minor);
}

/* nftw has no user pointer: the one tree being linked. */
static struct {
    const char *from, *to;
    size_t from_len;
    struct strlist keep; /* top-level names the new venv already has, and their projects */
    long files;
    int err;
} tree;

/* "pip" from "pip-24.0.dist-info": the project a metadata directory is of. */
static void project_of(const char *entry, char *out, size_t cap)
{
    size_t n = strcspn(entry, "-");
    snprintf(out, cap, "%.*s", (int)n, entry);
    for (char *p = out; *p; p++)
        *p = *p == '_' ? '-' : (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
}

static bool kept(const char *top)
{
    char proj[256];
    if (strlist_contains(&tree.keep, top))
        return true;
    if (!strstr(top, ".dist-info") && !strstr(top, ".egg-info"))
        return false;
    project_of(top, proj, sizeof(proj));
    return strlist_contains(&tree.keep, proj);
}

static int link_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    if (ftw->level == 0)
        return FTW_CONTINUE;
    const char *rel = path + tree.from_len + 1;
    char top[256];
    snprintf(top, sizeof(top), "%.*s", (int)strcspn(rel, "/"), rel);
    if (ftw->level == 1 && kept(top))
        return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
    char *dst = xprintf("%s/%s", tree.to, rel);
    int rc = 0;
    if (type == FTW_D) {
        rc = mkdir(dst, st->st_mode & 07777);
    } else if (type == FTW_SL) {
        char target[PATH_MAX];
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n >= 0) {
            target[n] = '\0';
            rc = symlink(target, dst);
        } else {
            rc = -1;
        }
    } else if (type == FTW_F) {
        rc = link(path, dst);
        tree.files += rc == 0;
    }
    if (rc < 0)
        tree.err = error_set(BG_EIO, "linking %s to %s: %s", path, dst, strerror(errno));
    free(dst);
    return rc < 0 ? FTW_STOP : FTW_CONTINUE;
}

/* Adds to tree.keep (not linked) the top-level entries of each of parent's
 * distributions that the derived lock pins (its "# with PKG==VERSION"
 * lines): the installer then installs the pin into a clean place instead of
 * first removing the parent's version file by file. */
static int skip_pinned(const char *lock, const char *from)
{
    char *text = NULL;
    int err = util_read_file(lock, &text, NULL);
    if (err < 0)
        return err;
    struct strlist pinned = {0};
    for (char *line = text; line && *line && !err; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char pkg[256], proj[256];
        if (sscanf(line, "# with %255[A-Za-z0-9._-]==", pkg) == 1) {
            project_of(pkg, proj, sizeof(proj));
            err = strlist_add_unique(&pinned, proj);
        }
    }
    DIR *d = pinned.n ? opendir(from) : NULL;
    struct dirent *de;
    while (d && !err && (de = readdir(d))) {
        char proj[256];
        if (!strstr(de->d_name, ".dist-info"))
            continue;
        project_of(de->d_name, proj, sizeof(proj));
        if (!strlist_contains(&pinned, proj))
            continue;
        char *record = xprintf("%s/%s/RECORD", from, de->d_name), *rec = NULL;
        err = strlist_add_unique(&tree.keep, de->d_name);
        if (!err && util_read_file(record, &rec, NULL) == 0) {
            for (char *l = rec; l && *l && !err; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                char top[256];
                size_t n = strcspn(l, "/,\n");
                if (n == 0 || n >= sizeof(top) || l[n] != '/' || strncmp(l, "..", 2) == 0)
                    continue; /* a file at the top, or outside site-packages (bin/) */
                snprintf(top, sizeof(top), "%.*s", (int)n, l);
                err = strlist_add_unique(&tree.keep, top);
            }
        }
        free(rec);
        free(record);
    }
    if (d)
        closedir(d);
    strlist_free(&pinned);
    free(text);
    return err;
}

int envs_seed_link(const struct env_info *e, const struct env_info *parent, long *files)
{
    char *sp = site_packages(parent->dir, parent->pyver), *to = site_packages(e->dir, e->pyver);
    char *from = realpath(sp, NULL); /* nftw does not descend a symlink given as the root */
    int err = 0;
    *files = 0;
    memset(&tree, 0, sizeof(tree));
    if (!from || !util_is_dir(from) || !util_is_dir(to)) {
        err = error_set(BG_ENOTFOUND, "no site-packages in %s or %s", parent->dir, e->dir);
        goto done;
    }
    DIR *d = opendir(to);
    struct dirent *de;
    while (d && !err && (de = readdir(d))) {
        char proj[256];
        if (de->d_name[0] == '.')
            continue;
        err = strlist_add_unique(&tree.keep, de->d_name);
        if (!err && strstr(de->d_name, ".dist-info")) {
            project_of(de->d_name, proj, sizeof(proj));
            err = strlist_add_unique(&tree.keep, proj);
        }
    }
    if (d)
        closedir(d);
    if (err < 0 || (err = skip_pinned(e->lock_path, from)) < 0)
        goto done;
    tree.from = from;
    tree.to = to;
    tree.from_len = strlen(from);
    if (nftw(from, link_entry, 32, FTW_PHYS | FTW_ACTIONRETVAL) != 0 && !tree.err)
        tree.err = error_set(BG_EIO, "walking %s: %s", from, strerror(errno));
    err = tree.err;
    *files = tree.files;
done:
    strlist_free(&tree.keep);
    free(sp);
    free(from);
    free(to);
    return err;
}
