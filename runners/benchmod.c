/*
 * benchmod.c - the `_benchgen` built-in module (see benchmod.h).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runners/benchmod.h"
#include "plan/catalog.h"
#include "runners/channel.h"
#include "base/util.h"

static int report_fd = -1;
static int64_t t0;
static const struct cell *the_cell;

void benchmod_configure(int fd, int64_t t0_ns, const struct cell *cell)
{
    report_fd = fd;
    t0 = t0_ns;
    the_cell = cell;
}

static PyObject *mod_now_ns(PyObject *self, PyObject *noargs)
{
    return PyLong_FromLongLong((long long)util_now_ns());
}

static PyObject *mod_mark(PyObject *self, PyObject *args)
{
    const char *name;
    if (!PyArg_ParseTuple(args, "s", &name))
        return NULL;
    if (channel_send_marker(report_fd, name, util_now_ns() - t0) < 0)
        return PyErr_Format(PyExc_OSError, "_benchgen.mark: report pipe closed");
    Py_RETURN_NONE;
}

static PyObject *mod_fact(PyObject *self, PyObject *args)
{
    const char *name;
    PyObject *val;
    if (!PyArg_ParseTuple(args, "sO", &name, &val))
        return NULL;
    PyObject *s = PyObject_Str(val);
    const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
    int rc = u ? channel_send_kv(report_fd, "fact", name, u) : -1;
    Py_XDECREF(s);
    if (!u)
        return NULL;
    if (rc < 0)
        return PyErr_Format(PyExc_OSError, "_benchgen.fact: report pipe closed");
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"now_ns", mod_now_ns, METH_NOARGS, "CLOCK_MONOTONIC in ns (the clock steps are timed with)."},
    {"mark", mod_mark, METH_VARARGS, "mark(name): record a phase marker."},
    {"fact", mod_fact, METH_VARARGS, "fact(name, value): record a fairness fact."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "_benchgen", "benchgen's worker-side module.", -1,
                                    methods, NULL, NULL, NULL, NULL};

static int add_str(PyObject *d, const char *k, const char *v)
{
    PyObject *o = v ? PyUnicode_FromString(v) : Py_NewRef(Py_None);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}

static int add_int(PyObject *d, const char *k, long long v)
{
    PyObject *o = PyLong_FromLongLong(v);
    int rc = o ? PyDict_SetItemString(d, k, o) : -1;
    Py_XDECREF(o);
    return rc;
}

void *benchmod_init(void)
{
    PyObject *m = PyModule_Create(&moddef);
    if (!m || !the_cell)
        return m;
    const struct cell *c = the_cell;
    const struct catalog_backend *b = catalog_backend_find(c->backend);
    PyObject *d = PyDict_New();
    if (!d || add_str(d, "key", c->key) < 0 || add_str(d, "model", c->model) < 0 ||
        add_str(d, "task", c->task) < 0 || add_int(d, "batch", c->batch) < 0 ||
        add_str(d, "backend", c->backend) < 0 || add_str(d, "family", b ? b->family : NULL) < 0 ||
        add_str(d, "size", c->size) < 0 || add_str(d, "precision", c->precision) < 0 ||
        add_int(d, "seed", (long long)c->seed) < 0 || add_int(d, "steps", c->steps) < 0 ||
        add_int(d, "warmup", c->warmup) < 0 || add_int(d, "repeat", c->repeat) < 0 ||
        add_str(d, "env", c->env) < 0 || add_str(d, "workload", c->workload) < 0 ||
        PyModule_AddObject(m, "cell", d) < 0) {
        Py_XDECREF(d);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
