/*
 * steps.c - the body of a cell worker, inside the `_benchgen` module (see ext.h).
 *
 * Order of events, each reported as a marker: python (interpreter up and
 * this module running), import (workload imported), inputs (synthetic data
 * made and hashed), setup (model built), warmup, timed (then, for a cell
 * whose workload times the original's window, window.begin and window.end),
 * done. Between setup
 * and the first warm-up step the device guard runs (check_placement). Every step's
 * duration is measured here, in C, around one call of the step function the
 * workload returned.
 */
#include "runners/ext/ext.h"
#include "base/error.h"
#include "runners/ablate.h"
#include "runners/channel.h"
#include "runners/digest.h"
#include "runners/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Input buffers start on a cache line (and on AVX-512's vector width).
 * malloc() promised 16 bytes: glibc mmap()s a large buffer and hands it out
 * 16 bytes past the page, so a 64-byte vector load from its start straddled
 * two cache lines (or a library paid a prologue to align it). */
#define INPUT_ALIGN 64

static void marker(const char *name) { channel_send_marker(ext_report_fd, name, ext_now_ns() - ext_t0); }

static _Noreturn void finish(const char *type, const char *kind, const char *text, int code)
{
    /* The log tells the whole story on its own, the report only the gist. */
    if (text)
        fprintf(stderr, "benchgen: cell ends %s: %s\n", kind ? kind : type, text);
    channel_send_final(ext_report_fd, type, kind, text);
    fflush(NULL);
    _exit(code);
}

/* The exception's own lines (type and message, as the traceback's last
 * lines say them) joined into one line: each line break and the indentation
 * after it become one space; at most EXC_LINE_MAX bytes, cut on a UTF-8
 * character boundary with "..." added. malloc'd; NULL when unavailable. */
#define EXC_LINE_MAX 400
static char *one_line(PyObject *m, PyObject *type, PyObject *exc)
{
    PyObject *lines = PyObject_CallMethod(m, "format_exception_only", "OO", type, exc);
    PyObject *sep = PyUnicode_FromString("");
    PyObject *s = lines && sep ? PyUnicode_Join(sep, lines) : NULL;
    char *raw = s ? ext_str(s) : NULL;
    Py_XDECREF(s);
    Py_XDECREF(sep);
    Py_XDECREF(lines);
    if (!raw) {
        PyErr_Clear();
        return NULL;
    }
    size_t n = 0;
    for (const char *p = raw; *p; p++) {
        if (*p == '\n' || *p == '\r') {
            while (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\r')
                p++;
            if (p[1] && n)
                raw[n++] = ' ';
        } else {
            raw[n++] = *p;
        }
    }
    raw[n] = 0;
    if (n > EXC_LINE_MAX) {
        n = EXC_LINE_MAX - 3;
        while (n && ((unsigned char)raw[n] & 0xC0) == 0x80)
            n--;
        memcpy(raw + n, "...", 4);
    }
    return raw;
}

/* The pending Python exception as a formatted traceback (malloc'd; NULL
 * when none is pending); *is_memory_error tells MemoryError apart, and
 * *line gets the exception in one line (one_line(); NULL when unavailable). */
static char *take_error(int *is_memory_error, char **line)
{
    *is_memory_error = 0;
    *line = NULL;
    if (!PyErr_Occurred())
        return NULL;
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc && tb)
        PyException_SetTraceback(exc, tb);
    if (type && PyErr_GivenExceptionMatches(type, PyExc_MemoryError))
        *is_memory_error = 1;
    PyObject *m = PyImport_ImportModule("traceback");
    if (m && exc)
        *line = one_line(m, type, exc);
    PyObject *lines = m && exc ? PyObject_CallMethod(m, "format_exception", "OOO", type, exc, tb ? tb : Py_None)
                               : NULL;
    PyObject *sep = PyUnicode_FromString("");
    PyObject *s = lines && sep ? PyUnicode_Join(sep, lines) : NULL;
    char *out = s ? ext_str(s) : NULL;
    if (!out) {
        PyErr_Clear();
        out = exc ? ext_str(exc) : NULL;
        if (!out)
            out = strdup("unknown Python error (traceback unavailable)");
    }
    Py_XDECREF(s);
    Py_XDECREF(sep);
    Py_XDECREF(lines);
    Py_XDECREF(m);
    Py_XDECREF(type);
    Py_XDECREF(exc);
    Py_XDECREF(tb);
    PyErr_Clear();
    return out;
}

/* Reports the pending Python exception (or msg) and exits. The text's
 * first line is "MSG: TYPE: MESSAGE" (the exception in one line), what
 * `run`'s progress line and `show` print; the traceback follows. */
static _Noreturn void fail_python(const char *msg)
{
    int oom = 0;
    char *line = NULL;
    char *tb = take_error(&oom, &line);
    size_t n = strlen(msg) + (line ? strlen(line) + 2 : 0) + (tb ? strlen(tb) : 0) + 2;
    char *text = malloc(n);
    if (text)
        snprintf(text, n, "%s%s%s%s%s", msg, line ? ": " : "", line ? line : "", tb ? "\n" : "", tb ? tb : "");
    finish("error", oom ? "oom" : "error", text ? text : msg, 1);
}

static PyObject *call(PyObject *obj, const char *method, const char *what)
{
    PyObject *r = PyObject_CallMethod(obj, method, NULL);
    if (!r)
        fail_python(what);
    return r;
}

/* item[key] as UTF-8 into buf; 0, or -1 when absent or not a str. */
static int get_text(PyObject *d, const char *key, char *buf, size_t len)
{
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v || !PyUnicode_Check(v))
        return -1;
    char *s = ext_str(v);
    if (!s)
        return -1;
    snprintf(buf, len, "%s", s);
    free(s);
    return 0;
}

/* One input declaration into in; exits the cell when it is malformed. */
static void parse_input(PyObject *d, Py_ssize_t i, struct synth_input *in)
{
    char msg[512], dtype[32], dist[32] = "uniform";
    PyObject *shape = PyDict_Check(d) ? PyDict_GetItemString(d, "shape") : NULL;
    PyObject *low = PyDict_Check(d) ? PyDict_GetItemString(d, "low") : NULL;
    PyObject *high = PyDict_Check(d) ? PyDict_GetItemString(d, "high") : NULL;
    if (!PyDict_Check(d) || get_text(d, "name", in->name, sizeof(in->name)) < 0 ||
        get_text(d, "dtype", dtype, sizeof(dtype)) < 0 ||
        (PyDict_GetItemString(d, "dist") && get_text(d, "dist", dist, sizeof(dist)) < 0) || !shape ||
        !PySequence_Check(shape) || !low) {
        PyErr_Clear();
        snprintf(msg, sizeof(msg), "input #%zd: needs name, dtype, shape, low (and high unless const)", i);
        finish("error", "error", msg, 1);
    }
    int dt = synth_dtype_parse(dtype), di = synth_dist_parse(dist);
    Py_ssize_t nd = PySequence_Size(shape);
    if (dt < 0 || di < 0 || nd < 0 || nd > SYNTH_MAX_DIMS) {
        snprintf(msg, sizeof(msg),
                 "input %s: bad dtype '%s' (int32|int64|float32|uint8), dist '%s' (uniform|normal|const) or rank",
                 in->name, dtype, dist);
        finish("error", "error", msg, 1);
    }
    in->dtype = (enum synth_dtype)dt;
    in->dist = (enum synth_dist)di;
    in->ndim = (int)nd;
    for (Py_ssize_t k = 0; k < nd; k++) {
        PyObject *v = PySequence_GetItem(shape, k);
        in->shape[k] = v ? PyLong_AsLongLong(v) : -1;
        Py_XDECREF(v);
    }
    in->low = PyFloat_AsDouble(low);
    in->high = high ? PyFloat_AsDouble(high) : in->low;
    if (PyErr_Occurred())
        fail_python("bad input declaration");
}

/* Turns the harness's input declarations into buffers, hashes them and
 * returns {name: memoryview}. The hash covers each input's name, dtype and
 * shape as well as its bytes, so equal hashes mean equal tensors. */
/* The declarations checked as make_inputs() checks them, nothing
 * allocated; ends the cell `done` (no step: the worker ran with none). */
static _Noreturn void check_inputs(PyObject *specs)
{
    if (!PyList_Check(specs))
        finish("error", "error", "workload input declarations must be a list of dicts", 1);
    for (Py_ssize_t i = 0; i < PyList_Size(specs); i++) {
        struct synth_input in = {0};
        parse_input(PyList_GetItem(specs, i), i, &in);
        if (!synth_nbytes(&in)) {
            char msg[512];
            snprintf(msg, sizeof(msg), "input %s: invalid shape", in.name);
            finish("error", "error", msg, 1);
        }
    }
    marker("inputs");
    finish("done", NULL, NULL, 0);
}

static PyObject *make_inputs(PyObject *specs, const struct ext_cell *c)
{
    if (!PyList_Check(specs))
        finish("error", "error", "workload input declarations must be a list of dicts", 1);
    PyObject *views = PyDict_New();
    if (!views)
        fail_python("cannot allocate inputs");
    struct digest_sha256 h;
    digest_sha256_init(&h);
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < PyList_Size(specs); i++) {
        struct synth_input in = {0};
        char msg[512];
        parse_input(PyList_GetItem(specs, i), i, &in);
        size_t nb = synth_nbytes(&in);
        void *buf = NULL; /* lives until _exit: numpy aliases it */
        if (nb && posix_memalign(&buf, INPUT_ALIGN, nb) != 0)
            buf = NULL;
        if (!buf) {
            snprintf(msg, sizeof(msg), "input %s: invalid shape or cannot allocate", in.name);
            finish("error", nb ? "oom" : "error", msg, 1);
        }
        uint64_t key = synth_stream_key(c->seed, c->model, c->task, (int)c->batch, c->size, in.name);
        if (synth_fill(&in, key, buf) < 0)
            finish("error", "error", error_last(), 1);
        char hdr[64 + 16 + SYNTH_MAX_DIMS * 24 + 8];
        int n = snprintf(hdr, sizeof(hdr), "%s:%s:", in.name, synth_dtype_name(in.dtype));
        for (int k = 0; k < in.ndim; k++)
            n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "%s%lld", k ? "x" : "", (long long)in.shape[k]);
        n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "\n");
        digest_sha256_update(&h, hdr, (size_t)n);
        digest_sha256_update(&h, buf, nb);
        total += (int64_t)nb;
        PyObject *mv = PyMemoryView_FromMemory(buf, (Py_ssize_t)nb, PyBUF_READ);
        if (!mv || PyDict_SetItemString(views, in.name, mv) < 0)
            fail_python("cannot wrap input buffer");
        Py_DECREF(mv);
    }
    char hex[65];
    digest_sha256_final(&h, hex);
    channel_send_inputs(ext_report_fd, hex, total);
    return views;
}

/* Sends every item of a dict, as str, as fact or env. */
static void send_dict(PyObject *d, const char *type)
{
    if (!d || !PyDict_Check(d))
        return;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        char *ks = ext_str(k), *vs = ks ? ext_str(v) : NULL;
        if (ks && vs)
            channel_send_kv(ext_report_fd, type, ks, vs);
        PyErr_Clear();
        free(ks);
        free(vs);
    }
}

/* The interpreter this cell runs in, recorded before anything can fail. */
static void send_python(void)
{
    static const char *const keys[][2] = {{"python.version", "python_version"},
                                          {"python.implementation", "python_implementation"}};
    PyObject *platform = PyImport_ImportModule("platform");
    for (size_t i = 0; platform && i < sizeof(keys) / sizeof(keys[0]); i++) {
        PyObject *v = PyObject_CallMethod(platform, keys[i][1], NULL);
        char *s = v ? ext_str(v) : NULL;
        if (s)
            channel_send_kv(ext_report_fd, "env", keys[i][0], s);
        free(s);
        Py_XDECREF(v);
    }
    Py_XDECREF(platform);
    static const char *const attrs[][2] = {{"python.executable", "executable"}, {"python.prefix", "prefix"}};
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        PyObject *v = PySys_GetObject(attrs[i][1]); /* borrowed */
        char *s = v ? ext_str(v) : NULL;
        if (s)
            channel_send_kv(ext_report_fd, "env", attrs[i][0], s);
        free(s);
    }
    PyErr_Clear();
}

/* The device guard (runners/harness.py, Cell.placement): where the model
 * and the step's inputs live, recorded as placement.* facts; a cell on the
 * wrong kind of processor ends `error` with the harness's sentence before
 * its first step, so it has no samples and no warmup or timed marker. */
static void check_placement(PyObject *cellobj)
{
    PyObject *r = call(cellobj, "placement", "checking where the workload placed the model failed");
    if (!PyTuple_Check(r) || PyTuple_Size(r) != 2)
        finish("error", "error", "harness: placement() must return (facts, problem)", 1);
    PyObject *problem = PyTuple_GetItem(r, 1); /* borrowed */
    send_dict(PyTuple_GetItem(r, 0), "fact");
    if (problem && problem != Py_None) {
        char *text = ext_str(problem);
        finish("error", "error", text ? text : "the model or inputs are not on the required device", 1);
    }
    PyErr_Clear();
    Py_DECREF(r);
}

/* One sample a step, sent as it is measured; with the test-only
 * BENCHGEN_ABLATE=pipe (runners/ablate.h) held in memory and sent after the
 * last step, so no step is followed by a write to the report channel. */
static void run_steps(PyObject *step, long long n, int warmup, int hold)
{
    int64_t *held = hold && n > 0 ? malloc((size_t)n * sizeof(*held)) : NULL;
    for (long long i = 0; i < n; i++) {
        int64_t a = ext_now_ns();
        PyObject *r = PyObject_CallObject(step, NULL);
        int64_t b = ext_now_ns();
        if (!r)
            fail_python(warmup ? "warm-up step failed" : "timed step failed");
        Py_DECREF(r);
        /* A step always takes time; a clock that says otherwise is not measuring it. */
        int64_t ns = b > a ? b - a : 1;
        if (held)
            held[i] = ns;
        else
            channel_send_sample(ext_report_fd, warmup, ns);
    }
    for (long long i = 0; held && i < n; i++)
        channel_send_sample(ext_report_fd, warmup, held[i]);
    free(held);
}

_Noreturn void ext_run_cell(const struct ext_cell *c)
{
    marker("python");
    send_python();

    PyObject *harness = PyImport_ImportModule("harness");
    if (!harness)
        fail_python("cannot import runners/harness.py");
    PyObject *cls = PyObject_GetAttrString(harness, "Cell");
    PyObject *cellobj = cls ? PyObject_CallObject(cls, NULL) : NULL;
    if (!cellobj)
        fail_python("cannot load the workload");
    marker("import");

    PyObject *reason = call(cellobj, "unsupported", "workload's supported() failed");
    if (reason != Py_None) {
        char *u = ext_str(reason);
        finish("unsupported", NULL, u ? u : "unsupported", 0);
    }
    Py_DECREF(reason);

    PyObject *specs = call(cellobj, "input_specs", "workload's inputs() failed");
    if (c->check)
        check_inputs(specs);
    PyObject *views = make_inputs(specs, c);
    marker("inputs");

    PyObject *step = PyObject_CallMethod(cellobj, "setup", "O", views);
    if (!step)
        fail_python("workload's setup() failed");
    if (!PyCallable_Check(step))
        finish("error", "error", "workload's setup() must return a callable that runs one step", 1);
    marker("setup");

    check_placement(cellobj);
    int hold = (c->ablate_mask & ABLATE_PIPE) != 0;
    run_steps(step, c->warmup, 1, hold);
    marker("warmup");
    run_steps(step, c->steps, 0, hold);
    marker("timed");
    /* The published window, where the original timed one (docs/METHOD.md):
     * the workload reads the clock itself, as markers window.begin and
     * window.end, around calls the C timer does not time one by one. */
    PyObject *w = call(cellobj, "window", "the published timing window failed");
    Py_DECREF(w);

    PyObject *facts = call(cellobj, "facts", "workload's facts() failed");
    send_dict(facts, "fact");
    PyObject *env = call(cellobj, "environment", "collecting the environment failed");
    send_dict(env, "env");
    finish("done", NULL, NULL, 0);
}
