/*
 * test_spec.c - matrix spec loading: every rejection with its exact
 * file:line:col, defaults, overrides, workload paths and byte sizes.
 *
 * Bad fixtures live in tests/specs/bad-*.yaml so the CLI's integration
 * tests can reuse them; a few cases that need odd bytes are inline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/catalog.h"
#include "base/error.h"
#include "plan/spec.h"
#include "base/util.h"

#ifndef BENCHGEN_SOURCE_DIR
#define BENCHGEN_SOURCE_DIR "."
#endif
#define SPECS BENCHGEN_SOURCE_DIR "/tests/specs/"

static const char *const top_allowed = "allowed: name, description, size, precision, steps, warmup, seed, "
                                       "timeout, memory_limit, repeats, backends, envs, rows";

/* Asserts a BG_ESPEC failure whose message is "<path>:<line>:<col>: ..."
 * and contains fragment. */
static void expect_spec_error(int rc, const struct spec *s, const char *path, int line, int col,
                              const char *fragment)
{
    char prefix[PATH_MAX + 64];
    const char *msg = error_last();
    snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", path, line, col);
    if (rc != BG_ESPEC || strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, fragment))
        fail_msg("expected BG_ESPEC '%s...%s', got %d '%s'", prefix, fragment, rc, msg);
    assert_int_equal(error_code(), BG_ESPEC);
    assert_null(s);
}

/* ---- bad fixtures -------------------------------------------------------- */

struct bad_case {
    const char *file;
    int line, col;
    const char *fragment; /* NULL: checked separately below */
};

static const struct bad_case bad_cases[] = {
    {"bad-syntax.yaml", 3, 5, "YAML syntax error: did not find expected ',' or ']' (while parsing a flow "
                              "sequence at line 2, column 11)"},
    {"bad-not-map.yaml", 2, 1, "the spec must be a map with at least name, backends and rows, got a list"},
    {"bad-unknown-key.yaml", 2, 1, "unknown key 'stepz' in the spec (allowed: name, description"},
    {"bad-unknown-row-key.yaml", 7, 5, "unknown key 'batchsize' in a row (allowed: model, task, batch, "
                                       "steps, warmup, precision, timeout, backends, workload, resources, "
                                       "method, device)"},
    {"bad-device.yaml", 5, 47, "device: expected one of gpu, cpu, auto, got 'tpu'"},
    {"bad-steps-type.yaml", 2, 8, "steps: expected an integer, got 'ten'"},
    {"bad-steps-bool.yaml", 4, 47, "steps: expected an integer, got 'true'"},
    {"bad-steps-quoted.yaml", 2, 8, "steps: expected an integer, got the quoted string \"10\""},
    {"bad-batch-float.yaml", 4, 37, "batch: expected an integer, got '1.5'"},
    {"bad-batch-overflow.yaml", 4, 37, "batch: 99999999999 is out of range"},
    {"bad-missing-name.yaml", 1, 1, "spec: missing required key 'name'"},
    {"bad-missing-batch.yaml", 5, 5, "row: missing required key 'batch'"},
    {"bad-batch-zero.yaml", 4, 37, "batch: must be >= 1, got 0"},
    {"bad-steps-zero.yaml", 2, 8, "steps: must be >= 1, got 0"},
    {"bad-timeout-zero.yaml", 2, 10, "timeout: must be > 0, got 0"},
    {"bad-timeout-negative.yaml", 4, 49, "timeout: must be > 0, got -5.5"},
    {"bad-warmup-negative.yaml", 2, 9, "warmup: must be >= 0, got -1"},
    {"bad-seed-negative.yaml", 2, 7, "seed: must be >= 0, got -3"},
    {"bad-seed-overflow.yaml", 2, 7, "seed: 18446744073709551616 is out of range"},
    {"bad-unknown-model.yaml", 5, 13, "model: unknown model 'resnet' (models: "},
    {"bad-unknown-task.yaml", 4, 25, "task: unknown task 'train' (tasks: fit, predict, generate)"},
    {"bad-task-unsupported.yaml", 5, 11, "model gemma has no task predict (tasks: fit, generate)"},
    {"bad-unknown-backend.yaml", 4, 5, "backends: unknown backend 'tensorflow' (backends: "},
    {"bad-row-backend.yaml", 4, 64, "backends: backend 'keras3-jax' is not in the spec's backends "
                                    "(numpy, torch-eager)"},
    {"bad-duplicate-backend.yaml", 2, 32, "backends: duplicate backend 'numpy' (first at line 2, column 12)"},
    {"bad-duplicate-row.yaml", 6, 5, "duplicate row: same model, task and batch as line 4"},
    {"bad-workload-missing.yaml", 4, 54, "workload: no such file: "},
    {"bad-workload-not-py.yaml", 4, 54, "workload: expected a Python file (*.py), got 'good-minimal.yaml'"},
    {"bad-custom-model-name.yaml", 4, 13, "model: 'my model' is not a valid name for a custom workload"},
    {"bad-duplicate-key.yaml", 6, 1, "duplicate key 'steps' (first at line 3, column 1)"},
    {"bad-alias.yaml", 4, 50, "aliases (*b) are not supported"},
    {"bad-warmup-map.yaml", 2, 41, "warmup: unknown key 'pytorch' (allowed: default, torch-eager"},
    {"bad-envs.yaml", 4, 10, "envs.numpy: '../escape' is not a valid name"},
    {"bad-memory-limit.yaml", 2, 15, "memory_limit: expected bytes like 8GiB, 512MiB, 2GB or 1000000, "
                                     "got '8 gigs'"},
    {"bad-empty.yaml", 1, 1, "empty spec"},
    {"bad-two-documents.yaml", 5, 1, "a spec is one YAML document, found a second one"},
    {"bad-name.yaml", 1, 7, "name: 'my run' is not a valid run name"},
    {"bad-backends-empty.yaml", 2, 11, "backends: must list at least one backend"},
    {"bad-rows-empty.yaml", 3, 7, "rows: must list at least one row"},
    {"bad-precision.yaml", 2, 12, "precision: expected one of float32, bfloat16, mixed_bfloat16, float16, "
                                  "got 'fp16'"},
    {"bad-row-not-map.yaml", 4, 5, "rows: each row must be a map"},
};

static void test_bad_fixtures(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *bc = &bad_cases[i];
        char path[PATH_MAX];
        struct spec *s = (struct spec *)0x1; /* must come back NULL */
        snprintf(path, sizeof(path), "%s%s", SPECS, bc->file);
        error_clear();
        int rc = spec_load(&s, path);
        expect_spec_error(rc, s, path, bc->line, bc->col, bc->fragment);
    }
}

/* Messages that list what would have been accepted list all of it. */
static void test_bad_messages_list_choices(void **state)
{
    (void)state;
    struct spec *s = NULL;
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%sbad-unknown-model.yaml", SPECS);
    assert_int_equal(spec_load(&s, path), BG_ESPEC);
    assert_non_null(strstr(error_last(), catalog_model_names()));

    snprintf(path, sizeof(path), "%sbad-unknown-backend.yaml", SPECS);
    assert_int_equal(spec_load(&s, path), BG_ESPEC);
    assert_non_null(strstr(error_last(), catalog_backend_names()));

    snprintf(path, sizeof(path), "%sbad-unknown-key.yaml", SPECS);
    assert_int_equal(spec_load(&s, path), BG_ESPEC);
    assert_non_null(strstr(error_last(), top_allowed));

    /* The missing workload is resolved against the spec's directory. */
    snprintf(path, sizeof(path), "%sbad-workload-missing.yaml", SPECS);
    assert_int_equal(spec_load(&s, path), BG_ESPEC);
    assert_non_null(strstr(error_last(), "no such file: " SPECS "no_such_workload.py"));
    assert_null(s);
}

/* ---- inline errors ------------------------------------------------------- */

#define BASE_ROWS "backends: [numpy, torch-eager]\nrows:\n  - {model: bert, task: fit, batch: 1}\n"

struct inline_case {
    const char *yaml;
    int line, col;
    const char *fragment;
};

static const struct inline_case inline_cases[] = {
    {"name: t\nresources: {mem: 64Q}\n" BASE_ROWS, 2, 18, "resources.mem: '64Q' is not a Slurm memory size"},
    {"name: t\nresources: {time: \"2h\"}\n" BASE_ROWS, 2, 19, "resources.time: '2h' is not a Slurm time limit"},
    {"name: t\nresources: {nodes: 2}\n" BASE_ROWS, 2, 13, "resources: unknown backend 'nodes'"},
    {"name: t\nresources: {numpy: {gpu: 1}}\n" BASE_ROWS, 2, 21, "resources.numpy: unknown key 'gpu' (allowed: partition, gpus, cpus, mem, time)"},
    {"name: t\nresources: 4\n" BASE_ROWS, 2, 12, "resources: expected a map"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: mlp, task: fit, batch: 1, resources: {cpus: 0}}\n", 4, 57,
     "resources.cpus: must be >= 1, got 0"},
    /* libyaml reports encoding errors by byte offset only. */
    {"name: t\nbackends: [numpy]\ndescription: \"caf\xff\"\n", 3, 18, "YAML syntax error: invalid"},
    {"name: t\n" BASE_ROWS "description: [a, b]\n", 5, 14, "description: expected a string, got a list"},
    {"name: ~\n" BASE_ROWS, 1, 7, "name: expected a string, got nothing"},
    {"name: t\n" BASE_ROWS "? [a]\n: 1\n", 5, 3, "the spec: keys must be plain names, got a list"},
    {"name: t\nrepeats: 0\n" BASE_ROWS, 2, 10, "repeats: must be >= 1, got 0"},
    {"name: t\ntimeout: .inf\n" BASE_ROWS, 2, 10, "timeout: expected a number of seconds, got '.inf'"},
    {"name: t\ntimeout: 1e999\n" BASE_ROWS, 2, 10, "timeout: 1e999 is out of range"},
    {"name: t\ntimeout: '600'\n" BASE_ROWS, 2, 10, "timeout: expected a number of seconds, got the quoted "
                                                  "string \"600\""},
    {"name: t\nseed: 1.0\n" BASE_ROWS, 2, 7, "seed: expected an integer, got '1.0'"},
    {"name: t\nsteps: 0x10\n" BASE_ROWS, 2, 8, "steps: expected an integer, got '0x10'"},
    {"name: t\nmemory_limit: -1\n" BASE_ROWS, 2, 15, "memory_limit: expected bytes"},
    {"name: t\nsize: huge\n" BASE_ROWS, 2, 7, "size: expected one of tiny, published, got 'huge'"},
    {"name: t\nwarmup: [1]\n" BASE_ROWS, 2, 9, "warmup: expected an integer or a map"},
    {"name: t\nwarmup: {default: -2}\n" BASE_ROWS, 2, 19, "warmup.default: must be >= 0, got -2"},
    {"name: t\nwarmup: {numpy: 1, numpy: 2}\n" BASE_ROWS, 2, 20, "duplicate key 'numpy' (first at line 2, "
                                                                  "column 10)"},
    {"name: t\nwarmup: {numpy: one}\n" BASE_ROWS, 2, 17, "warmup.numpy: expected an integer, got 'one'"},
    {"name: t\nmethod: original\n" BASE_ROWS, 2, 9, "method: expected one of published, corrected, got 'original'"},
    {"name: t\nmethod: [published]\n" BASE_ROWS, 2, 9, "method: a list of methods names both, published and "
                                                        "corrected, got 1 item"},
    {"name: t\nmethod: [published, published]\n" BASE_ROWS, 2, 21, "method: duplicate method 'published'"},
    {"name: t\nmethod: [published, fast]\n" BASE_ROWS, 2, 21, "method: expected one of published, corrected, got "
                                                              "'fast'"},
    {"name: t\nmethod: 7.5\n" BASE_ROWS, 2, 9, "method: expected one of published, corrected, got '7.5'"},
    {"name: t\nmethod: {numpy: [corrected]}\n" BASE_ROWS, 2, 17, "method.numpy: a list of methods names both"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: bert, task: fit, batch: 1, method: [a, b, c]}\n", 4, 48,
     "method: a list of methods names both, published and corrected, got 3 items"},
    {"name: t\nmethod: {pytorch: published}\n" BASE_ROWS, 2, 10, "method: unknown key 'pytorch' (allowed: default, "},
    {"name: t\nmethod: {numpy: published, numpy: corrected}\n" BASE_ROWS, 2, 28, "duplicate key 'numpy'"},
    {"name: t\nmethod: {default: fast}\n" BASE_ROWS, 2, 19, "method.default: expected one of published, corrected"},
    {"name: t\nmethod: {numpy: ~}\n" BASE_ROWS, 2, 17, "method.numpy: expected one of published, corrected, got nothing"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: bert, task: fit, batch: 1, method: faithful}\n", 4, 48,
     "method: expected one of published, corrected, got 'faithful'"},
    {"name: t\nenvs: [torch]\n" BASE_ROWS, 2, 7, "envs: expected a map"},
    {"name: t\nenvs: {jax: torch}\n" BASE_ROWS, 2, 8, "envs: unknown backend 'jax'"},
    {"name: t\nenvs: {numpy: a, numpy: b}\n" BASE_ROWS, 2, 18, "duplicate key 'numpy'"},
    {"name: t\nbackends: numpy\nrows:\n  - {model: bert, task: fit, batch: 1}\n", 2, 11,
     "backends: expected a list of backends, got 'numpy'"},
    {"name: t\nbackends: [numpy]\nrows: {model: bert}\n", 3, 7, "rows: expected a list of rows, got a map"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: bert, task: fit, batch: 1, backends: []}\n", 4, 50,
     "backends: must list at least one backend"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: bert, task: fit, batch: 1, backends: [numpy, numpy]}\n",
     4, 58, "backends: duplicate backend 'numpy'"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: bert, task: fit, batch: 1, precision: fp8}\n", 4, 51,
     "precision: expected one of float32"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: bert, task: fit, batch: 1, warmup: -1}\n", 4, 48,
     "warmup: must be >= 0, got -1"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: bert, task: fit, batch: 1, workload: .py}\n", 4, 50,
     "workload: expected a Python file"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {model: bert, task: fit, batch: 1, batch: 2}\n", 4, 40,
     "duplicate key 'batch' (first at line 4, column 30)"},
    {"name: t\nbackends: [numpy]\nrows:\n  - {task: fit, batch: 1}\n", 4, 5,
     "row: missing required key 'model'"},
    {"[1, 2]\n", 1, 1, "the spec must be a map"},
    {"just a string\n", 1, 1, "the spec must be a map"},
    {"name: t\n  bad: indent\n", 2, 6, "YAML syntax error: mapping values are not allowed in this context"},
};

static void test_inline_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(inline_cases) / sizeof(inline_cases[0]); i++) {
        const struct inline_case *ic = &inline_cases[i];
        struct spec *s = (struct spec *)0x1;
        error_clear();
        int rc = spec_parse(&s, "inline.yaml", ic->yaml, strlen(ic->yaml));
        expect_spec_error(rc, s, "inline.yaml", ic->line, ic->col, ic->fragment);
    }
}

static void load_every_bad_fixture(void)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        char path[PATH_MAX];
        struct spec *s = NULL;
        snprintf(path, sizeof(path), "%s%s", SPECS, bad_cases[i].file);
        assert_int_equal(spec_load(&s, path), BG_ESPEC);
        assert_null(s);
    }
}

/* A failed load gives back everything it took. The ASan build checks the
 * whole process at exit; the plain build counts live blocks itself, with the
 * replacement allocator glibc allows (its own strdup, realpath and libyaml,
 * libcrypto go through it too). ASan brings its own allocator, so there the
 * count is left to LeakSanitizer. */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_BLOCKS 0
#else
#define COUNT_BLOCKS 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static long live_blocks;

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    live_blocks += p != NULL;
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    live_blocks += p != NULL;
    return p;
}

void *realloc(void *old, size_t n)
{
    void *p = __libc_realloc(old, n);
    if (!old)
        live_blocks += p != NULL;
    else if (n == 0)
        live_blocks--;
    return p;
}

void free(void *p)
{
    live_blocks -= p != NULL;
    __libc_free(p);
}
#endif

static void test_failed_load_frees_everything(void **state)
{
    (void)state;
    load_every_bad_fixture(); /* first use: libcrypto keeps some state for good */
#if COUNT_BLOCKS
    long before = live_blocks;
    for (int round = 0; round < 3; round++)
        load_every_bad_fixture();
    if (live_blocks != before)
        fail_msg("%ld heap blocks more after failed loads", live_blocks - before);
#endif
}

static void test_load_missing_file(void **state)
{
    (void)state;
    struct spec *s = (struct spec *)0x1;
    assert_int_equal(spec_load(&s, SPECS "does-not-exist.yaml"), BG_ENOTFOUND);
    assert_null(s);
    assert_non_null(strstr(error_last(), "does-not-exist.yaml"));
}

/* What is not a regular file is refused by what it is, without reading it
 * (a FIFO with no writer would block; /dev/zero never ends). */
static void test_load_not_regular(void **state)
{
    (void)state;
    char dir[] = "/tmp/benchgen-test-spec-XXXXXX", path[PATH_MAX];
    struct spec *s = (struct spec *)0x1;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/fifo.yaml", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(spec_load(&s, path), BG_EUSAGE);
    assert_null(s);
    assert_non_null(strstr(error_last(), "fifo.yaml: a FIFO, not a regular file (a spec must be one)"));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(spec_load(&s, dir), BG_EUSAGE);
    assert_non_null(strstr(error_last(), ": a directory, not a regular file"));
    assert_int_equal(spec_load(&s, "/dev/zero"), BG_EUSAGE);
    assert_string_equal(error_last(), "/dev/zero: a character device, not a regular file (a spec must be one)");
    assert_int_equal(rmdir(dir), 0);
}

/* The bounds (spec.h): size, nesting depth, number of nodes; each refused
 * at once, the depth and node count at the node that crosses them. */
static void test_limits(void **state)
{
    (void)state;
    static const char head[] = "name: t\nbackends: [numpy]\nrows: ";
    size_t n = 100000, hl = strlen(head);
    char *yaml = malloc(hl + 2 * n + 2);
    struct spec *s = (struct spec *)0x1;
    assert_non_null(yaml);
    memcpy(yaml, head, hl);
    memset(yaml + hl, '[', n);
    memset(yaml + hl + n, ']', n);
    int64_t t0 = util_now_ns();
    int rc = spec_parse(&s, "deep.yaml", yaml, hl + 2 * n);
    expect_spec_error(rc, s, "deep.yaml", 3, 7 + SPEC_MAX_DEPTH - 1, "nesting deeper than 64");
    assert_true(util_now_ns() - t0 < 2000000000LL);

    /* 64 levels are allowed (and then refused as rows of the wrong kind). */
    size_t k = SPEC_MAX_DEPTH - 1;
    memset(yaml + hl, '[', k);
    memset(yaml + hl + k, ']', k);
    s = (struct spec *)0x1;
    rc = spec_parse(&s, "deep.yaml", yaml, hl + 2 * k);
    expect_spec_error(rc, s, "deep.yaml", 3, 8, "rows: each row must be a map");
    assert_null(strstr(error_last(), "nesting"));

    /* A flat list of 100,001 scalars. */
    size_t len = hl;
    yaml[len++] = '[';
    for (size_t i = 0; i < SPEC_MAX_NODES; i++)
        yaml[len++] = '1', yaml[len++] = ',';
    yaml[len - 1] = ']';
    s = (struct spec *)0x1;
    rc = spec_parse(&s, "wide.yaml", yaml, len);
    expect_spec_error(rc, s, "wide.yaml", 3, 199992, "more than 100000 YAML nodes");
    free(yaml);

    s = (struct spec *)0x1;
    char *big = calloc(1, SPEC_MAX_BYTES + 1);
    assert_non_null(big);
    assert_int_equal(spec_parse(&s, "big.yaml", big, SPEC_MAX_BYTES + 1), BG_ESPEC);
    assert_null(s);
    assert_string_equal(error_last(), "big.yaml: 16777217 bytes, larger than the 16 MiB a spec may be");
    free(big);
}

/* ---- good specs ---------------------------------------------------------- */

static void test_defaults(void **state)
{
    (void)state;
    struct spec *s = NULL;
    char *text = NULL;
    size_t len = 0;
    char hex[65];
    const char *path = SPECS "good-minimal.yaml";

    assert_int_equal(spec_load(&s, path), 0);
    assert_non_null(s);
    assert_string_equal(s->path, path);
    assert_string_equal(s->name, "minimal");
    assert_null(s->description);
    assert_string_equal(s->size, "tiny");
    assert_string_equal(s->precision, "float32");
    assert_int_equal(s->steps, 100);
    assert_int_equal(s->warmup, 1);
    assert_int_equal(s->repeats, 1);
    assert_true(s->seed == 0);
    assert_true(s->timeout == 600.0);
    assert_true(s->memory_limit == 0);
    assert_int_equal(s->nbackends, 1);
    assert_string_equal(s->backends[0], "numpy");
    assert_int_equal(s->warmup_by_backend.n, 0);
    assert_int_equal(s->env_by_backend.n, 0);

    assert_int_equal(s->nrows, 1);
    const struct spec_row *r = &s->rows[0];
    assert_string_equal(r->model, "mlp");
    assert_string_equal(r->task, "fit");
    assert_int_equal(r->batch, 4);
    assert_int_equal(r->steps, 0);
    assert_int_equal(r->warmup, -1);
    assert_null(r->precision);
    assert_null(r->workload);
    assert_true(r->timeout == 0.0);
    assert_null(r->backends);
    assert_int_equal(r->nbackends, 0);
    assert_int_equal(r->line, 4);
    assert_int_equal(r->col, 5);

    /* text is the file's bytes, sha256 of exactly those bytes */
    assert_int_equal(util_read_file(path, &text, &len), 0);
    assert_int_equal(strlen(s->text), len);
    assert_memory_equal(s->text, text, len);
    assert_int_equal(sha256_hex(text, len, hex), 0);
    assert_string_equal(s->sha256, hex);
    free(text);
    spec_free(s);
}

static void test_full_overrides(void **state)
{
    (void)state;
    struct spec *s = NULL;
    char *workload = realpath(SPECS "my_workload.py", NULL);
    assert_non_null(workload);

    assert_int_equal(spec_load(&s, SPECS "good-full.yaml"), 0);
    assert_string_equal(s->name, "full-1.0_x+y");
    assert_string_equal(s->description, "every key, overridden");
    assert_string_equal(s->size, "published");
    assert_string_equal(s->precision, "mixed_bfloat16");
    assert_int_equal(s->steps, 20);
    assert_int_equal(s->warmup, 3);
    assert_true(s->seed == UINT64_MAX);
    assert_true(s->timeout == 12.5);
    assert_true(s->memory_limit == 1536ull * 1024 * 1024);
    assert_int_equal(s->repeats, 3);

    assert_int_equal(s->nbackends, 4);
    assert_string_equal(s->backends[0], "torch-eager");
    assert_string_equal(s->backends[1], "torch-compiled");
    assert_string_equal(s->backends[2], "keras3-jax");
    assert_string_equal(s->backends[3], "numpy");

    assert_int_equal(s->warmup_by_backend.n, 2);
    assert_string_equal(kvlist_get(&s->warmup_by_backend, "torch-compiled"), "4");
    assert_string_equal(kvlist_get(&s->warmup_by_backend, "keras3-jax"), "0");
    assert_null(kvlist_get(&s->warmup_by_backend, "default"));
    assert_int_equal(s->env_by_backend.n, 2);
    assert_string_equal(kvlist_get(&s->env_by_backend, "torch-eager"), "torch-nightly");
    assert_string_equal(kvlist_get(&s->env_by_backend, "numpy"), "base");

    assert_int_equal(s->nrows, 4);
    const struct spec_row *r = &s->rows[0];
    assert_string_equal(r->model, "bert");
    assert_string_equal(r->task, "predict");
    assert_int_equal(r->batch, 256);
    assert_int_equal(r->steps, 7);
    assert_int_equal(r->warmup, 0);
    assert_string_equal(r->precision, "float16");
    assert_true(r->timeout == 100.0);
    assert_int_equal(r->nbackends, 2);
    assert_string_equal(r->backends[0], "keras3-jax");
    assert_string_equal(r->backends[1], "torch-eager");
    assert_null(r->workload);
    assert_int_equal(r->line, 15);
    assert_int_equal(r->col, 5);

    r = &s->rows[1];
    assert_string_equal(r->model, "gemma");
    assert_string_equal(r->task, "generate");
    assert_int_equal(r->line, 23);
    assert_int_equal(r->col, 5);

    /* Custom workloads: any safe model name (even a built-in one), absolute path. */
    r = &s->rows[2];
    assert_string_equal(r->model, "mine");
    assert_string_equal(r->workload, workload);
    r = &s->rows[3];
    assert_string_equal(r->model, "bert");
    assert_string_equal(r->workload, workload);

    free(workload);
    spec_free(s);
}

/* Flow and block style, comments, quoting and an unused anchor load alike. */
static void test_styles_equivalent(void **state)
{
    (void)state;
    static const char *const a = "name: same\nbackends: [numpy, keras3-jax]\n"
                                 "rows: [{model: sam, task: predict, batch: 3, steps: 9}]\n";
    static const char *const b = "# comment\n\"name\": 'same'\nbackends:\n"
                                 "  - numpy   # cpu\n  - \"keras3-jax\"\n"
                                 "rows:\n  - &first\n    model: sam\n    task: predict\n    batch: 3\n"
                                 "    steps: 9\n";
    struct spec *sa = NULL, *sb = NULL;
    assert_int_equal(spec_parse(&sa, "a.yaml", a, strlen(a)), 0);
    assert_int_equal(spec_parse(&sb, "b.yaml", b, strlen(b)), 0);
    assert_string_equal(sa->name, sb->name);
    assert_int_equal(sa->nbackends, sb->nbackends);
    assert_string_equal(sa->backends[1], sb->backends[1]);
    assert_string_equal(sa->rows[0].model, sb->rows[0].model);
    assert_int_equal(sa->rows[0].batch, sb->rows[0].batch);
    assert_int_equal(sa->rows[0].steps, sb->rows[0].steps);
    assert_int_equal(sa->rows[0].line, 3);
    assert_int_equal(sa->rows[0].col, 8);
    assert_int_equal(sb->rows[0].line, 7); /* a node starts at its anchor */
    assert_int_equal(sb->rows[0].col, 5);
    assert_string_not_equal(sa->sha256, sb->sha256);
    spec_free(sa);
    spec_free(sb);
}

static void test_warmup_forms(void **state)
{
    (void)state;
    static const char *const plain = "name: w\nwarmup: 0\n" BASE_ROWS;
    static const char *const map_only = "name: w\nwarmup: {torch-compiled: 5}\n" BASE_ROWS;
    static const char *const nulls = "name: w\ndescription: ~\nseed: 0\n" BASE_ROWS;
    struct spec *s = NULL;

    assert_int_equal(spec_parse(&s, "w.yaml", plain, strlen(plain)), 0);
    assert_int_equal(s->warmup, 0);
    assert_int_equal(s->warmup_by_backend.n, 0);
    spec_free(s);

    /* A map without default leaves the spec-wide default alone. */
    assert_int_equal(spec_parse(&s, "w.yaml", map_only, strlen(map_only)), 0);
    assert_int_equal(s->warmup, 1);
    assert_string_equal(kvlist_get(&s->warmup_by_backend, "torch-compiled"), "5");
    spec_free(s);

    assert_int_equal(spec_parse(&s, "w.yaml", nulls, strlen(nulls)), 0);
    assert_null(s->description);
    spec_free(s);
}

/* Workload paths resolve against the spec's directory, not the working one. */
static void test_workload_paths(void **state)
{
    (void)state;
    char dir[] = "/tmp/benchgen-test-spec-XXXXXX";
    char path[PATH_MAX], wl[PATH_MAX], yaml[PATH_MAX * 2];
    struct spec *s = NULL;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/sub", dir);
    assert_int_equal(util_mkdir_p(path, 0755), 0);
    snprintf(wl, sizeof(wl), "%s/sub/w.py", dir);
    assert_int_equal(util_write_file_atomic(wl, "pass\n", 5), 0);
    char *wl_real = realpath(wl, NULL);
    assert_non_null(wl_real);

    int n = snprintf(yaml, sizeof(yaml),
                     "name: w\nbackends: [numpy]\nrows:\n"
                     "  - {model: a, task: fit, batch: 1, workload: sub/w.py}\n"
                     "  - {model: b, task: fit, batch: 1, workload: ./sub/../sub/w.py}\n"
                     "  - {model: c, task: fit, batch: 1, workload: %s}\n",
                     wl);
    snprintf(path, sizeof(path), "%s/spec.yaml", dir);
    assert_int_equal(util_write_file_atomic(path, yaml, (size_t)n), 0);

    assert_int_equal(spec_load(&s, path), 0);
    assert_int_equal(s->nrows, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(s->rows[i].workload, wl_real);
    spec_free(s);

    /* The same text parsed as if it lived elsewhere finds no workload. */
    s = (struct spec *)0x1;
    assert_int_equal(spec_parse(&s, "/nonexistent/spec.yaml", yaml, (size_t)n), BG_ESPEC);
    assert_null(s);
    assert_non_null(strstr(error_last(), "/nonexistent/spec.yaml:4:47: workload: no such file: "
                                         "/nonexistent/sub/w.py"));

    /* A directory named like a workload is not a workload. */
    snprintf(wl, sizeof(wl), "%s/dir.py", dir);
    assert_int_equal(util_mkdir_p(wl, 0755), 0);
    static const char *const dir_yaml = "name: w\nbackends: [numpy]\nrows:\n"
                                        "  - {model: a, task: fit, batch: 1, workload: dir.py}\n";
    assert_int_equal(spec_parse(&s, path, dir_yaml, strlen(dir_yaml)), BG_ESPEC);
    assert_non_null(strstr(error_last(), "/dir.py is a directory, not a regular file"));

    free(wl_real);
    snprintf(path, sizeof(path), "%s/spec.yaml", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/sub/w.py", dir);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof(path), "%s/sub", dir);
    assert_int_equal(rmdir(path), 0);
    assert_int_equal(rmdir(wl), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* The specs shipped in data/matrix/ (example.yaml at least) stay valid. */
static void test_shipped_specs_load(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob(BENCHGEN_SOURCE_DIR "/data/matrix/*.yaml", 0, NULL, &g), 0);
    bool saw_example = false;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct spec *s = NULL;
        if (spec_load(&s, g.gl_pathv[i]) != 0)
            fail_msg("%s", error_last());
        saw_example |= strstr(g.gl_pathv[i], "/example.yaml") != NULL;
        assert_true(s->nrows > 0 && s->nbackends > 0);
        spec_free(s);
    }
    globfree(&g);
    assert_true(saw_example);
}

/* ---- byte sizes ---------------------------------------------------------- */

static void test_parse_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        int64_t want;
    } cases[] = {
        {"0", 0},
        {"1000000", 1000000},
        {"123B", 123},
        {"1KiB", 1024},
        {"512MiB", 512ll << 20},
        {"8GiB", 8ll << 30},
        {"2TiB", 2ll << 40},
        {"1KB", 1000},
        {"2GB", 2000000000ll},
        {"3MB", 3000000},
        {"1TB", 1000000000000ll},
        {"8 GiB", 8ll << 30},
        {"1.5GiB", 1536ll << 20},
        {"0.5KiB", 512},
        {"9223372036854775807", INT64_MAX},
        {"9223372036854775808", -1},
        {"8388608TiB", -1},
        {"18446744073709551616", -1},
        {"", -1},
        {"GiB", -1},
        {"-1", -1},
        {"+1", -1},
        {" 1", -1},
        {"1 ", -1},
        {"1.5", -1},
        {"1.GiB", -1},
        {"8gb", -1},
        {"8G", -1},
        {"8GiBs", -1},
        {"8  GiB", -1},
        {"0x10", -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t got = spec_parse_bytes(cases[i].s);
        if (got != cases[i].want)
            fail_msg("spec_parse_bytes(\"%s\") = %lld, want %lld", cases[i].s, (long long)got,
                     (long long)cases[i].want);
    }
    assert_int_equal(spec_parse_bytes(NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_fixtures),
        cmocka_unit_test(test_bad_messages_list_choices),
        cmocka_unit_test(test_inline_errors),
        cmocka_unit_test(test_failed_load_frees_everything),
        cmocka_unit_test(test_load_missing_file),
        cmocka_unit_test(test_load_not_regular),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_full_overrides),
        cmocka_unit_test(test_styles_equivalent),
        cmocka_unit_test(test_warmup_forms),
        cmocka_unit_test(test_workload_paths),
        cmocka_unit_test(test_shipped_specs_load),
        cmocka_unit_test(test_parse_bytes),
    };
    return cmocka_run_group_tests_name("spec", tests, NULL, NULL);
}
