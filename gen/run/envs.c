/*
 * envs.c - the Python environments backends run in (see envs.h).
 *
 * benchgen links no libpython: it creates and inspects venvs by running
 * interpreters as subprocesses or by reading files (pyvenv layout,
 * *.dist-info/METADATA). Subprocesses are fork/exec'd with argument
 * vectors, never through a shell, so paths with spaces or quotes pass
 * through untouched.
 *
 * Why the interpreter version is part of a venv's hash: a venv is bound to
 * the interpreter that made it; another release of it gets its own venv.
 */
#include "run/envs.h"
#include "run/envs_proc.h"
#include "run/envs_uv.h"
#include "runners/worker.h"
#include "base/error.h"
#include "base/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCHGEN_PYTHON
#define BENCHGEN_PYTHON "python3"
#endif

#define READY_MARKER ".benchgen-ready"
#define FAILED_MARKER ".benchgen-failed"

/* Printed by the interpreter under test: its version, then its prefix. */
static const char probe_code[] = "import sys; print(sys.version.split()[0]); print(sys.prefix)";
/* The same, then whether the worker's module imports (argv[1]: its directory). */
static const char probe_module_code[] =
    "import sys; print(sys.version.split()[0]); print(sys.prefix); sys.stdout.flush(); "
    "sys.path.insert(0, sys.argv[1]); import _benchgen; print('_benchgen', _benchgen.__file__)";

/* ---- small helpers -------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* "3.11" from "3.11.7", into buf. */
static void major_minor(const char *ver, char *buf, size_t len)
{
    const char *dot = strchr(ver, '.');
    const char *dot2 = dot ? strchr(dot + 1, '.') : NULL;
    size_t n = dot2 ? (size_t)(dot2 - ver) : strlen(ver);
    snprintf(buf, len, "%.*s", (int)n, ver);
}

/* Major and minor of "3.12.1" (0 when it is not a version). */
static int version_number(const char *ver)
{
    int major = 0, minor = 0;
    if (sscanf(ver, "%d.%d", &major, &minor) != 2)
        return 0;
    return major * 100 + minor;
}

/* Asks an interpreter (after a command prefix, when given) for its version
 * and prefix, without site or PYTHON* variables (-I); with check_module,
 * also whether it can import the worker's `_benchgen` module and is 3.9 or
 * later. */
static int probe_command(const char *python, const char *const *cmd_prefix, bool check_module, char ver[32],
                         char **prefix)
{
    size_t np = 0;
    while (cmd_prefix && cmd_prefix[np])
        np++;
    char **argv = calloc(np + 8, sizeof(*argv));
    struct strbuf out = {0};
    int status = 0, err = 0;
    *prefix = NULL;
    ver[0] = '\0';
    if (!argv)
        return error_set(BG_ENOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < np; i++)
        argv[k++] = (char *)cmd_prefix[i];
    argv[k++] = (char *)python;
    argv[k++] = "-I";
    argv[k++] = "-c";
    argv[k++] = (char *)(check_module ? probe_module_code : probe_code);
    if (check_module)
        argv[k++] = (char *)worker_ext_dir();
    if ((err = envs_proc_run(argv, &out, &status)) < 0)
        goto done;
    char *save = NULL;
    char *l1 = out.buf ? strtok_r(out.buf, "\r\n", &save) : NULL;
    char *l2 = l1 ? strtok_r(NULL, "\r\n", &save) : NULL;
    char *l3 = l2 ? strtok_r(NULL, "\r\n", &save) : NULL;
    if (!l1 || !l2 || strlen(l1) >= 32 || !isdigit((unsigned char)l1[0])) {
        char how[96];
        envs_proc_status(status, how, sizeof(how));
        err = error_set(BG_EPYTHON, "%s%s could not report its Python version and prefix (%s): is it a Python "
                        "interpreter?", np ? "the prefixed " : "", python, how);
        goto done;
    }
    snprintf(ver, 32, "%s", l1);
    if (check_module && version_number(ver) < 309) {
        err = error_set(BG_EPYTHON, "%s is Python %s; workers need Python 3.9 or later", python, ver);
        goto done;
    }
    if (check_module && (!l3 || strncmp(l3, "_benchgen ", 10) != 0 || !WIFEXITED(status) ||
                         WEXITSTATUS(status) != 0)) {
        err = error_set(BG_EPYTHON, "%s (Python %s) cannot import benchgen's worker module from %s%s (see the "
                        "traceback above); run `make` first%s", python, ver, worker_ext_dir(),
                        "/_benchgen.abi3.so", np ? ", and make that directory visible inside the prefix's "
                        "container at the same path" : "");
        goto done;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char how[96];
        envs_proc_status(status, how, sizeof(how));
        err = error_set(BG_EPYTHON, "%s could not report its version (%s)", python, how);
        goto done;
    }
    if (!(*prefix = strdup(l2)))
        err = error_set(BG_ENOMEM, "out of memory");
done:
    free(argv);
    strbuf_free(&out);
    return err;
}

static int probe_python(const char *python, char ver[32], char **prefix)
{
    return probe_command(python, NULL, false, ver, prefix);
}

/* The version of an interpreter, probed once per process. "" when it
 * cannot be run. Borrowed, static. */
static const char *cached_version(const char *python)
{
    static struct {
        char exe[PATH_MAX];
        char ver[32];
    } cache[8];
    static size_t n;
    for (size_t i = 0; i < n; i++)
        if (strcmp(cache[i].exe, python) == 0)
            return cache[i].ver;
    char ver[32] = "", *prefix = NULL;
    if (probe_python(python, ver, &prefix) < 0)
        ver[0] = '\0';
    free(prefix);
    size_t slot = n < 8 ? n++ : 7;
    snprintf(cache[slot].exe, sizeof(cache[slot].exe), "%s", python);
    snprintf(cache[slot].ver, sizeof(cache[slot].ver), "%s", ver);
    return cache[slot].ver;
}


/* Absolute path of a command: as given when it has a '/', else from PATH.
 * Symlinks are kept: a venv's bin/python is a symlink whose location is what
 * makes it the venv's. */
static char *absolute_command(const char *cmd)
{
    if (strchr(cmd, '/')) {
        if (cmd[0] == '/')
            return strdup(cmd);
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof(cwd)))
            return NULL;
        return util_printf("%s/%s", cwd, cmd[0] == '.' && cmd[1] == '/' ? cmd + 2 : cmd);
    }
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char *copy = strdup(path), *save = NULL, *found = NULL;
    for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char *cand = util_printf("%s/%s", dir, cmd);
        if (cand && cand[0] == '/' && access(cand, X_OK) == 0 && !util_is_dir(cand))
            found = cand;
        else
            free(cand);
    }
    free(copy);
    return found;
}

/* The user's home directory ($HOME, else the password database). */
static const char *user_home(void)
{
    const char *home = getenv("HOME");
    if (!home || !*home) {
        struct passwd *pw = getpwuid(getuid());
        home = pw && pw->pw_dir ? pw->pw_dir : "/tmp";
    }
    return home;
}

/* ---- names, paths and hashes ---------------------------------------------- */

const char *envs_base_python_version(void) { return cached_version(BENCHGEN_PYTHON); }

/* "3.12" from a lock's `# python: 3.12` line, into want ("" when none). */
static void lock_python_request(const char *lock, char want[16])
{
    char *text = NULL;
    want[0] = '\0';
    if (util_read_file(lock, &text, NULL) < 0)
        return;
    for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char v[16];
        if (sscanf(line, "# python: %15[0-9.]", v) == 1 && version_number(v)) {
            snprintf(want, 16, "%s", v);
            break;
        }
    }
    free(text);
}

/* An interpreter of Python `want` ("3.12"): `pyenv prefix`, then the newest
 * ~/.pyenv/versions/<want>*, then python<want> on PATH. malloc'd or NULL. */
static char *find_python(const char *want)
{
    struct strbuf out = {0};
    char *found = NULL;
    int status = 0;
    char *argv[] = {"pyenv", "prefix", (char *)want, NULL};
    if (envs_proc_run(argv, &out, &status) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.buf) {
        out.buf[strcspn(out.buf, "\r\n")] = '\0';
        found = util_printf("%s/bin/python3", out.buf);
        if (found && access(found, X_OK) != 0) {
            free(found);
            found = NULL;
        }
    }
    strbuf_free(&out);
    const char *root = getenv("PYENV_ROOT");
    char *versions = root && *root ? util_printf("%s/versions", root) : util_printf("%s/.pyenv/versions", user_home());
    DIR *d = !found && versions ? opendir(versions) : NULL;
    struct dirent *e;
    char best[256] = "";
    size_t wl = strlen(want);
    while (d && (e = readdir(d))) {
        /* "3.12" matches 3.12 and 3.12.x, never 3.120 */
        if (strncmp(e->d_name, want, wl) != 0 || (e->d_name[wl] && e->d_name[wl] != '.'))
            continue;
        if (strverscmp(e->d_name, best) > 0)
            snprintf(best, sizeof(best), "%s", e->d_name);
    }
    if (d)
        closedir(d);
    if (!found && best[0]) {
        found = util_printf("%s/%s/bin/python3", versions, best);
        if (found && access(found, X_OK) != 0) {
            free(found);
            found = NULL;
        }
    }
    free(versions);
    if (!found) {
        char name[32];
        snprintf(name, sizeof(name), "python%s", want);
        found = absolute_command(name);
    }
    return found;
}

const char *envs_cache_dir(void)
{
    /* Recomputed on every call: the environment decides, and tests change it. */
    static char dir[PATH_MAX];
    const char *bc = getenv("BENCHGEN_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
    if (bc && *bc)
        snprintf(dir, sizeof(dir), "%s", bc);
    else if (xdg && xdg[0] == '/') /* the XDG spec says relative values are to be ignored */
        snprintf(dir, sizeof(dir), "%s/benchgen", xdg);
    else
        snprintf(dir, sizeof(dir), "%s/.cache/benchgen", user_home());
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    util_mkdir_p(dir, 0755); /* a failure shows up, with its reason, at first use */
    return dir;
}

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

static char *lock_dir(void) { return util_printf("%s/data/envs", util_home_dir()); }

/* Names of <dir>/<name>.txt (dir: data/envs when NULL), sorted. */
static int list_lock_names_in(struct strlist *nl, const char *where)
{
    char *dir = where ? strdup(where) : lock_dir();
    if (!dir)
        return error_set(BG_ENOMEM, "out of memory");
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

static int list_lock_names(struct strlist *nl) { return list_lock_names_in(nl, NULL); }

/* Names registered with `env add`, sorted. */
static int list_external_names(struct strlist *nl)
{
    char *dir = util_printf("%s/external", envs_cache_dir());
    if (!dir)
        return error_set(BG_ENOMEM, "out of memory");
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

static char *known_names(void)
{
    struct strlist a = {0}, b = {0};
    struct strbuf sb = {0};
    list_lock_names(&a);
    list_external_names(&b);
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
    out->name = strdup(name);
    out->python = strdup(python);
    if (prefix && prefix[0] == '/') {
        out->dir = strdup(prefix);
    } else { /* <prefix>/bin/python */
        out->dir = strdup(python);
        for (int up = 0; out->dir && up < 2; up++) {
            char *slash = strrchr(out->dir, '/');
            if (slash && slash != out->dir)
                *slash = '\0';
        }
    }
    if (!out->name || !out->python || !out->dir) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    out->hash[0] = '\0';
    snprintf(out->pyver, sizeof(out->pyver), "%s", ver ? ver : "");
    if (cmd.n) {
        if (!(out->prefix = calloc(cmd.n + 1, sizeof(char *)))) {
            err = error_set(BG_ENOMEM, "out of memory");
            goto done;
        }
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

static int resolve_lock(const char *name, const char *lock, struct env_info *out)
{
    int err;
    char want[16];
    lock_python_request(lock, want);
    out->builder = want[0] ? find_python(want) : strdup(BENCHGEN_PYTHON);
    const char *ver = out->builder ? cached_version(out->builder) : "";
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
    out->name = strdup(name);
    out->lock_path = strdup(lock);
    out->dir = util_printf("%s/envs/%s-%s", envs_cache_dir(), name, out->hash);
    out->python = out->dir ? util_printf("%s/bin/python", out->dir) : NULL;
    char *marker = out->dir ? util_printf("%s/" READY_MARKER, out->dir) : NULL;
    if (!out->name || !out->lock_path || !out->dir || !out->python || !marker) {
        free(marker);
        env_info_free(out);
        return error_set(BG_ENOMEM, "out of memory");
    }
    if (util_is_file(marker))
        out->state = access(out->python, X_OK) == 0 ? "ready" : "broken";
    else if (util_is_dir(out->dir))
        out->state = "incomplete";
    else
        out->state = "missing";
    free(marker);
    return 0;
}

int envs_resolve(const char *name, struct env_info *out)
{
    memset(out, 0, sizeof(*out));
    if (!util_is_safe_name(name))
        return error_set(BG_EUSAGE, "invalid environment name '%s' (letters, digits, '.', '_', '+', '-')",
                         name ? name : "");
    char *reg = util_printf("%s/external/%s", envs_cache_dir(), name);
    char *lock = util_printf("%s/data/envs/%s.txt", util_home_dir(), name);
    int err = 0;
    if (!reg || !lock) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (util_is_file(reg)) {
        err = resolve_external(name, reg, out);
    } else if (util_is_file(lock)) {
        err = resolve_lock(name, lock, out);
    } else if (strchr(name, '+')) {
        /* A derived environment (`run --with`): its lock lives in the cache. */
        free(lock);
        lock = util_printf("%s/derived/%s.txt", envs_cache_dir(), name);
        if (lock && util_is_file(lock))
            err = resolve_lock(name, lock, out);
        else
            err = error_set(BG_ENOTFOUND, "no derived environment '%s' (made by `benchgen run --with`)", name);
    } else {
        char *known = known_names();
        err = error_set(BG_ENOTFOUND,
                        "no environment '%s': neither %s nor a registration from `benchgen env add` exists "
                        "(known environments: %s)",
                        name, lock, known ? known : "?");
        free(known);
    }
done:
    free(reg);
    free(lock);
    return err;
}

/* ---- installed packages, read from files ---------------------------------- */

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

/* Packages in the site-packages of prefix, "name==version", sorted. */
static int read_packages(const char *prefix, const char *pyver, struct strlist *nl)
{
    char mm[16];
    major_minor(pyver, mm, sizeof(mm));
    char *site = util_printf("%s/lib/python%s/site-packages", prefix, mm);
    if (!site)
        return error_set(BG_ENOMEM, "out of memory");
    if (!util_is_dir(site)) { /* Debian's own interpreter */
        free(site);
        if (!(site = util_printf("%s/lib/python3/dist-packages", prefix)))
            return error_set(BG_ENOMEM, "out of memory");
    }
    int err = 0;
    DIR *d = opendir(site);
    if (!d)
        goto done;
    struct dirent *e;
    while (!err && (e = readdir(d))) {
        char *meta = NULL;
        if (ends_with(e->d_name, ".dist-info"))
            meta = util_printf("%s/%s/METADATA", site, e->d_name);
        else if (ends_with(e->d_name, ".egg-info")) /* a directory, or a single PKG-INFO-like file */
            meta = util_printf("%s/%s%s", site, e->d_name, e->d_type == DT_REG ? "" : "/PKG-INFO");
        else
            continue;
        if (!meta) {
            err = error_set(BG_ENOMEM, "out of memory");
            break;
        }
        err = read_metadata(meta, nl);
        free(meta);
    }
    closedir(d);
    strlist_sort(nl, true);
done:
    free(site);
    return err;
}

/* ---- sync ----------------------------------------------------------------- */

/* The interpreter that makes e's venv exists and is 3.9 or later. */
static int check_builder(const struct env_info *e)
{
    char want[16];
    lock_python_request(e->lock_path, want);
    if (!e->builder)
        return error_set(BG_EPYTHON,
                         "%s asks for Python %s (its `# python: %s` line), which this machine does not have: "
                         "install it (`pyenv install %s`) or remove the line to use %s",
                         e->lock_path, want, want, want, BENCHGEN_PYTHON);
    if (!e->pyver[0] || version_number(e->pyver) < 309)
        return error_set(BG_EPYTHON, "%s %s: workers need Python 3.9 or later", e->builder,
                         e->pyver[0] ? e->pyver : "cannot be run");
    return 0;
}

static int write_ready_marker(const struct env_info *e)
{
    struct strlist pkgs = {0};
    struct strbuf sb = {0};
    char when[32];
    int err;
    util_iso8601_utc(time(NULL), when);
    if ((err = read_packages(e->dir, e->pyver, &pkgs)) < 0)
        goto done;
    if ((err = strbuf_printf(&sb,
                             "# benchgen environment: written once pip finished; present means ready\n"
                             "name=%s\nlock=%s\nlock_hash=%s\npython=%s\nbase_python=%s\ncreated=%s\n",
                             e->name, e->lock_path, e->hash, e->pyver, e->builder,
                             when)) < 0)
        goto done;
    for (size_t i = 0; i < pkgs.n; i++)
        if ((err = strbuf_printf(&sb, "%s\n", pkgs.v[i])) < 0)
            goto done;
    char *path = util_printf("%s/" READY_MARKER, e->dir);
    if (!path) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    err = util_write_file_atomic(path, sb.buf, sb.len);
    free(path);
done:
    strlist_free(&pkgs);
    strbuf_free(&sb);
    return err;
}

/* Records why the last sync failed, for `env list`; best effort. */
static void write_failed_marker(const struct env_info *e, const char *why)
{
    char *path = util_printf("%s/" FAILED_MARKER, e->dir);
    if (path && util_is_dir(e->dir))
        util_write_file_atomic(path, why, strlen(why));
    free(path);
}

static double seconds_since(int64_t t0) { return (double)(util_now_ns() - t0) / 1e9; }

/* Builds one lock-file environment. *base_checked avoids probing the base
 * interpreter more than once per sync. */
static int sync_one(const struct env_info *e, bool *base_checked)
{
    int64_t t0 = util_now_ns();
    int err = 0, status = 0;
    char how[96], why[512];

    if (strcmp(e->state, "ready") == 0) {
        printf("env %s: ready (%s)\n", e->name, e->dir);
        return 0;
    }
    if (strcmp(e->state, "external") == 0) {
        printf("env %s: external interpreter %s, nothing to sync\n", e->name, e->python);
        return 0;
    }
    if (!e->lock_path) { /* a broken external registration */
        printf("env %s: FAILED: the registered interpreter %s is gone\n", e->name, e->python);
        return error_set(BG_EPYTHON,
                         "environment %s: registered interpreter %s is gone; run `benchgen env add %s "
                         "PYTHON` again",
                         e->name, e->python, e->name);
    }
    (void)base_checked;
    if ((err = check_builder(e)) < 0) {
        printf("env %s: FAILED: %s\n", e->name, error_last());
        return err;
    }
    if (util_is_dir(e->dir)) {
        printf("env %s: removing %s left by an earlier sync (%s)\n", e->name, e->dir, e->state);
        if ((err = util_rm_rf(e->dir)) < 0)
            goto failed;
    }
    /* uv when it can be had (hard links from its cache: nothing unchanged is
     * downloaded or copied twice), else python -m venv and pip */
    char *uv = envs_uv_find(e->builder, envs_cache_dir());
    printf("env %s: creating %s (Python %s, lock %s, with %s)\n", e->name, e->dir, e->pyver, e->lock_path,
           uv ? "uv" : "pip");
    char *venv_pip[] = {e->builder, "-I", "-m", "venv", e->dir, NULL};
    char *venv_uv[] = {uv, "venv", "--quiet", "--seed", "--python", e->builder, e->dir, NULL};
    char *inst_pip[] = {e->python, "-I", "-m", "pip", "install", "--no-input", "--disable-pip-version-check",
                        "--progress-bar", "on", "-r", e->lock_path, NULL};
    char *inst_uv[] = {uv, "pip", "install", "--python", e->python, "-r", e->lock_path, NULL};
    char **steps[] = {uv ? venv_uv : venv_pip, uv ? inst_uv : inst_pip};
    const char *what[] = {"creating the venv", "installing the lock"};
    for (size_t k = 0; k < 2 && !err; k++) {
        if ((err = envs_proc_run(steps[k], NULL, &status)) < 0)
            break;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            envs_proc_status(status, how, sizeof(how));
            err = error_set(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT ? BG_EINTR : BG_EPYTHON,
                            "%s (%s) failed with %s", what[k], uv ? "uv" : "pip", how);
        }
    }
    free(uv);
    if (err < 0)
        goto failed;
    if ((err = write_ready_marker(e)) < 0)
        goto failed;
    printf("env %s: ready in %.1f s (%s)\n", e->name, seconds_since(t0), e->dir);
    return 0;

failed:
    snprintf(why, sizeof(why), "%s\n", error_last());
    write_failed_marker(e, why);
    printf("env %s: FAILED after %.1f s: %s; %s is left incomplete and the next sync rebuilds it\n", e->name,
           seconds_since(t0), error_last(), e->dir);
    return error_prefix(err, "environment %s", e->name);
}

int envs_sync(const char *const *names, size_t n)
{
    struct strlist todo = {0}, failed = {0};
    struct env_info *infos = NULL;
    size_t count = 0;
    int err = 0, first_err = 0, fd = -1;
    bool base_checked = false;
    char *envs_dir = util_printf("%s/envs", envs_cache_dir());
    char *lock = envs_dir ? util_printf("%s/.lock", envs_dir) : NULL;
    if (!envs_dir || !lock) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }

    if (n == 0) {
        if ((err = list_lock_names(&todo)) < 0)
            goto done;
        if (todo.n == 0) {
            char *dir = lock_dir();
            err = error_set(BG_ENOTFOUND, "no environments to sync: %s holds no <name>.txt lock files",
                            dir ? dir : "data/envs");
            free(dir);
            goto done;
        }
    } else {
        for (size_t i = 0; i < n; i++)
            if ((err = strlist_add_unique(&todo, names[i])) < 0)
                goto done;
    }
    /* Resolve every name first, so a typo fails before anything is built. */
    if (!(infos = calloc(todo.n, sizeof(*infos)))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    for (; count < todo.n; count++)
        if ((err = envs_resolve(todo.v[count], &infos[count])) < 0)
            goto done;

    if ((err = util_mkdir_p(envs_dir, 0755)) < 0)
        goto done;
    /* Two syncs (CI and a session) building the same venv would corrupt it. */
    if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
        err = error_set(BG_EIO, "%s: %s", lock, strerror(errno));
        goto done;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        printf("env: another `benchgen env sync` holds %s; waiting for it\n", lock);
        fflush(stdout);
        while (flock(fd, LOCK_EX) < 0) {
            if (errno != EINTR) {
                err = error_set(BG_EIO, "flock %s: %s", lock, strerror(errno));
                goto done;
            }
        }
        /* The other sync may have built what we were about to build. */
        for (size_t i = 0; i < count; i++) {
            env_info_free(&infos[i]);
            if ((err = envs_resolve(todo.v[i], &infos[i])) < 0)
                goto done;
        }
    }

    for (size_t i = 0; i < count; i++) {
        int e = sync_one(&infos[i], &base_checked);
        if (e < 0) {
            if (!first_err)
                first_err = e;
            strlist_add_unique(&failed, infos[i].name);
            if (e == BG_EINTR)
                break;
        }
    }
    if (failed.n == 1) {
        err = first_err; /* its message is the one sync_one left */
    } else if (failed.n > 1) {
        struct strbuf sb = {0};
        for (size_t i = 0; i < failed.n; i++)
            strbuf_printf(&sb, "%s%s", i ? ", " : "", failed.v[i]);
        err = error_set(first_err == BG_EINTR ? BG_EINTR : BG_EPYTHON,
                        "%zu of %zu environments failed to sync: %s (see the messages above)", failed.n,
                        count, sb.buf ? sb.buf : "");
        strbuf_free(&sb);
    }
done:
    if (fd >= 0)
        close(fd); /* releases the flock */
    for (size_t i = 0; i < count; i++)
        env_info_free(&infos[i]);
    free(infos);
    strlist_free(&todo);
    strlist_free(&failed);
    free(envs_dir);
    free(lock);
    fflush(stdout);
    return err;
}

/* ---- list ----------------------------------------------------------------- */

static int list_one(FILE *out, const char *name)
{
    struct env_info e;
    struct strlist pkgs = {0};
    int err = envs_resolve(name, &e);
    if (err < 0) {
        fprintf(out, "%s  error  -  %s\n", name, error_last());
        return 0; /* one unreadable registration must not hide the rest */
    }
    bool external = e.lock_path == NULL;
    fprintf(out, "%s  %s  %s  %s\n", e.name, e.state, external ? "-" : e.hash, external ? e.python : e.dir);
    if (strcmp(e.state, "missing") == 0) {
        fprintf(out, "  (not built yet: run `benchgen env sync %s`)\n", e.name);
    } else if (strcmp(e.state, "incomplete") == 0) {
        char *failed_path = util_printf("%s/" FAILED_MARKER, e.dir), *why = NULL;
        if (failed_path && util_is_file(failed_path) && util_read_file(failed_path, &why, NULL) == 0) {
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
    } else {
        if (external) {
            char *lock = util_printf("%s/data/envs/%s.txt", util_home_dir(), e.name);
            if (lock && util_is_file(lock))
                fprintf(out, "  (this registration takes precedence over %s)\n", lock);
            free(lock);
            fprintf(out, "  prefix: %s\n", e.dir);
        }
        if ((err = read_packages(e.dir, e.pyver, &pkgs)) < 0)
            goto done;
        for (size_t i = 0; i < pkgs.n; i++)
            fprintf(out, "  %s\n", pkgs.v[i]);
    }
done:
    strlist_free(&pkgs);
    env_info_free(&e);
    return err;
}

int envs_list(FILE *out)
{
    struct strlist names = {0}, ext = {0};
    char *derived = util_printf("%s/derived", envs_cache_dir());
    int err = derived ? 0 : error_set(BG_ENOMEM, "out of memory");
    if (err || (err = list_lock_names(&names)) < 0 || (err = list_external_names(&ext)) < 0 ||
        (err = list_lock_names_in(&ext, derived)) < 0)
        goto done;
    for (size_t i = 0; i < ext.n; i++)
        if ((err = strlist_add_unique(&names, ext.v[i])) < 0)
            goto done;
    strlist_sort(&names, false);
    fprintf(out, "# cache %s; environments use Python %s (%s)\n", envs_cache_dir(),
            envs_base_python_version(), BENCHGEN_PYTHON);
    if (names.n == 0) {
        char *dir = lock_dir();
        fprintf(out, "no environments: add %s/NAME.txt or run `benchgen env add NAME PYTHON`\n",
                dir ? dir : "data/envs");
        free(dir);
    }
    for (size_t i = 0; i < names.n; i++)
        if ((err = list_one(out, names.v[i])) < 0)
            goto done;
done:
    strlist_free(&names);
    strlist_free(&ext);
    free(derived);
    return err;
}

/* ---- add ------------------------------------------------------------------ */

int envs_add(const char *name, const char *python, const char *const *cmd_prefix, size_t nprefix)
{
    char *exe = NULL, *prefix = NULL, *reg_dir = NULL, *reg = NULL;
    const char **argv_prefix = NULL;
    struct strbuf text = {0};
    char ver[32];
    int err = 0;
    if (!util_is_safe_name(name))
        return error_set(BG_EUSAGE, "invalid environment name '%s' (letters, digits, '.', '_', '+', '-')",
                         name ? name : "");
    if (!python || !*python)
        return error_set(BG_EUSAGE, "env add %s: which Python? give an interpreter or a venv directory",
                         name);
    for (size_t i = 0; i < nprefix; i++)
        if (!cmd_prefix[i][0] || strchr(cmd_prefix[i], '\n'))
            return error_set(BG_EUSAGE, "env add %s: prefix argument %zu is empty or holds a newline", name,
                             i + 1);
    if (nprefix) {
        /* The interpreter lives where the prefix's command finds it (a container). */
        exe = strdup(python);
    } else if (!(exe = absolute_command(python))) {
        err = error_set(BG_ENOTFOUND, "env add %s: %s not found", name, python);
        goto done;
    }
    if (!exe) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if (!nprefix && util_is_dir(exe)) { /* a venv (or any prefix) directory */
        char *in_dir = util_printf("%s/bin/python", exe);
        if (!in_dir || access(in_dir, X_OK) != 0) {
            err = error_set(BG_ENOTFOUND, "env add %s: %s is a directory without bin/python, not a venv",
                            name, exe);
            free(in_dir);
            goto done;
        }
        free(exe);
        exe = in_dir;
    }
    if (!nprefix && access(exe, X_OK) != 0) {
        err = error_set(BG_ENOTFOUND, "env add %s: cannot execute %s: %s", name, exe, strerror(errno));
        goto done;
    }
    if (!(argv_prefix = calloc(nprefix + 1, sizeof(*argv_prefix)))) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nprefix; i++)
        argv_prefix[i] = cmd_prefix[i];
    if ((err = probe_command(exe, argv_prefix, true, ver, &prefix)) < 0) {
        error_prefix(err, "env add %s", name);
        goto done;
    }
    reg_dir = util_printf("%s/external", envs_cache_dir());
    reg = reg_dir ? util_printf("%s/%s", reg_dir, name) : NULL;
    strbuf_printf(&text, "%s\n%s\n%s\n", exe, prefix, ver);
    for (size_t i = 0; i < nprefix; i++)
        strbuf_printf(&text, "%s\n", cmd_prefix[i]);
    if (!reg_dir || !reg || !text.buf) {
        err = error_set(BG_ENOMEM, "out of memory");
        goto done;
    }
    if ((err = util_mkdir_p(reg_dir, 0755)) < 0 ||
        (err = util_write_file_atomic(reg, text.buf, text.len)) < 0)
        goto done;
    printf("env %s: registered %s (Python %s, prefix %s%s%s)\n", name, exe, ver, prefix,
           nprefix ? ", run as: " : "", nprefix ? cmd_prefix[0] : "");
done:
    free(exe);
    free(prefix);
    free(reg_dir);
    free(reg);
    free(argv_prefix);
    strbuf_free(&text);
    return err;
}
