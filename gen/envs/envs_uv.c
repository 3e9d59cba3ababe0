/*
 * envs_uv.c - finding or installing uv for building environments (see
 * envs_uv.h).
 */
#include "envs/envs_uv.h"
#include "envs/envs_proc.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* True when `exe --version` runs and exits 0. */
static bool runs(const char *exe)
{
    struct strbuf out = {0};
    int status = 0;
    char *argv[] = {(char *)exe, "--version", NULL};
    bool ok = envs_proc_run(argv, &out, &status) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    strbuf_free(&out);
    return ok;
}

/* The directories of $PATH searched for uv. */
static char *on_path(void)
{
    const char *path = getenv("PATH");
    char *copy = path ? xstrdup(path) : NULL, *save = NULL, *found = NULL;
    for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found; d = strtok_r(NULL, ":", &save)) {
        char *exe = xprintf("%s/uv", *d ? d : ".");
        if (access(exe, X_OK) == 0)
            found = exe;
        else
            free(exe);
    }
    free(copy);
    return found;
}

/* $CACHE/tools/uv: a venv of builder with uv installed from PyPI. */
static char *install_tool(const char *builder, const char *cache_dir, const struct voice *voice)
{
    char *venv = xprintf("%s/tools/uv", cache_dir);
    char *py = xprintf("%s/bin/python", venv);
    char *exe = xprintf("%s/bin/uv", venv);
    char *pin = xprintf("uv==%s", ENVS_UV_VERSION);
    int status = 0;
    bool ok = false;
    if (access(exe, X_OK) == 0 && runs(exe)) {
        ok = true;
        goto done;
    }
    voice_note(voice, "env", NULL, "installing uv %s into %s (once; pip is the fallback)", ENVS_UV_VERSION, venv);
    util_rm_rf(venv);
    char *venv_argv[] = {(char *)builder, "-I", "-m", "venv", venv, NULL};
    char *pip_argv[] = {py, "-I", "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "-q", pin, NULL};
    ok = util_mkdir_p(venv, 0755) == 0 && envs_proc_run(venv_argv, NULL, &status) == 0 && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0 && envs_proc_run(pip_argv, NULL, &status) == 0 && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0 && runs(exe);
    if (!ok)
        voice_warn(voice, "env", NULL, "could not install uv (%s); building with pip", "see the messages above");
done:
    free(venv);
    free(py);
    free(pin);
    if (!ok) {
        free(exe);
        exe = NULL;
    }
    error_clear();
    return exe;
}

char *envs_uv_find(const char *builder, const char *cache_dir, const struct voice *voice)
{
    const char *want = getenv("BENCHGEN_UV");
    char *uv = NULL;
    if (want && !strcmp(want, "pip")) {
        voice_note(voice, "env", NULL, "BENCHGEN_UV=pip: building with pip");
        return NULL;
    }
    if (want && *want) {
        if (!runs(want)) {
            voice_warn(voice, "env", NULL, "BENCHGEN_UV=%s does not run; building with pip", want);
            return NULL;
        }
        uv = xstrdup(want);
    } else if (!(uv = on_path()) || !runs(uv)) {
        free(uv);
        uv = install_tool(builder, cache_dir, voice);
    }
    if (uv) {
        char *cache = xprintf("%s/uv", cache_dir);
        setenv("UV_CACHE_DIR", cache, 0);
        setenv("UV_LINK_MODE", "hardlink", 0);
        free(cache);
    }
    return uv;
}
