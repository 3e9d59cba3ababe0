/*
 * envs_sync.c - `env sync`: building lock-file environments with uv, or
 * python -m venv and pip (see envs_sync.h).
 */
#include "envs/envs_sync.h"
#include "envs/envs.h"
#include "envs/envs_names.h"
#include "envs/envs_packages.h"
#include "envs/envs_proc.h"
#include "envs/envs_python.h"
#include "envs/envs_seed.h"
#include "envs/envs_size.h"
#include "envs/envs_uv.h"
#include "envs/envs_variant.h"
#include "base/error.h"
#include "base/util.h"
#include "base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The interpreter that makes e's venv exists and is 3.9 or later. */
static int check_builder(const struct env_info *e)
{
    char want[16];
    envs_python_requested(e->lock_path, want);
    if (!e->builder)
        return error_set(BG_EPYTHON,
                         "%s asks for Python %s (its `# python: %s` line), which this machine does not have: "
                         "install it (`pyenv install %s`) or remove the line to use %s",
                         e->lock_path, want, want, want, BENCHGEN_PYTHON);
    if (!e->pyver[0] || envs_python_version_number(e->pyver) < 309)
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
    if ((err = envs_packages_read(e->dir, e->pyver, &pkgs)) < 0)
        goto done;
    strbuf_printf(&sb,
                  "# benchgen environment: written once pip finished; present means ready\n"
                  "name=%s\nlock=%s\nlock_hash=%s\npython=%s\nbase_python=%s\ncreated=%s\n",
                  e->name, e->lock_path, e->hash, e->pyver, e->builder, when);
    for (size_t i = 0; i < pkgs.n; i++)
        strbuf_printf(&sb, "%s\n", pkgs.v[i]);
    if ((err = strbuf_error(&sb)) < 0)
        goto done;
    char *path = xprintf("%s/" ENVS_READY_MARKER, e->dir);
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
    char *path = xprintf("%s/" ENVS_FAILED_MARKER, e->dir);
    if (util_is_dir(e->dir))
        util_write_file_atomic(path, why, strlen(why));
    free(path);
}

static double seconds_since(int64_t t0) { return (double)(util_now_ns() - t0) / 1e9; }

/* Builds one lock-file environment. *base_checked avoids probing the base
 * interpreter more than once per sync. */
static int sync_one(const struct env_info *e, bool *base_checked, const struct voice *v)
{
    int64_t t0 = util_now_ns();
    int err = 0, status = 0;
    char how[96], why[512];

    if (strcmp(e->state, "ready") == 0) {
        voice_note(v, "env", e->name, "ready (%s)", e->dir);
        return 0;
    }
    if (strcmp(e->state, "external") == 0) {
        voice_note(v, "env", e->name, "external interpreter %s, nothing to sync", e->python);
        return 0;
    }
    if (!e->lock_path) { /* a broken external registration */
        voice_warn(v, "env", e->name, "FAILED: the registered interpreter %s is gone", e->python);
        return error_set(BG_EPYTHON,
                         "environment %s: registered interpreter %s is gone; run `benchgen env add %s "
                         "PYTHON` again",
                         e->name, e->python, e->name);
    }
    (void)base_checked;
    if ((err = check_builder(e)) < 0) {
        voice_warn(v, "env", e->name, "FAILED: %s", error_last());
        return err;
    }
    if (util_is_dir(e->dir)) {
        voice_note(v, "env", e->name, "removing %s left by an earlier sync (%s)", e->dir, e->state);
        if ((err = util_rm_rf(e->dir)) < 0)
            goto failed;
    }
    /* uv when it can be had (hard links from its cache: nothing unchanged is
     * downloaded or copied twice), else python -m venv and pip */
    char *uv = envs_uv_find(e->builder, envs_cache_dir(), v);
    struct env_info parent;
    bool seeded = envs_seed_parent(e, &parent) == 0;
    error_clear();
    envs_size_announce(e, uv != NULL, seeded ? &parent : NULL, v);
    bool no_deps = envs_variant_no_deps(e->lock_path);
    bool one = strcmp(e->variant, "-") == 0; /* a lock with one build: no variant to name */
    voice_note(v, "env", e->name, "creating %s (Python %s, lock %s%s%s, with %s%s)", e->dir, e->pyver, e->lock_path,
               one ? "" : ", variant ", one ? "" : e->variant, uv ? "uv" : "pip", no_deps ? ", --no-deps" : "");
    char *venv_pip[] = {e->builder, "-I", "-m", "venv", e->dir, NULL};
    char *venv_uv[] = {uv, "venv", "--quiet", "--seed", "--python", e->builder, e->dir, NULL};
    if (seeded) /* no --seed: pip and setuptools come from the parent, as they were there */
        memmove(&venv_uv[3], &venv_uv[4], 4 * sizeof(venv_uv[0]));
    /* `# install: no-deps`: exactly the pins, whose metadata conflicts on purpose (envs_variant.h) */
    char *inst_pip[] = {e->python, "-I", "-m", "pip", "install", "--no-input", "--disable-pip-version-check",
                        "--progress-bar", "on", "-r", e->lock_path, no_deps ? "--no-deps" : NULL, NULL};
    char *inst_uv[] = {uv, "pip", "install", "--python", e->python, "-r", e->lock_path,
                       no_deps ? "--no-deps" : NULL, NULL};
    char **steps[] = {uv ? venv_uv : venv_pip, uv ? inst_uv : inst_pip};
    const char *what[] = {"creating the venv", "installing the lock"};
    for (size_t k = 0; k < 2 && !err; k++) {
        if (k == 1 && seeded) { /* a derived venv starts from its parent's packages */
            long files = 0;
            if ((err = envs_seed_link(e, &parent, &files)) < 0)
                break;
            voice_note(v, "env", e->name, "linked %ld files of %s's packages; installing what the pins change", files,
                       parent.name);
        }
        if ((err = envs_proc_run(steps[k], NULL, &status)) < 0)
            break;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            envs_proc_status(status, how, sizeof(how));
            err = error_set(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT ? BG_EINTR : BG_EPYTHON,
                            "%s (%s) failed with %s", what[k], uv ? "uv" : "pip", how);
        }
    }
    if (seeded)
        env_info_free(&parent);
    free(uv);
    if (err < 0)
        goto failed;
    if ((err = write_ready_marker(e)) < 0)
        goto failed;
    voice_note(v, "env", e->name, "ready in %.1f s (%s)", seconds_since(t0), e->dir);
    return 0;

failed:
    snprintf(why, sizeof(why), "%s\n", error_last());
    write_failed_marker(e, why);
    voice_warn(v, "env", e->name, "FAILED after %.1f s: %s; %s is left incomplete and the next sync rebuilds it",
               seconds_since(t0), error_last(), e->dir);
    return error_prefix(err, "environment %s", e->name);
}

/* Resolves every name of todo into *infos (*count of them): the variant
 * for this machine, then the locks a CUDA variant sends a backend to
 * (`# backend:` lines), each once. */
static int resolve_all(const struct strlist *todo, struct env_info **infos, size_t *count, const struct voice *v)
{
    size_t cap = todo->n + 8;
    int err = 0;
    *infos = xcalloc(cap, sizeof(**infos));
    *count = 0;
    for (size_t i = 0; i < todo->n && !err; i++) {
        struct env_info e;
        struct strlist splits = {0};
        if ((err = envs_resolve_wanted(todo->v[i], &e)) < 0)
            break;
        if (e.note)
            voice_note(v, "env", e.name, "%s", e.note);
        if (e.lock_path)
            err = envs_variant_splits(e.lock_path, &splits);
        (*infos)[(*count)++] = e;
        for (size_t k = 0; k < splits.n && !err; k++) {
            bool dup = false;
            struct env_info s2;
            if ((err = envs_resolve_lock(e.name, splits.v[k], &s2)) < 0)
                break;
            for (size_t j = 0; j < *count; j++)
                dup = dup || strcmp((*infos)[j].dir, s2.dir) == 0;
            if (dup) {
                env_info_free(&s2);
                continue;
            }
            voice_note(v, "env", e.name, "and the %s variant (%s), which its `# backend:` line sends a backend to",
                       s2.variant, s2.lock_path);
            if (*count == cap)
                *infos = xrealloc(*infos, (cap *= 2) * sizeof(**infos));
            (*infos)[(*count)++] = s2;
        }
        strlist_free(&splits);
        if (*count + 8 > cap)
            *infos = xrealloc(*infos, (cap *= 2) * sizeof(**infos));
    }
    return err;
}

int envs_sync(const char *const *names, size_t n, const struct voice *v)
{
    struct strlist todo = {0}, failed = {0};
    struct env_info *infos = NULL;
    size_t count = 0;
    int err = 0, first_err = 0, fd = -1;
    bool base_checked = false;
    char *envs_dir = xprintf("%s/envs", envs_cache_dir());
    char *lock = xprintf("%s/.lock", envs_dir);

    if (n == 0) {
        if ((err = envs_names_locks(&todo, NULL)) < 0)
            goto done;
        if (todo.n == 0) {
            char *dir = envs_names_lock_dir();
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
    if ((err = resolve_all(&todo, &infos, &count, v)) < 0)
        goto done;

    if ((err = util_mkdir_p(envs_dir, 0755)) < 0)
        goto done;
    /* Two syncs (CI and a session) building the same venv would corrupt it. */
    if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
        err = error_set(BG_EIO, "%s: %s", lock, strerror(errno));
        goto done;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        voice_note(v, "env", NULL, "another `benchgen env sync` holds %s; waiting for it", lock);
        while (flock(fd, LOCK_EX) < 0) {
            if (errno != EINTR) {
                err = error_set(BG_EIO, "flock %s: %s", lock, strerror(errno));
                goto done;
            }
        }
        /* The other sync may have built what we were about to build. */
        for (size_t i = 0; i < count; i++)
            env_info_free(&infos[i]);
        free(infos);
        infos = NULL;
        if ((err = resolve_all(&todo, &infos, &count, v)) < 0)
            goto done;
    }

    for (size_t i = 0; i < count; i++) {
        int e = sync_one(&infos[i], &base_checked, v);
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
    return err;
}
