/*
 * depends.c - the files a run depends on, gathered when it is created (see
 * depends.h).
 */
#include "run/depends.h"
#include "run/envs.h"
#include "run/envs_packages.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_MODULES 1000 /* local module files followed, at most */

/* Reads path whole and adds it as rel (under inputs/) of kind. */
static int add_file(struct run_inputs *out, const char *rel, const char *kind, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return error_set(BG_EIO, "%s: %s", path, strerror(errno));
    if ((uint64_t)st.st_size > RUNINPUT_MAX_CONTENT) { /* its hash only */
        char hex[65];
        int err = sha256_file(path, hex);
        return err < 0 ? err : run_inputs_add_hash(out, rel, kind, path, hex, (uint64_t)st.st_size);
    }
    char *text = NULL;
    size_t len = 0;
    int err = util_read_file(path, &text, &len);
    if (err == 0)
        err = run_inputs_add(out, rel, kind, path, text, len);
    free(text);
    return err;
}

/* The folder of path (malloc'd; "/" for a file at the root). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash != path ? xstrndup(path, (size_t)(slash - path)) : xstrdup("/");
}

/* Shortens base to the deepest folder that also holds dir. */
static void common_dir(char *base, const char *dir)
{
    size_t n = strlen(base);
    while (n > 1 && !(strncmp(base, dir, n) == 0 && (dir[n] == '/' || dir[n] == '\0'))) {
        while (n > 1 && base[n - 1] != '/')
            n--;
        if (n > 1)
            n--; /* drop the slash */
        base[n] = '\0';
    }
}

/* path relative to base (a folder holding it). */
static const char *rel_to(const char *base, const char *path)
{
    size_t n = strlen(base);
    if (n == 1) /* "/" */
        return path + 1;
    return path + n + 1;
}

static bool is_ident(const char *s, size_t n)
{
    if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

/* Top-level names a Python file imports (absolute imports' first component,
 * and the names of `from . import a, b`), into names. */
static void scan_imports(const char *text, struct strlist *names)
{
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = xstrndup(line, len), *p = l;
        while (*p == ' ' || *p == '\t')
            p++;
        char *hash = strchr(p, '#');
        if (hash)
            *hash = '\0';
        bool from = !strncmp(p, "from", 4) && isspace((unsigned char)p[4]);
        if (from || (!strncmp(p, "import", 6) && isspace((unsigned char)p[6]))) {
            p += from ? 4 : 6;
            bool relative_here = false;
            if (from) {
                while (isspace((unsigned char)*p))
                    p++;
                size_t dots = strspn(p, ".");
                p += dots;
                size_t n = strcspn(p, ". \t(");
                if (dots == 1 && n == 0) {
                    relative_here = true; /* from . import a, b */
                } else if (dots == 0 && is_ident(p, n)) {
                    char *name = xstrndup(p, n);
                    strlist_add_unique(names, name);
                    free(name);
                } else if (dots == 1 && is_ident(p, n)) { /* from .name import x */
                    char *name = xstrndup(p, n);
                    strlist_add_unique(names, name);
                    free(name);
                }
                char *imp = relative_here ? strstr(p, "import") : NULL;
                p = imp ? imp + 6 : NULL;
            }
            /* import a.b as c, d  /  from . import a as b, (c, d) */
            char *save = NULL;
            for (char *tok = p ? strtok_r(p, ",()", &save) : NULL; tok && (!from || relative_here);
                 tok = strtok_r(NULL, ",()", &save)) {
                while (isspace((unsigned char)*tok))
                    tok++;
                size_t n = strcspn(tok, ". \t\r");
                if (is_ident(tok, n)) {
                    char *name = xstrndup(tok, n);
                    strlist_add_unique(names, name);
                    free(name);
                }
            }
        }
        free(l);
        line = end ? end + 1 : NULL;
    }
}

/* Every *.py under dir (sorted, recursively), as full paths into files. */
static void package_files(const char *dir, struct strlist *files, int depth)
{
    DIR *d = depth < 8 ? opendir(dir) : NULL;
    if (!d)
        return;
    struct strlist names = {0};
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "__pycache__") != 0)
            strlist_add(&names, e->d_name);
    closedir(d);
    strlist_sort(&names, false);
    for (size_t i = 0; i < names.n && files->n < MAX_MODULES; i++) {
        char *full = xprintf("%s/%s", dir, names.v[i]);
        size_t n = strlen(names.v[i]);
        if (util_is_dir(full))
            package_files(full, files, depth + 1);
        else if (n > 3 && !strcmp(names.v[i] + n - 3, ".py") && util_is_file(full))
            strlist_add_unique(files, full);
        free(full);
    }
    strlist_free(&names);
}

/* The workload at path and the local modules it imports, followed, as full
 * paths into files (the workload first). */
static int follow_modules(const char *workload, struct strlist *files)
{
    int err = strlist_add_unique(files, workload);
    char *dir = dir_of(workload);
    for (size_t i = 0; !err && i < files->n && files->n < MAX_MODULES; i++) {
        char *text = NULL;
        if (util_read_file(files->v[i], &text, NULL) < 0) {
            error_clear(); /* add_file() names it below */
            continue;
        }
        struct strlist names = {0};
        scan_imports(text, &names);
        free(text);
        for (size_t k = 0; k < names.n; k++) {
            char *mod = xprintf("%s/%s.py", dir, names.v[k]), *pkg = xprintf("%s/%s", dir, names.v[k]);
            char *init = xprintf("%s/__init__.py", pkg);
            if (util_is_file(mod))
                strlist_add_unique(files, mod);
            else if (util_is_file(init))
                package_files(pkg, files, 0);
            free(mod);
            free(pkg);
            free(init);
        }
        strlist_free(&names);
    }
    free(dir);
    return err;
}

static int add_env(struct run_inputs *out, const char *name, const char *backend)
{
    struct env_info info = {0};
    int err = 0;
    if (envs_resolve_for(name, backend, &info) < 0) { /* the run records its cells as skipped */
        error_clear();
        return 0;
    }
    if (info.lock_path) {
        const char *base = strrchr(info.lock_path, '/');
        char *rel = xprintf("envs/recorded/%s", base ? base + 1 : info.lock_path);
        err = add_file(out, rel, "lock", info.lock_path);
        free(rel);
    } else if (!info.prefix && info.dir) {
        struct strlist pk = {0};
        struct strbuf sb = {0};
        if (envs_packages_read(info.dir, info.pyver, &pk) == 0) {
            strbuf_printf(&sb, "# packages of the registered interpreter %s (python %s)\n", info.python,
                          info.pyver);
            for (size_t i = 0; i < pk.n; i++)
                strbuf_printf(&sb, "%s\n", pk.v[i]);
            char *rel = xprintf("envs/recorded/%s.packages.txt", name);
            if ((err = strbuf_error(&sb)) == 0)
                err = run_inputs_add(out, rel, "packages", info.dir, sb.buf, sb.len);
            free(rel);
        } else {
            error_clear();
        }
        strlist_free(&pk);
        strbuf_free(&sb);
    }
    env_info_free(&info);
    return err;
}

int depends_collect(struct run_inputs *out, const struct spec *spec, const struct matrix *plan)
{
    struct strlist workloads = {0}, files = {0}, envs = {0};
    char *spec_real = spec->path ? realpath(spec->path, NULL) : NULL;
    char *base = spec_real ? dir_of(spec_real) : NULL;
    int err = 0;
    for (size_t i = 0; i < plan->ncells; i++) {
        const struct cell *c = &plan->cells[i];
        if (c->workload && c->workload[0] == '/')
            strlist_add_unique(&workloads, c->workload);
        if (c->env && c->env[0]) {
            char *key = xprintf("%s\n%s", c->env, c->backend ? c->backend : "");
            strlist_add_unique(&envs, key);
            free(key);
        }
    }
    for (size_t i = 0; !err && i < workloads.n; i++)
        err = follow_modules(workloads.v[i], &files);
    /* one folder holds the spec and every file: paths below it keep the spec's view */
    for (size_t i = 0; base && i < files.n; i++) {
        char *d = dir_of(files.v[i]);
        common_dir(base, d);
        free(d);
    }
    if (!err && spec_real && spec->text) {
        char *rel = xprintf("inputs/%s", rel_to(base, spec_real));
        err = run_inputs_add(out, rel, "spec", spec_real, spec->text, strlen(spec->text));
        free(rel);
    }
    for (size_t i = 0; !err && i < files.n; i++) {
        char *rel = xprintf("inputs/%s", base ? rel_to(base, files.v[i]) : files.v[i] + 1);
        err = add_file(out, rel, strlist_contains(&workloads, files.v[i]) ? "workload" : "module", files.v[i]);
        free(rel);
    }
    for (size_t i = 0; !err && i < envs.n; i++) {
        char *nl = strchr(envs.v[i], '\n');
        *nl = '\0';
        err = add_env(out, envs.v[i], nl[1] ? nl + 1 : NULL);
    }
    run_inputs_sort(out);
    strlist_free(&workloads);
    strlist_free(&files);
    strlist_free(&envs);
    free(spec_real);
    free(base);
    return err;
}

int depends_warn_changed(const struct run_inputs *recorded, FILE *out)
{
    int n = 0;
    for (size_t i = 0; i < recorded->n; i++) {
        const struct run_input *in = &recorded->v[i];
        char hex[65];
        if (!in->origin || (strcmp(in->kind, "workload") != 0 && strcmp(in->kind, "module") != 0))
            continue;
        if (sha256_file(in->origin, hex) < 0) {
            error_clear();
            fprintf(out, "benchgen: warning: %s, which the run recorded as %s, cannot be read now\n", in->origin,
                    in->path);
            n++;
        } else if (strcmp(hex, in->sha256) != 0) {
            fprintf(out,
                    "benchgen: warning: %s has changed since the run was created (sha256 %.12s, run.db has "
                    "%.12s): the cells run now use it as it is; run.db and a bundle keep the bytes the run "
                    "was created with\n",
                    in->origin, hex, in->sha256);
            n++;
        }
    }
    return n;
}
