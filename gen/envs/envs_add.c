/*
 * envs_add.c - `env add`: registering an existing interpreter or venv, run
 * after an optional command prefix (see envs_add.h).
 */
#include "envs/envs_add.h"
#include "envs/envs.h"
#include "envs/envs_needs.h"
#include "envs/envs_python.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool lock_exists(const char *name)
{
    char *lock = xprintf("%s/data/envs/%s.txt", util_home_dir(), name);
    bool yes = util_is_file(lock);
    free(lock);
    return yes;
}

int envs_add(const char *name, const char *python, const char *const *cmd_prefix, size_t nprefix,
             const char *for_backends, const struct voice *voice)
{
    char *exe = NULL, *prefix = NULL, *reg_dir = NULL, *reg = NULL, *found = NULL, *old = NULL;
    struct strlist backends = {0};
    const char **argv_prefix = NULL;
    struct strbuf text = {0};
    char ver[32];
    int err = 0;
    if (!util_is_safe_name(name))
        return error_set(BG_EUSAGE, "invalid environment name '%s' (letters, digits, '.', '_', '+', '-')",
                         name ? name : "");
    if ((err = envs_needs_backends(&backends, name, for_backends)) < 0)
        return error_prefix(err, "env add %s", name);
    if (!python || !*python)
        return error_set(BG_EUSAGE, "env add %s: which Python? give an interpreter or a venv directory",
                         name);
    /* The registration is one line per path and argument: a newline would
     * split one into two, and no control character belongs in either. */
    if (envs_python_has_control(python))
        return error_set(BG_EUSAGE, "env add %s: the interpreter path holds a control character (a newline, "
                         "tab or escape); rename it or link to it from a plain path", name);
    for (size_t i = 0; i < nprefix; i++)
        if (!cmd_prefix[i][0] || envs_python_has_control(cmd_prefix[i]))
            return error_set(BG_EUSAGE, "env add %s: prefix argument %zu is empty or holds a control character "
                             "(a newline, tab or escape)", name, i + 1);
    if (nprefix) {
        /* The interpreter lives where the prefix's command finds it (a container). */
        exe = xstrdup(python);
    } else if (!(exe = envs_python_which(python))) {
        err = error_set(BG_ENOTFOUND, "env add %s: %s not found", name, python);
        goto done;
    }
    if (!nprefix && util_is_dir(exe)) { /* a venv (or any prefix) directory */
        char *in_dir = xprintf("%s/bin/python", exe);
        if (access(in_dir, X_OK) != 0) {
            err = error_set(BG_ENOTFOUND, "env add %s: %s is a directory without bin/python, not a venv",
                            name, exe);
            free(in_dir);
            goto done;
        }
        free(exe);
        exe = in_dir;
    }
    if (envs_python_has_control(exe)) { /* the working directory's, joined to a relative path */
        err = error_set(BG_EUSAGE, "env add %s: the interpreter path %s holds a control character", name, exe);
        goto done;
    }
    if (!nprefix && !util_is_file(exe)) {
        const char *kind = util_file_kind(exe);
        err = kind ? error_set(BG_EUSAGE, "env add %s: %s is %s, not an interpreter", name, exe, kind)
                   : error_set(BG_ENOTFOUND, "env add %s: %s: %s", name, exe, strerror(errno));
        goto done;
    }
    if (!nprefix && access(exe, X_OK) != 0) {
        err = error_set(BG_ENOTFOUND, "env add %s: cannot execute %s: %s", name, exe, strerror(errno));
        goto done;
    }
    argv_prefix = xcalloc(nprefix + 1, sizeof(*argv_prefix));
    for (size_t i = 0; i < nprefix; i++)
        argv_prefix[i] = cmd_prefix[i];
    if ((err = envs_python_probe(exe, argv_prefix, true, ver, &prefix)) < 0) {
        error_prefix(err, "env add %s", name);
        goto done;
    }
    /* Every cell needs numpy; the backends mapped to it need their frameworks. */
    if ((err = envs_needs_check(exe, argv_prefix, &backends, &found)) < 0) {
        error_prefix(err, "env add %s", name);
        goto done;
    }
    reg_dir = xprintf("%s/external", envs_cache_dir());
    reg = xprintf("%s/%s", reg_dir, name);
    if (util_is_file(reg)) {
        size_t n = 0;
        char *text_old = NULL;
        if (util_read_file(reg, &text_old, &n) == 0 && text_old) {
            text_old[strcspn(text_old, "\n")] = '\0';
            old = text_old;
        }
    }
    strbuf_printf(&text, "%s\n%s\n%s\n", exe, prefix, ver);
    for (size_t i = 0; i < nprefix; i++)
        strbuf_printf(&text, "%s\n", cmd_prefix[i]);
    if ((err = strbuf_error(&text)) < 0 || (err = util_mkdir_p
(reg_dir, 0755)) < 0 ||
        (err = util_write_file_atomic(reg, text.buf, text.len)) < 0)
        goto done;
    if (old)
        voice_note(voice, "env", name, "replaces its earlier registration (%s)", old);
    else if (lock_exists(name))
        voice_note(voice, "env", name, "this registration is used instead of data/envs/%s.txt", name);
    voice_note(voice, "env", name, "registered %s (Python %s, prefix %s%s%s)", exe, ver, prefix,
               nprefix ? ", run as: " : "", nprefix ? cmd_prefix[0] : "");
    struct strbuf line = {0};
    strbuf_printf(&line, "imports %s%s", found, backends.n ? " for " : " (map backends to it in a spec's `envs:`, or "
                  "check them now with --for)");
    for (size_t i = 0; i < backends.n; i++)
        strbuf_printf(&line, "%s%s", i ? ", " : "", backends.v[i]);
    voice_note(voice, "env", name, "%s", line.buf ? line.buf : "");
    strbuf_free(&line);
done:
    free(found);
    free(old);
    strlist_free(&backends);
    free(exe);
    free(prefix);
    free(reg_dir);
    free(reg);
    free(argv_prefix);
    strbuf_free(&text);
    return err;
}
