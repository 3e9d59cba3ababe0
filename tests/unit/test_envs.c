/*
 * test_envs.c - Python environments: lock hashes, cache-dir resolution,
 * resolve states, `env add` version checks, `env list` package reading and
 * the no-op and locking paths of `env sync`.
 *
 * Everything runs in a mkdtemp directory used as BENCHGEN_HOME and
 * BENCHGEN_CACHE, with fake venvs (a marker file and a shell script for
 * bin/python); nothing is pip-installed. The one real interpreter started is
 * the one benchgen links (BENCHGEN_PYTHON), to check `env add` accepts it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "envs/envs.h"
#include "envs/envs_add.h"
#include "envs/envs_derive.h"
#include "envs/envs_list.h"
#include "envs/envs_sync.h"
#include "base/error.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BENCHGEN_PYTHON
#define BENCHGEN_PYTHON "python3"
#endif

static char tmp[64], home[128], cache[128]; /* mkdtemp names are short */

/* ---- fixtures ------------------------------------------------------------- */

static void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
}

static void mkdirs(const char *path) { assert_int_equal(util_mkdir_p(path, 0755), 0); }

static int group_setup(void **state)
{
    (void)state;
    snprintf(tmp, sizeof(tmp), "/tmp/benchgen-test-envs-XXXXXX");
    if (!mkdtemp(tmp))
        return -1;
    snprintf(home, sizeof(home), "%s/home", tmp);
    snprintf(cache, sizeof(cache), "%s/cache", tmp);
    char envs[PATH_MAX + 16];
    snprintf(envs, sizeof(envs), "%s/data/envs", home);
    if (util_mkdir_p(envs, 0755) < 0)
        return -1;
    /* util_home_dir() remembers its first answer: set it before anything asks. */
    setenv("BENCHGEN_HOME", home, 1);
    /* the worker module of this build, not of the temporary home */
    setenv("BENCHGEN_EXT_DIR", BENCHGEN_SOURCE_DIR "/" BENCHGEN_EXT_SUBDIR, 1);
    setenv("BENCHGEN_CACHE", cache, 1);
    return strcmp(util_home_dir(), home) == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    util_rm_rf(tmp);
    return 0;
}

/* Writes data/envs/<name>.txt. */
static void write_lock(const char *name, const char *text)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/data/envs/%s.txt", home, name);
    write_text(path, text, 0644);
}

/* Makes a resolved lock env look ready: venv dir, bin/python, marker. */
static void fake_ready(const struct env_info *e)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/bin", e->dir);
    mkdirs(path);
    write_text(e->python, "#!/bin/sh\nexit 0\n", 0755);
    snprintf(path, sizeof(path), "%s/.benchgen-ready", e->dir);
    write_text(path, "lock_hash=x\n", 0644);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_base_version_format(void **state)
{
    (void)state;
    const char *v = envs_base_python_version();
    int a = -1, b = -1, c = -1;
    char extra = 0;
    assert_true(sscanf(v, "%d.%d.%d%c", &a, &b, &c, &extra) >= 3);
    assert_int_equal(a, 3);
    assert_true(b >= 8);
    assert_null(strchr(v, ' '));
    assert_ptr_equal(v, envs_base_python_version()); /* static, borrowed */
}

static void test_lock_hash(void **state)
{
    (void)state;
    char path[PATH_MAX + 32], h1[17], h2[17];
    snprintf(path, sizeof(path), "%s/lock.txt", tmp);
    write_text(path, "numpy==2.3.5\n", 0644);
    /* SHA-256("numpy==2.3.5\n" "\0" "3.11.7"), from Python's hashlib */
    assert_int_equal(envs_lock_hash(path, "3.11.7", h1), 0);
    assert_string_equal(h1, "00d893e24558e65d");
    assert_int_equal(envs_lock_hash(path, "3.11.7", h2), 0);
    assert_string_equal(h1, h2);
    assert_int_equal(envs_lock_hash(path, "3.12.1", h2), 0);
    assert_string_equal(h2, "567153d0581ff828");
    write_text(path, "numpy==2.3.4\n", 0644); /* one byte changed */
    assert_int_equal(envs_lock_hash(path, "3.11.7", h2), 0);
    assert_int_equal(strlen(h2), 16);
    assert_string_not_equal(h1, h2);
    /* the separator keeps "ab"+"c" and "a"+"bc" apart */
    write_text(path, "numpy==2.3.5\n3", 0644);
    assert_int_equal(envs_lock_hash(path, ".11.7", h2), 0);
    assert_string_not_equal(h1, h2);
    unlink(path);
    assert_int_equal(envs_lock_hash(path, "3.11.7", h2), BG_ENOTFOUND);
}

static void test_cache_dir_resolution(void **state)
{
    (void)state;
    char *saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *saved_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    char want[PATH_MAX + 64], set[PATH_MAX + 64];

    snprintf(set, sizeof(set), "%s/explicit/", tmp);
    setenv("BENCHGEN_CACHE", set, 1);
    snprintf(want, sizeof(want), "%s/explicit", tmp);
    assert_string_equal(envs_cache_dir(), want);
    assert_true(util_is_dir(want)); /* created on demand */

    unsetenv("BENCHGEN_CACHE");
    snprintf(set, sizeof(set), "%s/xdg", tmp);
    setenv("XDG_CACHE_HOME", set, 1);
    snprintf(want, sizeof(want), "%s/xdg/benchgen", tmp);
    assert_string_equal(envs_cache_dir(), want);

    setenv("BENCHGEN_CACHE", "", 1); /* empty means unset */
    assert_string_equal(envs_cache_dir(), want);
    unsetenv("BENCHGEN_CACHE");

    snprintf(set, sizeof(set), "%s/h", tmp);
    setenv("HOME", set, 1);
    setenv("XDG_CACHE_HOME", "relative/cache", 1); /* XDG: relative values are ignored */
    snprintf(want, sizeof(want), "%s/h/.cache/benchgen", tmp);
    assert_string_equal(envs_cache_dir(), want);
    unsetenv("XDG_CACHE_HOME");
    assert_string_equal(envs_cache_dir(), want);

    if (saved_home)
        setenv("HOME", saved_home, 1);
    if (saved_xdg)
        setenv("XDG_CACHE_HOME", saved_xdg, 1);
    free(saved_home);
    free(saved_xdg);
    setenv("BENCHGEN_CACHE", cache, 1);
    assert_string_equal(envs_cache_dir(), cache);
}

static void test_resolve_states(void **state)
{
    (void)state;
    struct env_info e;
    char path[PATH_MAX + 64], hash[17];
    write_lock("states", "six==1.16.0\n");
    snprintf(path, sizeof(path), "%s/data/envs/states.txt", home);
    assert_int_equal(envs_lock_hash(path, envs_base_python_version(), hash), 0);

    assert_int_equal(envs_resolve("states", &e), 0);
    assert_string_equal(e.name, "states");
    assert_string_equal(e.state, "missing");
    assert_string_equal(e.lock_path, path);
    assert_string_equal(e.hash, hash);
    snprintf(path, sizeof(path), "%s/envs/states-%s", cache, hash);
    assert_string_equal(e.dir, path);
    snprintf(path, sizeof(path), "%s/envs/states-%s/bin/python", cache, hash);
    assert_string_equal(e.python, path);

    mkdirs(e.dir); /* a sync that died half-way */
    env_info_free(&e);
    assert_int_equal(envs_resolve("states", &e), 0);
    assert_string_equal(e.state, "incomplete");

    fake_ready(&e);
    env_info_free(&e);
    assert_int_equal(envs_resolve("states", &e), 0);
    assert_string_equal(e.state, "ready");

    assert_int_equal(chmod(e.python, 0644), 0); /* marker, but no runnable interpreter */
    env_info_free(&e);
    assert_int_equal(envs_resolve("states", &e), 0);
    assert_string_equal(e.state, "broken");

    /* a changed lock names a different venv, which does not exist yet */
    char old_dir[PATH_MAX];
    snprintf(old_dir, sizeof(old_dir), "%s", e.dir);
    env_info_free(&e);
    write_lock("states", "six==1.17.0\n");
    assert_int_equal(envs_resolve("states", &e), 0);
    assert_string_equal(e.state, "missing");
    assert_string_not_equal(e.dir, old_dir);
    env_info_free(&e);
    env_info_free(&e); /* idempotent */
}

static void test_resolve_not_found(void **state)
{
    (void)state;
    struct env_info e;
    write_lock("known1", "six==1.16.0\n");
    assert_int_equal(envs_resolve("no-such-env", &e), BG_ENOTFOUND);
    assert_non_null(strstr(error_last(), "no-such-env"));
    assert_non_null(strstr(error_last(), "known1")); /* the message lists what exists */
    assert_null(e.name);
    assert_int_equal(envs_resolve("../etc", &e), BG_EUSAGE);
    assert_int_equal(envs_resolve("", &e), BG_EUSAGE);
}

static void test_add_rejects_old_python(void **state)
{
    (void)state;
    char py[PATH_MAX + 32], reg[PATH_MAX + 64];
    snprintf(py, sizeof(py), "%s/python-old", tmp);
    write_text(py, "#!/bin/sh\necho 3.8.18\necho /opt/old\necho _benchgen x\n", 0755);
    assert_int_equal(envs_add("oldpy", py, NULL, 0, NULL, NULL), BG_EPYTHON);
    const char *msg = error_last();
    assert_non_null(strstr(msg, "3.8.18"));
    assert_non_null(strstr(msg, "3.9 or later"));
    snprintf(reg, sizeof(reg), "%s/external/oldpy", cache);
    assert_false(util_is_file(reg)); /* nothing registered */
    struct env_info e;
    assert_int_equal(envs_resolve("oldpy", &e), BG_ENOTFOUND);
}

static void test_add_rejects_non_python(void **state)
{
    (void)state;
    char py[PATH_MAX + 32], dir[PATH_MAX + 32];
    snprintf(py, sizeof(py), "%s/not-python", tmp);
    write_text(py, "#!/bin/sh\necho hello\n", 0755);
    assert_int_equal(envs_add("np", py, NULL, 0, NULL, NULL), BG_EPYTHON);
    write_text(py, "#!/bin/sh\nexit 3\n", 0755);
    assert_int_equal(envs_add("np", py, NULL, 0, NULL, NULL), BG_EPYTHON);
    assert_non_null(strstr(error_last(), "exit status 3"));
    snprintf(py, sizeof(py), "%s/does-not-exist", tmp);
    assert_int_equal(envs_add("np", py, NULL, 0, NULL, NULL), BG_ENOTFOUND);
    snprintf(dir, sizeof(dir), "%s/empty-dir", tmp);
    mkdirs(dir);
    assert_int_equal(envs_add("np", dir, NULL, 0, NULL, NULL), BG_ENOTFOUND);
    assert_non_null(strstr(error_last(), "not a venv"));
    assert_int_equal(envs_add("bad/name", BENCHGEN_PYTHON, NULL, 0, NULL, NULL), BG_EUSAGE);
}

/* A folder on PYTHONPATH holding a stand-in `numpy` package, for the
 * registrations below of an interpreter that may have none (env add checks
 * that numpy imports: every cell needs it). */
static void with_numpy(void)
{
    char dir[PATH_MAX], init[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s/pypath/numpy", tmp);
    mkdirs(dir);
    snprintf(init, sizeof(init), "%s/__init__.py", dir);
    write_text(init, "__version__ = '0.0-stand-in'\n", 0644);
    snprintf(dir, sizeof(dir), "%s/pypath", tmp);
    setenv("PYTHONPATH", dir, 1);
}

static void test_add_accepts_linked_interpreter(void **state)
{
    (void)state;
    /* The interpreter benchgen was built with: a real Python start. A
     * torch-eager mapping needs torch as well; it has none here. */
    with_numpy();
    assert_int_equal(envs_add("real", BENCHGEN_PYTHON, NULL, 0, "torch-eager", NULL), BG_ENOTFOUND);
    assert_non_null(strstr(error_last(), "torch (ModuleNotFoundError: No module named 'torch'; torch-eager needs it)"));
    assert_null(strstr(error_last(), "numpy ("));
    assert_int_equal(envs_add("real", BENCHGEN_PYTHON, NULL, 0, NULL, NULL), 0);
    unsetenv("PYTHONPATH");
    struct env_info e;
    assert_int_equal(envs_resolve("real", &e), 0);
    assert_string_equal(e.state, "external");
    assert_string_equal(e.python, BENCHGEN_PYTHON);
    assert_null(e.lock_path);
    assert_string_equal(e.hash, "");
    assert_true(util_is_dir(e.dir)); /* sys.prefix */
    env_info_free(&e);
}

/* The module check is real: an interpreter that cannot import _benchgen
 * (the script prints a version but no module line) is refused. */
static void test_add_rejects_without_module(void **state)
{
    (void)state;
    char py[PATH_MAX + 32];
    snprintf(py, sizeof(py), "%s/python-nomod", tmp);
    write_text(py, "#!/bin/sh\necho 3.12.1\necho /opt/x\nexit 1\n", 0755);
    assert_int_equal(envs_add("nomod", py, NULL, 0, NULL, NULL), BG_EPYTHON);
    assert_non_null(strstr(error_last(), "cannot import benchgen's worker module"));
}

/* Another minor version and a command prefix: the registration keeps the
 * prefix, one argument per line, and resolves it back. */
static void test_add_prefix_and_other_version(void **state)
{
    (void)state;
    const char *prefix[] = {"env", "BENCHGEN_TEST_PREFIX=1", NULL};
    with_numpy();
    assert_int_equal(envs_add("prefixed", BENCHGEN_PYTHON, prefix, 2, NULL, NULL), 0);
    unsetenv("PYTHONPATH");
    struct env_info e;
    assert_int_equal(envs_resolve("prefixed", &e), 0);
    assert_string_equal(e.state, "external");
    assert_non_null(e.prefix);
    assert_string_equal(e.prefix[0], "env");
    assert_string_equal(e.prefix[1], "BENCHGEN_TEST_PREFIX=1");
    assert_null(e.prefix[2]);
    assert_string_equal(e.pyver, envs_base_python_version());
    env_info_free(&e);
    const char *bad[] = {"", NULL};
    assert_int_equal(envs_add("prefixed2", BENCHGEN_PYTHON, bad, 1, NULL, NULL), BG_EUSAGE);
}

/* A path or argument with a control character never reaches the
 * one-per-line registration; a candidate that hangs or floods is stopped
 * at its deadline or its output cap (envs_probe.h). */
static void test_add_bounded_and_typed(void **state)
{
    (void)state;
    char py[PATH_MAX + 32], reg[PATH_MAX + 32];
    snprintf(py, sizeof(py), "%s/py\nthon", tmp);
    write_text(py, "#!/bin/sh\nexec " BENCHGEN_PYTHON " \"$@\"\n", 0755);
    assert_int_equal(envs_add("nl", py, NULL, 0, NULL, NULL), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "control character"));
    snprintf(reg, sizeof(reg), "%s/external/nl", cache);
    assert_false(util_is_file(reg));
    const char *tab[] = {"env", "A=\tb", NULL};
    assert_int_equal(envs_add("tab", BENCHGEN_PYTHON, tab, 2, NULL, NULL), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "prefix argument 2"));

    snprintf(py, sizeof(py), "%s/python-fifo", tmp);
    assert_int_equal(mkfifo(py, 0755), 0);
    assert_int_equal(envs_add("fifo", py, NULL, 0, NULL, NULL), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "is a FIFO, not an interpreter"));

    snprintf(py, sizeof(py), "%s/python-sleeps", tmp);
    write_text(py, "#!/bin/sh\nsleep 30\n", 0755);
    setenv("BENCHGEN_PROBE_TIMEOUT", "0.5", 1);
    int64_t t0 = util_now_ns();
    assert_int_equal(envs_add("sleeps", py, NULL, 0, NULL, NULL), BG_EUSAGE);
    assert_true(util_now_ns() - t0 < 5000000000LL);
    assert_non_null(strstr(error_last(), "did not answer within 0.5 s: stopped"));
    snprintf(py, sizeof(py), "%s/python-floods", tmp);
    write_text(py, "#!/bin/sh\nexec cat /dev/zero\n", 0755);
    assert_int_equal(envs_add("floods", py, NULL, 0, NULL, NULL), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "printed more than 64 KiB"));
    setenv("BENCHGEN_PROBE_TIMEOUT", "soon", 1);
    assert_int_equal(envs_add("real2", BENCHGEN_PYTHON, NULL, 0, NULL, NULL), BG_EUSAGE);
    assert_non_null(strstr(error_last(), "BENCHGEN_PROBE_TIMEOUT=soon"));
    unsetenv("BENCHGEN_PROBE_TIMEOUT");
}

/* --with pins are requirements only: nothing pip reads as an option. */
static void test_with_pins(void **state)
{
    (void)state;
    static const char *const good[] = {"numpy==2.2.6", "NumPy==2.2.6", "torch==2.5.1+cpu", "a==1",
                                       "foo_bar.baz==3", "x==1.0rc1", "x==1.0.post2.dev3", "x==1.0-1",
                                       "x==2.0a1", "x==1.0+abc.7", NULL};
    static const char *const bad[] = {"--index-url==127.0.0.1", "--extra-index-url==x", ".==1", "-e==1",
                                      "numpy", "numpy==", "==1", "numpy==x", "numpy==1;rm", "numpy==1.*",
                                      "numpy==1!2", "numpy===1", "numpy==1 ", "a b==1", "numpy-==1",
                                      "numpy==1.0+", "numpy==1.0+abc.", "numpy==1..0", NULL};
    for (size_t i = 0; good[i]; i++)
        if (envs_derive_check_pin(good[i]) != 0)
            fail_msg("%s refused: %s", good[i], error_last());
    for (size_t i = 0; bad[i]; i++)
        if (envs_derive_check_pin(bad[i]) != BG_EUSAGE)
            fail_msg("%s accepted", bad[i]);
}

/* `# python: X.Y` picks the interpreter and enters the hash; a version the
 * machine lacks leaves the venv missing and sync says why. */
static void test_lock_python_line(void **state)
{
    (void)state;
    struct env_info plain, wanted;
    write_lock("plainpy", "six==1.16.0\n");
    write_lock("oddpy", "# python: 3.99\nsix==1.16.0\n");
    assert_int_equal(envs_resolve("plainpy", &plain), 0);
    assert_string_equal(plain.builder, BENCHGEN_PYTHON);
    assert_string_equal(plain.pyver, envs_base_python_version());
    assert_int_equal(envs_resolve("oddpy", &wanted), 0);
    assert_null(wanted.builder);
    assert_string_equal(wanted.pyver, "3.99");
    assert_string_equal(wanted.state, "missing");
    assert_string_not_equal(plain.hash, wanted.hash);
    const char *names[] = {"oddpy"};
    assert_int_equal(envs_sync(names, 1, NULL), BG_EPYTHON);
    assert_non_null(strstr(error_last(), "Python 3.99"));
    assert_non_null(strstr(error_last(), "pyenv install 3.99"));
    env_info_free(&plain);
    env_info_free(&wanted);
}

static void test_add_venv_dir_wins_and_breaks(void **state)
{
    (void)state;
    char venv[PATH_MAX + 32], bin[PATH_MAX + 64], py[PATH_MAX + 64], script[PATH_MAX * 2];
    snprintf(venv, sizeof(venv), "%s/my venv", tmp); /* a space: no shell anywhere */
    snprintf(bin, sizeof(bin), "%s/bin", venv);
    snprintf(py, sizeof(py), "%s/bin/python", venv);
    mkdirs(bin);
    /* the version probe, then the import check (-s -c CODE numpy) */
    snprintf(script, sizeof(script),
             "#!/bin/sh\n[ \"$1\" = -s ] && { echo ok numpy 2.0; exit 0; }\necho %s\necho '%s'\necho _benchgen x\n",
             envs_base_python_version(), venv);
    write_text(py, script, 0755);
    write_lock("shadow", "six==1.16.0\n");

    assert_int_equal(envs_add("shadow", venv, NULL, 0, NULL, NULL), 0); /* the directory form */
    struct env_info e;
    assert_int_equal(envs_resolve("shadow", &e), 0);
    assert_string_equal(e.state, "external"); /* a registration wins over the lock file */
    assert_string_equal(e.python, py);
    assert_string_equal(e.dir, venv);
    env_info_free(&e);

    unlink(py);
    assert_int_equal(envs_resolve("shadow", &e), 0);
    assert_string_equal(e.state, "broken");
    env_info_free(&e);
}

static char *list_to_string(bool packages)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(envs_list(f, packages), 0);
    fclose(f);
    return buf;
}

static void test_list_reads_dist_info(void **state)
{
    (void)state;
    struct env_info e;
    char path[PATH_MAX * 2], mm[16];
    write_lock("listed", "foo-bar==1.2\naaa==0.1\n");
    write_lock("known1", "six==1.16.0\n");
    assert_int_equal(envs_resolve("listed", &e), 0);
    fake_ready(&e);
    const char *v = envs_base_python_version();
    snprintf(mm, sizeof(mm), "%.*s", (int)(strrchr(v, '.') - v), v);
    snprintf(path, sizeof(path), "%s/lib/python%s/site-packages/foo_bar-1.2.dist-info", e.dir, mm);
    mkdirs(path);
    strcat(path, "/METADATA");
    /* only the header counts: a Name: in the description must not */
    write_text(path, "Metadata-Version: 2.1\nName: foo-bar\nVersion: 1.2\n\nName: bogus\n", 0644);
    snprintf(path, sizeof(path), "%s/lib/python%s/site-packages/aaa-0.1.dist-info", e.dir, mm);
    mkdirs(path);
    strcat(path, "/METADATA");
    write_text(path, "Metadata-Version: 2.1\r\nName: aaa\r\nVersion: 0.1\r\n", 0644);
    snprintf(path, sizeof(path), "%s/lib/python%s/site-packages/numpy", e.dir, mm);
    mkdirs(path); /* a package directory is not a distribution */

    char *out = list_to_string(true); /* env list --packages */
    char want[PATH_MAX * 2];
    snprintf(want, sizeof(want), "listed  ready  %s  %s  -\n  aaa==0.1\n  foo-bar==1.2\n", e.hash, e.dir);
    assert_non_null(strstr(out, want));
    assert_null(strstr(out, "bogus"));
    assert_non_null(strstr(out, "known1  missing  "));
    assert_non_null(strstr(out, "benchgen env sync known1"));
    free(out);
    /* env list: the environment's line alone, the hint of a missing one kept */
    out = list_to_string(false);
    snprintf(want, sizeof(want), "listed  ready  %s  %s  -\n", e.hash, e.dir);
    assert_non_null(strstr(out, want));
    assert_null(strstr(out, "aaa==0.1"));
    assert_null(strstr(out, "foo-bar==1.2"));
    assert_non_null(strstr(out, "benchgen env sync known1"));
    free(out);
    env_info_free(&e);
}

static void test_sync_ready_is_a_noop(void **state)
{
    (void)state;
    struct env_info e;
    write_lock("quick", "six==1.16.0\n");
    assert_int_equal(envs_resolve("quick", &e), 0);
    fake_ready(&e);
    const char *names[] = {"quick"};
    assert_int_equal(envs_sync(names, 1, NULL), 0);
    env_info_free(&e);
    assert_int_equal(envs_resolve("quick", &e), 0);
    assert_string_equal(e.state, "ready");
    env_info_free(&e);

    /* an unknown name fails before anything is built */
    const char *bad[] = {"quick", "nope"};
    assert_int_equal(envs_sync(bad, 2, NULL), BG_ENOTFOUND);
    assert_non_null(strstr(error_last(), "nope"));
}

static void test_sync_waits_for_the_lock(void **state)
{
    (void)state;
    char lock[PATH_MAX + 64], envs[PATH_MAX + 32];
    struct env_info e;
    write_lock("quick", "six==1.16.0\n");
    assert_int_equal(envs_resolve("quick", &e), 0);
    fake_ready(&e);
    env_info_free(&e);
    snprintf(envs, sizeof(envs), "%s/envs", cache);
    mkdirs(envs);
    snprintf(lock, sizeof(lock), "%s/.lock", envs);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* another sync holding the lock for 300 ms */
        int fd = open(lock, O_RDWR | O_CREAT, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) < 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        usleep(300000);
        _exit(0);
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    int64_t t0 = util_now_ns();
    const char *names[] = {"quick"};
    assert_int_equal(envs_sync(names, 1, NULL), 0);
    int64_t waited_ms = (util_now_ns() - t0) / 1000000;
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(waited_ms >= 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_version_format),
        cmocka_unit_test(test_lock_hash),
        cmocka_unit_test(test_cache_dir_resolution),
        cmocka_unit_test(test_resolve_states),
        cmocka_unit_test(test_resolve_not_found),
        cmocka_unit_test(test_add_rejects_old_python),
        cmocka_unit_test(test_add_rejects_non_python),
        cmocka_unit_test(test_add_accepts_linked_interpreter),
        cmocka_unit_test(test_add_rejects_without_module),
        cmocka_unit_test(test_add_prefix_and_other_version),
        cmocka_unit_test(test_add_bounded_and_typed),
        cmocka_unit_test(test_with_pins),
        cmocka_unit_test(test_lock_python_line),
        cmocka_unit_test(test_add_venv_dir_wins_and_breaks),
        cmocka_unit_test(test_list_reads_dist_info),
        cmocka_unit_test(test_sync_ready_is_a_noop),
        cmocka_unit_test(test_sync_waits_for_the_lock),
    };
    return cmocka_run_group_tests_name("envs", tests, group_setup, group_teardown);
}
