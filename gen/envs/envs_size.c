/*
 * envs_size.c - announcing an environment build with its expected download
 * (see envs_size.h; the estimate itself is runners/envs_size.py).
 */
#include "envs/envs_size.h"
#include "envs/envs_proc.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#define PYPI_SIMPLE "https://pypi.org/simple"

/* "12.7 MiB", "3.1 GiB": the units uv prints its downloads in (whole KiB
 * below a MiB, as uv does). */
static void format_bytes(long long b, char *buf, size_t n)
{
    if (b >= 1024LL * 1024)
        util_fmt_size(buf, n, (double)b);
    else
        snprintf(buf, n, "%.0f KiB", (double)b / 1024.0);
}

/* The index the installer will use: the first of the variables set. */
static const char *index_url(bool with_uv)
{
    const char *uv_vars[] = {"UV_DEFAULT_INDEX", "UV_INDEX_URL", NULL};
    const char *pip_vars[] = {"PIP_INDEX_URL", NULL};
    for (const char **v = with_uv ? uv_vars : pip_vars; *v; v++) {
        const char *s = getenv(*v);
        if (s && *s)
            return s;
    }
    return PYPI_SIMPLE;
}

/* A variable set to something other than "", "0" or "false". */
static bool env_true(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0;
}

void envs_size_announce(const struct env_info *e, bool with_uv, const struct env_info *parent,
                        const struct voice *voice)
{
    const char *off = getenv("BENCHGEN_SIZE");
    if ((off && strcmp(off, "0") == 0) || !e->builder || !e->lock_path)
        return;
    /* an installer told not to use an index downloads nothing */
    if (with_uv ? env_true("UV_OFFLINE") || env_true("UV_NO_INDEX") : env_true("PIP_NO_INDEX"))
        return;
    const char *uv_cache = with_uv && getenv("UV_CACHE_DIR") ? getenv("UV_CACHE_DIR") : "";
    const char *index = index_url(with_uv);
    char *helper = xprintf("%s/runners/envs_size.py", util_home_dir());
    char *have = parent ? xprintf("%s", parent->dir) : xstrdup("");
    struct strbuf out = {0};
    int status = 0, pinned = 0, fresh = 0, cached = 0, unknown = 0;
    long long bytes = 0;
    char size[32], reason[256] = "";
    char *argv[] = {e->builder, "-I", helper, e->lock_path, (char *)uv_cache, (char *)index, have, NULL};
    if (envs_proc_run(argv, &out, &status) < 0 || !out.buf) {
        snprintf(reason, sizeof(reason), "%s could not be run", helper);
    } else if (sscanf(out.buf, "ok %d %d %lld %d %d", &pinned, &fresh, &bytes, &cached, &unknown) != 5) {
        char *msg = strncmp(out.buf, "error ", 6) == 0 ? out.buf + 6 : out.buf;
        msg[strcspn(msg, "\n")] = '\0';
        snprintf(reason, sizeof(reason), "%s did not answer: %s", index, *msg ? msg : "no reason given");
    }
    if (reason[0]) {
        voice_note(voice, "env", e->name, "download size unknown (%s); building anyway", reason);
        goto done;
    }
    format_bytes(bytes, size, sizeof(size));
    if (fresh == 0 && unknown == 0) {
        voice_note(voice, "env", e->name, "nothing to download (%s holds every pinned package, %d)",
                   parent ? "the parent or uv's cache" : "uv's cache", pinned);
        goto done;
    }
    struct strbuf line = {0};
    strbuf_printf(&line, "about %s to download (%d of %d pinned packages", size, fresh, pinned);
    if (cached)
        strbuf_printf(&line, "; %d already in %s%s", cached, parent ? parent->name : "uv's cache",
                      parent && with_uv ? " or uv's cache" : "");
    if (unknown)
        strbuf_printf(&line, "; %d of unknown size", unknown);
    strbuf_printf(&line, ")%s", with_uv ? "" : "; pip may find some in its own cache");
    voice_note(voice, "env", e->name, "%s", line.buf ? line.buf : "");
    strbuf_free(&line);
done:
    error_clear();
    free(helper);
    free(have);
    strbuf_free(&out);
}
