/*
 * pyembed.c - interpreter start-up and traceback capture (see pyembed.h).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runners/pyembed.h"
#include "base/error.h"

#include <string.h>

int pyembed_register_builtin(const char *name, void *(*init)(void))
{
    if (PyImport_AppendInittab(name, (PyObject * (*)(void)) init) == -1)
        return error_set(BG_EPYTHON, "cannot register built-in module %s", name);
    return 0;
}

int pyembed_start(const char *venv_python, const char *runners_dir)
{
    /* UTF-8 mode: the worker inherits whatever locale the user has (often C,
     * i.e. ASCII), and frameworks that read their own sources with open()'s
     * default encoding (torch.compile in torch 2.2) must not depend on it. */
    PyPreConfig pre;
    PyPreConfig_InitIsolatedConfig(&pre);
    pre.utf8_mode = 1;
    PyStatus ps = Py_PreInitialize(&pre);
    if (PyStatus_Exception(ps))
        return error_set(BG_EPYTHON, "cannot pre-initialise Python: %s", ps.err_msg ? ps.err_msg : "unknown error");

    PyConfig cfg;
    PyConfig_InitIsolatedConfig(&cfg);
    cfg.use_hash_seed = 1;
    cfg.hash_seed = 0;
    cfg.buffered_stdio = 0; /* logs must survive a crash mid-step */
    PyStatus st = PyConfig_SetBytesString(&cfg, &cfg.executable, venv_python);
    if (!PyStatus_Exception(st))
        st = PyConfig_SetBytesString(&cfg, &cfg.program_name, venv_python);
    if (!PyStatus_Exception(st))
        st = Py_InitializeFromConfig(&cfg);
    PyConfig_Clear(&cfg);
    if (PyStatus_Exception(st))
        return error_set(BG_EPYTHON, "cannot start Python for %s: %s%s%s", venv_python,
                         st.func ? st.func : "", st.func ? ": " : "", st.err_msg ? st.err_msg : "unknown error");

    PyObject *sys = PyImport_ImportModule("sys");
    int err = sys ? 0 : error_set(BG_EPYTHON, "cannot import sys");
    if (!err && runners_dir) {
        PyObject *path = PyObject_GetAttrString(sys, "path");
        PyObject *dir = PyUnicode_DecodeFSDefault(runners_dir);
        if (!path || !dir || PyList_Insert(path, 0, dir) < 0)
            err = error_set(BG_EPYTHON, "cannot add %s to sys.path", runners_dir);
        Py_XDECREF(dir);
        Py_XDECREF(path);
    }
    Py_XDECREF(sys);
    return err;
}

char *pyembed_take_error(int *is_memory_error)
{
    *is_memory_error = 0;
    if (!PyErr_Occurred())
        return NULL;
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc && tb)
        PyException_SetTraceback(exc, tb);
    if (type && PyErr_GivenExceptionMatches(type, PyExc_MemoryError))
        *is_memory_error = 1;
    char *out = NULL;
    PyObject *m = PyImport_ImportModule("traceback");
    PyObject *lines = (m && exc) ? PyObject_CallMethod(m, "format_exception", "O", exc) : NULL;
    PyObject *sep = PyUnicode_FromString("");
    PyObject *s = (lines && sep) ? PyUnicode_Join(sep, lines) : NULL;
    const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
    if (u) {
        out = strdup(u);
    } else {
        PyErr_Clear();
        PyObject *r = exc ? PyObject_Str(exc) : NULL;
        const char *ru = r ? PyUnicode_AsUTF8(r) : NULL;
        out = strdup(ru ? ru : "unknown Python error (traceback unavailable)");
        Py_XDECREF(r);
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
