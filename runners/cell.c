/*
 * cell.c - what runs inside a cell worker (see cell.h and worker.h).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runners/cell.h"
#include "runners/benchmod.h"
#include "plan/catalog.h"
#include "runners/channel.h"
#include "base/error.h"
#include "runners/pyembed.h"
#include "runners/synth.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int report_fd;
static int64_t t0;

static void marker(const char *name) { channel_send_marker(report_fd, name, util_now_ns() - t0); }

static _Noreturn void finish(const char *type, const char *kind, const char *text, int code)
{
    /* The log tells the whole story on its own, the report only the gist. */
    if (text)
        fprintf(stderr, "benchgen: cell ends %s: %s\n", kind ? kind : type, text);
    channel_send_final(report_fd, type, kind, text);
    fflush(NULL);
    _exit(code);
}

/* Reports the pending Python exception (or msg) and exits. */
static _Noreturn void fail_python(const char *msg)
{
    int oom = 0;
    char *tb = pyembed_take_error(&oom);
    char *text = tb ? util_printf("%s\n%s", msg, tb) : strdup(msg);
    finish("error", oom ? "oom" : "error", text ? text : msg, 1);
}

static PyObject *call(PyObject *obj, const char *method, const char *what)
{
    PyObject *r = PyObject_CallMethod(obj, method, NULL);
    if (!r)
        fail_python(what);
    return r;
}

/* Turns the harness's input declarations into buffers, hashes them and
 * returns {name: memoryview}. The hash covers each input's name, dtype and
 * shape as well as its bytes, so equal hashes mean equal tensors. */
static PyObject *make_inputs(PyObject *specs, const struct cell *c)
{
    if (!PyList_Check(specs))
        finish("error", "error", "workload input declarations must be a list of dicts", 1);
    PyObject *views = PyDict_New();
    struct sha256 h;
    if (!views || sha256_init(&h) < 0)
        finish("error", "error", "cannot allocate inputs", 1);
    int64_t total = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(specs); i++) {
        PyObject *d = PyList_GET_ITEM(specs, i);
        struct synth_input in = {0};
        char msg[512];
        PyObject *name = PyDict_Check(d) ? PyDict_GetItemString(d, "name") : NULL;
        PyObject *dtype = PyDict_Check(d) ? PyDict_GetItemString(d, "dtype") : NULL;
        PyObject *shape = PyDict_Check(d) ? PyDict_GetItemString(d, "shape") : NULL;
        PyObject *dist = PyDict_Check(d) ? PyDict_GetItemString(d, "dist") : NULL;
        PyObject *low = PyDict_Check(d) ? PyDict_GetItemString(d, "low") : NULL;
        PyObject *high = PyDict_Check(d) ? PyDict_GetItemString(d, "high") : NULL;
        const char *sname = name ? PyUnicode_AsUTF8(name) : NULL;
        const char *sdtype = dtype ? PyUnicode_AsUTF8(dtype) : NULL;
        const char *sdist = dist ? PyUnicode_AsUTF8(dist) : "uniform";
        if (!sname || !sdtype || !sdist || !shape || !PySequence_Check(shape) || !low) {
            PyErr_Clear();
            snprintf(msg, sizeof(msg), "input #%zd: needs name, dtype, shape, low (and high unless const)", i);
            finish("error", "error", msg, 1);
        }
        snprintf(in.name, sizeof(in.name), "%s", sname);
        int dt = synth_dtype_parse(sdtype), di = synth_dist_parse(sdist);
        Py_ssize_t nd = PySequence_Size(shape);
        if (dt < 0 || di < 0 || nd < 0 || nd > SYNTH_MAX_DIMS) {
            snprintf(msg, sizeof(msg), "input %s: bad dtype '%s' (int32|int64|float32|uint8), dist '%s' "
                     "(uniform|normal|const) or rank", sname, sdtype, sdist);
            finish("error", "error", msg, 1);
        }
        in.dtype = (enum synth_dtype)dt;
        in.dist = (enum synth_dist)di;
        in.ndim = (int)nd;
        for (Py_ssize_t k = 0; k < nd; k++) {
            PyObject *v = PySequence_GetItem(shape, k);
            in.shape[k] = v ? PyLong_AsLongLong(v) : -1;
            Py_XDECREF(v);
        }
        in.low = PyFloat_AsDouble(low);
        in.high = high ? PyFloat_AsDouble(high) : in.low;
        if (PyErr_Occurred())
            fail_python("bad input declaration");
        size_t nb = synth_nbytes(&in);
        void *buf = nb ? malloc(nb) : NULL; /* lives until _exit: numpy aliases it */
        if (!buf) {
            snprintf(msg, sizeof(msg), "input %s: invalid shape or cannot allocate", sname);
            finish("error", nb ? "oom" : "error", msg, 1);
        }
        uint64_t key = synth_stream_key(c->seed, c->model, c->task, c->batch, c->size, in.name);
        if (synth_fill(&in, key, buf) < 0)
            finish("error", "error", error_last(), 1);
        struct strbuf hdr = {0};
        strbuf_printf(&hdr, "%s:%s:", in.name, synth_dtype_name(in.dtype));
        for (int k = 0; k < in.ndim; k++)
            strbuf_printf(&hdr, "%s%lld", k ? "x" : "", (long long)in.shape[k]);
        strbuf_puts(&hdr, "\n");
        sha256_update(&h, hdr.buf, hdr.len);
        strbuf_free(&hdr);
        sha256_update(&h, buf, nb);
        total += (int64_t)nb;
        PyObject *mv = PyMemoryView_FromMemory(buf, (Py_ssize_t)nb, PyBUF_READ);
        if (!mv || PyDict_SetItemString(views, in.name, mv) < 0)
            fail_python("cannot wrap input buffer");
        Py_DECREF(mv);
    }
    char hex[65];
    sha256_final(&h, hex);
    channel_send_inputs(report_fd, hex, total);
    return views;
}

/* Sends every str->str item of a dict as fact or env. */
static void send_dict(PyObject *d, const char *type)
{
    if (!d || !PyDict_Check(d))
        return;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        PyObject *ks = PyObject_Str(k), *vs = PyObject_Str(v);
        const char *ku = ks ? PyUnicode_AsUTF8(ks) : NULL, *vu = vs ? PyUnicode_AsUTF8(vs) : NULL;
        if (ku && vu)
            channel_send_kv(report_fd, type, ku, vu);
        PyErr_Clear();
        Py_XDECREF(ks);
        Py_XDECREF(vs);
    }
}

static void run_steps(PyObject *step, int n, int warmup)
{
    for (int i = 0; i < n; i++) {
        int64_t a = util_now_ns();
        PyObject *r = PyObject_CallNoArgs(step);
        int64_t b = util_now_ns();
        if (!r)
            fail_python(warmup ? "warm-up step failed" : "timed step failed");
        Py_DECREF(r);
        channel_send_sample(report_fd, warmup, b - a);
    }
}

_Noreturn void cell_main(const struct cell *c, const char *python, const char *home, int fd, int64_t t0_ns)
{
    report_fd = fd;
    t0 = t0_ns;

    const struct catalog_backend *b = catalog_backend_find(c->backend);
    for (const char *const *e = b ? b->env_vars : NULL; e && *e; e++)
        putenv((char *)*e);
    setenv("BENCHGEN_BACKEND", c->backend, 1);
    setenv("BENCHGEN_CELL", c->key, 1);

    benchmod_configure(fd, t0_ns, c);
    char *runners = util_printf("%s/runners", home);
    if (!runners || pyembed_register_builtin("_benchgen", benchmod_init) < 0 ||
        pyembed_start(python, runners) < 0)
        finish("error", "error", error_last(), 1);
    marker("python");

    PyObject *harness = PyImport_ImportModule("harness");
    if (!harness)
        fail_python("cannot import runners/harness.py");
    PyObject *cls = PyObject_GetAttrString(harness, "Cell");
    PyObject *cellobj = cls ? PyObject_CallNoArgs(cls) : NULL;
    if (!cellobj)
        fail_python("cannot load the workload");
    marker("import");

    PyObject *reason = call(cellobj, "unsupported", "workload's supported() failed");
    if (reason != Py_None) {
        PyObject *s = PyObject_Str(reason);
        const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
        finish("unsupported", NULL, u ? u : "unsupported", 0);
    }
    Py_DECREF(reason);

    PyObject *specs = call(cellobj, "input_specs", "workload's inputs() failed");
    PyObject *views = make_inputs(specs, c);
    marker("inputs");

    PyObject *step = PyObject_CallMethod(cellobj, "setup", "O", views);
    if (!step)
        fail_python("workload's setup() failed");
    if (!PyCallable_Check(step))
        finish("error", "error", "workload's setup() must return a callable that runs one step", 1);
    marker("setup");

    run_steps(step, c->warmup, 1);
    marker("warmup");
    run_steps(step, c->steps, 0);
    marker("timed");

    PyObject *facts = call(cellobj, "facts", "workload's facts() failed");
    send_dict(facts, "fact");
    PyObject *env = call(cellobj, "environment", "collecting the environment failed");
    send_dict(env, "env");
    finish("done", NULL, NULL, 0);
}
