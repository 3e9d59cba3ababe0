/*
 * module.c - the `_benchgen` module object and its entry point (see ext.h).
 *
 *   _benchgen.now_ns()         the CLOCK_MONOTONIC the C step timer reads
 *   _benchgen.mark(name)       records a phase marker (ns since the cell started)
 *   _benchgen.fact(name, val)  records a fairness fact for this cell (str(val))
 *   _benchgen.cell             dict: key, model, task, batch, backend, family,
 *                              size, precision, seed, steps, warmup, repeat,
 *                              env, workload, method, device (gpu | cpu: where
 *                              the cell must run), device_rule (the spec's
 *                              gpu | cpu | auto), ablate (None, or the
 *                              test-only knobs in effect, runners/ablate.h)
 *   _benchgen._main(argv)      runs the cell; never returns
 */
#include "runners/ext/ext.h"
#include "runners/ablate.h"
#include "base/error.h"
#include "runners/channel.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ext_report_fd = -1;
int64_t ext_t0;

int64_t ext_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

char *ext_str(PyObject *o)
{
    PyObject *s = PyObject_Str(o);
    PyObject *b = s ? PyUnicode_AsEncodedString(s, "utf-8", "replace") : NULL;
    const char *u = b ? PyBytes_AsString(b) : NULL;
    char *out = u ? strdup(u) : NULL;
    if (u && !out)
        PyErr_NoMemory();
    Py_XDECREF(b);
    Py_XDECREF(s);
    return out;
}

static PyObject *mod_now_ns(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyLong_FromLongLong((long long)ext_now_ns());
}

static PyObject *mod_mark(PyObject *self, PyObject *args)
{
    const char *name;
    (void)self;
    if (!PyArg_ParseTuple(args, "s", &name))
        return NULL;
    if (channel_send_marker(ext_report_fd, name, ext_now_ns() - ext_t0) < 0)
        return PyErr_Format(PyExc_OSError, "_benchgen.mark: report pipe closed");
    Py_RETURN_NONE;
}

static PyObject *mod_fact(PyObject *self, PyObject *args)
{
    const char *name;
    PyObject *val;
    (void)self;
    if (!PyArg_ParseTuple(args, "sO", &name, &val))
        return NULL;
    char *u = ext_str(val);
    if (!u)
        return NULL;
    int rc = channel_send_kv(ext_report_fd, "fact", name, u);
    free(u);
    if (rc < 0)
        return PyErr_Format(PyExc_OSError, "_benchgen.fact: report pipe closed");
    Py_RETURN_NONE;
}

static int set_str(PyObject *d, const char *k, const char *v)
{
    PyObject *o = v && *v ? PyUnicode_FromString(v) : (Py_INCREF(Py_None), Py_None);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}

static int set_int(PyObject *d, const char *k, long long v)
{
    PyObject *o = PyLong_FromLongLong(v);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}

static PyObject *cell_dict(const struct ext_cell *c)
{
    PyObject *d = PyDict_New();
    if (!d || set_str(d, "key", c->key) < 0 || set_str(d, "model", c->model) < 0 ||
        set_str(d, "task", c->task) < 0 || set_int(d, "batch", c->batch) < 0 ||
        set_str(d, "backend", c->backend) < 0 || set_str(d, "family", c->family) < 0 ||
        set_str(d, "size", c->size) < 0 || set_str(d, "precision", c->precision) < 0 ||
        set_int(d, "seed", (long long)c->seed) < 0 || set_int(d, "steps", c->steps) < 0 ||
        set_int(d, "warmup", c->warmup) < 0 || set_int(d, "repeat", c->repeat) < 0 ||
        set_str(d, "env", c->env) < 0 || set_str(d, "workload", c->workload) < 0 ||
        set_str(d, "method", c->method) < 0 || set_str(d, "device", c->device ? c->device : "cpu") < 0 ||
        set_str(d, "device_rule", c->device_rule ? c->device_rule : "auto") < 0 ||
        set_str(d, "ablate", c->ablate) < 0) {
        Py_XDECREF(d);
        return NULL;
    }
    return d;
}

static const char *field(PyObject *argv, Py_ssize_t i)
{
    PyObject *o = PyList_GetItem(argv, i);
    PyObject *b = o ? PyUnicode_AsEncodedString(o, "utf-8", "surrogateescape") : NULL;
    const char *s = b ? PyBytes_AsString(b) : NULL;
    char *copy = s ? strdup(s) : NULL; /* lives until the process exits */
    Py_XDECREF(b);
    return copy;
}

/* Removes the channel's token from os.environ (C's unsetenv() does not
 * reach the copy Python made at start-up). */
static int forget_token(void)
{
    PyObject *os = PyImport_ImportModule("os");
    PyObject *env = os ? PyObject_GetAttrString(os, "environ") : NULL;
    PyObject *key = env ? PyUnicode_FromString(CHANNEL_TOKEN_VAR) : NULL;
    int rc = -1;
    if (key) {
        rc = PyMapping_HasKey(env, key) ? PyObject_DelItem(env, key) : 0;
    }
    Py_XDECREF(key);
    Py_XDECREF(env);
    Py_XDECREF(os);
    return rc;
}

/* _main([report_fd, t0_ns, "key=value", ...]): see runners/worker.c.
 * report_fd is "-" when no descriptor is offered; key channel=PATH offers
 * the report socket (runners/ext/channel_open.c). */
static PyObject *mod_main(PyObject *self, PyObject *argv)
{
    if (!PyList_Check(argv) || PyList_Size(argv) < 2)
        return PyErr_Format(PyExc_TypeError, "_main expects [report_fd, t0_ns, key=value...]");
    const char *fd = field(argv, 0), *t0 = field(argv, 1);
    if (!fd || !t0)
        return NULL;
    ext_t0 = strtoll(t0, NULL, 10);
    struct ext_cell c = {0};
    const char *channel = NULL;
    for (Py_ssize_t i = 2; i < PyList_Size(argv); i++) {
        const char *kv = field(argv, i);
        const char *eq = kv ? strchr(kv, '=') : NULL;
        if (!eq)
            return PyErr_Format(PyExc_ValueError, "_main: argument %zd is not key=value", i);
        const char *v = eq + 1;
        size_t n = (size_t)(eq - kv);
#define IS(name) (n == sizeof(name) - 1 && memcmp(kv, name, n) == 0)
        if (IS("key")) c.key = v;
        else if (IS("model")) c.model = v;
        else if (IS("task")) c.task = v;
        else if (IS("backend")) c.backend = v;
        else if (IS("family")) c.family = v;
        else if (IS("size")) c.size = v;
        else if (IS("precision")) c.precision = v;
        else if (IS("env")) c.env = v;
        else if (IS("workload")) c.workload = v;
        else if (IS("method")) c.method = v;
        else if (IS("device")) c.device = v;
        else if (IS("device_rule")) c.device_rule = v;
        else if (IS("batch")) c.batch = strtoll(v, NULL, 10);
        else if (IS("steps")) c.steps = strtoll(v, NULL, 10);
        else if (IS("warmup")) c.warmup = strtoll(v, NULL, 10);
        else if (IS("repeat")) c.repeat = strtoll(v, NULL, 10);
        else if (IS("seed")) c.seed = strtoull(v, NULL, 10);
        else if (IS("check")) c.check = strcmp(v, "1") == 0;
        else if (IS("channel")) channel = v;
        else if (IS("ablate")) c.ablate = v;
#undef IS
    }
    if (ablate_parse(&c.ablate_mask, c.ablate) < 0)
        return PyErr_Format(PyExc_ValueError, "_main: ablate=%s: %s", c.ablate, error_last());
    char why[640];
    ext_report_fd = ext_channel_open(fd, channel, why, sizeof(why));
    if (ext_report_fd < 0)
        return PyErr_Format(PyExc_OSError, "benchgen worker: %s", why);
    /* Nothing the workload execs inherits the report channel, and the
     * workload does not see the socket's token. */
    fcntl(ext_report_fd, F_SETFD, FD_CLOEXEC);
    if (channel && forget_token() < 0)
        return NULL;
    if (!c.key || !c.model || !c.task || !c.size)
        return PyErr_Format(PyExc_ValueError, "_main: the cell description lacks key, model, task or size");
    PyObject *d = cell_dict(&c);
    if (!d || PyObject_SetAttrString(self, "cell", d) < 0) {
        Py_XDECREF(d);
        return NULL;
    }
    Py_DECREF(d);
    ext_run_cell(&c);
}

static PyMethodDef methods[] = {
    {"now_ns", mod_now_ns, METH_NOARGS, "CLOCK_MONOTONIC in ns (the clock steps are timed with)."},
    {"mark", mod_mark, METH_VARARGS, "mark(name): record a phase marker."},
    {"fact", mod_fact, METH_VARARGS, "fact(name, value): record a fairness fact."},
    {"_main", mod_main, METH_O, "_main(argv): run the cell benchgen described; never returns."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_benchgen", "benchgen's worker-side module.", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__benchgen(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    PyObject *none = Py_None;
    Py_INCREF(none);
    if (PyModule_AddObject(m, "cell", none) < 0) {
        Py_DECREF(none);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
