/*
 * envs_python.c - finding and probing the interpreters environments are made
 * with and run (see envs_python.h).
 *
 * benchgen links no libpython: it asks an interpreter for its version and
 * prefix by running it as a subprocess, fork/exec'd with an argument
 * vector, never through a shell, so paths with spaces or quotes pass through
 * untouched.
 */
#include "envs/envs_python.h"
#include "envs/envs_cache.h"
#include "envs/envs_probe.h"
#include "envs/envs_proc.h"
#include "runners/worker.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Printed by the interpreter under test: its version, then its prefix. */
static const char probe_code[] = "import sys; print(sys.version.split()[0]); print(sys.prefix)";
/* The same, then whether the worker's module imports (argv[1]: its directory). */
static const char probe_module_code[] =
    "import sys; print(sys.version.split()[0]); print(sys.prefix); sys.stdout.flush(); "
    "sys.path.insert(0, sys.argv[1]); import _benchgen; print('_benchgen', _benchgen.__file__)";

bool envs_python_has_control(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

int envs_python_version_number(const char *ver)
{
    int major = 0, minor = 0;
    if (sscanf(ver, "%d.%d", &major, &minor) != 2)
        return 0;
    return major * 100 + minor;
}

/* A prefix that names the cell's directory ({cell}, runners/worker.h) gets
 * an empty stand-in for the probe, with the empty env file it may read. */
static char *probe_cell_dir(const char *const *cmd_prefix)
{
    bool named = false;
    for (const char *const *p = cmd_prefix; p && *p; p++)
        named = named || strstr(*p, "{cell}");
    if (!named)
        return NULL;
    const char *tmp = getenv("TMPDIR");
    char *dir = xprintf("%s/benchgen-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        free(dir);
        return NULL;
    }
    char *env = xprintf("%s/env", dir);
    FILE *f = fopen(env, "w");
    if (f)
        fclose(f);
    free(env);
    return dir;
}

int envs_python_probe(const char *python, const char *const *cmd_prefix, bool check_module, char ver[32],
                      char **prefix)
{
    size_t np = 0;
    while (cmd_prefix && cmd_prefix[np])
        np++;
    struct strbuf out = {0};
    int status = 0, err = 0;
    *prefix = NULL;
    ver[0] = '\0';
    const char *args[] = {"-I", "-c", check_module ? probe_module_code : probe_code,
                          check_module ? worker_ext_dir() : NULL, NULL};
    if ((err = envs_python_run(python, cmd_prefix, args, &out, &status)) < 0)
        goto done;
    char *save = NULL;
    char *l1 = out.buf ? strtok_r(out.buf, "\r\n", &save) : NULL;
    char *l2 = l1 ? strtok_r(NULL, "\r\n", &save) : NULL;
    char *l3 = l2 ? strtok_r(NULL, "\r\n", &save) : NULL;
    if (!l1 || !l2 || strlen(l1) >= 32 || strspn(l1, "0123456789.") != strlen(l1) || !isdigit((unsigned char)l1[0]) ||
        envs_python_has_control(l2)) {
        char how[96];
        envs_proc_status(status, how, sizeof(how));
        err = error_set(BG_EPYTHON, "%s%s could not report its Python version and prefix (%s): is it a Python "
                        "interpreter?", np ? "the prefixed " : "", python, how);
        goto done;
    }
    snprintf(ver, 32, "%s", l1);
    if (check_module && envs_python_version_number(ver) < 309) {
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
    *prefix = xstrdup(l2);
done:
    strbuf_free(&out);
    return err;
}

int envs_python_run(const char *python, const char *const *cmd_prefix, const char *const *args,
                    struct strbuf *out, int *status)
{
    size_t np = 0, na = 0;
    while (cmd_prefix && cmd_prefix[np])
        np++;
    while (args && args[na])
        na++;
    char **argv = xcalloc(np + na + 2, sizeof(*argv));
    char *cell_dir = probe_cell_dir(cmd_prefix);
    char **expanded = cell_dir ? worker_prefix_expand(cmd_prefix, cell_dir) : NULL;
    size_t k = 0;
    for (size_t i = 0; i < np; i++)
        argv[k++] = expanded ? expanded[i] : (char *)cmd_prefix[i];
    argv[k++] = (char *)python;
    for (size_t i = 0; i < na; i++)
        argv[k++] = (char *)args[i];
    int err = envs_probe_run(argv, python, out, status);
    free(argv);
    worker_prefix_free(expanded);
    if (cell_dir)
        util_rm_rf(cell_dir);
    free(cell_dir);
    return err;
}

static int probe_python(const char *python, char ver[32], char **prefix)
{
    return envs_python_probe(python, NULL, false, ver, prefix);
}

const char *envs_python_version(const char *python)
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

char *envs_python_which(const char *cmd)
{
    if (strchr(cmd, '/')) {
        if (cmd[0] == '/')
            return xstrdup(cmd);
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof(cwd)))
            return NULL;
        return xprintf("%s/%s", cwd, cmd[0] == '.' && cmd[1] == '/' ? cmd + 2 : cmd);
    }
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char *copy = xstrdup(path), *save = NULL, *found = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *cand = xprintf("%s/%s", dir, cmd);
        if (cand[0] == '/' && access(cand, X_OK) == 0 && !util_is_dir(cand))
            found = cand;
        else
            free(cand);
    }
    free(copy);
    return found;
}

void envs_python_requested(const char *lock, char want[16])
{
    char *text = NULL;
    want[0] = '\0';
    if (util_read_file(lock, &text, NULL) < 0)
        return;
    for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char v[16];
        if (sscanf(line, "# python: %15[0-9.]", v) == 1 && envs_python_version_number(v)) {
            snprintf(want, 16, "%s", v);
            break;
        }
    }
    free(text);
}

char *envs_python_find(const char *want)
{
    struct strbuf out = {0};
    char *found = NULL;
    int status = 0;
    char *argv[] = {"pyenv", "prefix", (char *)want, NULL};
    if (envs_proc_run(argv, &out, &status) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.buf) {
        out.buf[strcspn(out.buf, "\r\n")] = '\0';
        found = xprintf("%s/bin/python3", out.buf);
        if (access(found, X_OK) != 0) {
            free(found);
            found = NULL;
        }
    }
    strbuf_free(&out);
    const char *root = getenv("PYENV_ROOT");
    char *versions = root && *root ? xprintf("%s/versions", root) : xprintf("%s/.pyenv/versions", envs_user_home());
    DIR *d = !found ? opendir(versions) : NULL;
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
        found = xprintf("%s/%s/bin/python3", versions, best);
        if (access(found, X_OK) != 0) {
            free(found);
            found = NULL;
        }
    }
    free(versions);
    if (!found) {
        char name[32];
        snprintf(name, sizeof(name), "python%s", want);
        found = envs_python_which(name);
    }
    return found;
}
