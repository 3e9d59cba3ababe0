/*
 * envs_packages.c - the packages installed in an environment, read from its
 * files (*.dist-info/METADATA, *.egg-info) without running it (see
 * envs_packages.h).
 */
#include "envs/envs_packages.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "3.11" from "3.11.7", into buf. */
static void major_minor(const char *ver, char *buf, size_t len)
{
    const char *dot = strchr(ver, '.');
    const char *dot2 = dot ? strchr(dot + 1, '.') : NULL;
    size_t n = dot2 ? (size_t)(dot2 - ver) : strlen(ver);
    snprintf(buf, len, "%.*s", (int)n, ver);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* "Name==Version" from a METADATA or PKG-INFO header into nl. */
static int read_metadata(const char *path, struct strlist *nl)
{
    char *text = NULL;
    if (!util_is_file(path) || util_read_file(path, &text, NULL) < 0)
        return 0; /* a half-installed package: nothing to show */
    char name[256] = "", version[128] = "";
    for (char *line = text; line && *line && *line != '\n';) {
        char *nl_ = strchr(line, '\n');
        size_t n = nl_ ? (size_t)(nl_ - line) : strlen(line);
        if (n > 0 && line[n - 1] == '\r')
            n--;
        if (!name[0] && strncmp(line, "Name: ", 6) == 0)
            snprintf(name, sizeof(name), "%.*s", (int)(n - 6), line + 6);
        else if (!version[0] && strncmp(line, "Version: ", 9) == 0)
            snprintf(version, sizeof(version), "%.*s", (int)(n - 9), line + 9);
        line = nl_ ? nl_ + 1 : NULL;
    }
    free(text);
    if (!name[0] || !version[0])
        return 0;
    char buf[400];
    snprintf(buf, sizeof(buf), "%s==%s", name, version);
    return strlist_add_unique(nl, buf);
}

int envs_packages_read(const char *prefix, const char *pyver, struct strlist *nl)
{
    char mm[16];
    major_minor(pyver, mm, sizeof(mm));
    char *site = xprintf("%s/lib/python%s/site-packages", prefix, mm);
    if (!util_is_dir(site)) { /* Debian's own interpreter */
        free(site);
        site = xprintf("%s/lib/python3/dist-packages", prefix);
    }
    int err = 0;
    DIR *d = opendir(site);
    if (!d)
        goto done;
    struct dirent *e;
    while (!err && (e = readdir(d))) {
        char *meta = NULL;
        if (ends_with(e->d_name, ".dist-info"))
            meta = xprintf("%s/%s/METADATA", site, e->d_name);
        else if (ends_with(e->d_name, ".egg-info")) /* a directory, or a single PKG-INFO-like file */
            meta = xprintf("%s/%s%s", site, e->d_name, e->d_type == DT_REG ? "" : "/PKG-INFO");
        else
            continue;
        err = read_metadata(meta, nl);
        free(meta);
    }
    closedir(d);
    strlist_sort(nl, true);
done:
    free(site);
    return err;
}
