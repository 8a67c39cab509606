/*
 * _nnscope.c - the CPython extension module nnscope._nnscope: a thin layer
 * over the collector API of libnnscope.so (include/nnscope.h).
 *
 * It holds no policy: argument defaults, MindSpore-style validation and the
 * Profiler class live in python/nnscope/__init__.py. What is here:
 *
 *   Handle(options_json=None, use_env=True)   one nns_profiler *
 *       .start() .stop() .step() .analyse() .close()
 *       .set_metadata(key, value) .lost_events() .last_error() .closed
 *   parse_options(json=None, use_env=False) -> dict of the effective options
 *   name(str) -> int              nns_name (intern once, cache in Python)
 *   push(id) pop()                nested ranges (METH_O / METH_NOARGS: the
 *                                 fast path, no argument parsing)
 *   push_str(str) begin(id) -> handle, end(handle) mark(id) counter(id, v)
 *   flow(id, flow_id, phase) queue(id, size, capacity)
 *   mem_alloc(ptr, bytes, device=-1, total_allocated=-1, total_reserved=-1)
 *   mem_free(...)  strerror(code)
 *
 * Errors never crash the interpreter: a failing library call raises a
 * Python exception carrying the library's message (nns_last_error, or the
 * options parser's reason): NNS_EINVAL -> ValueError, NNS_ENOTFOUND ->
 * FileNotFoundError, NNS_EIO -> OSError, NNS_ENOMEM -> MemoryError, others
 * RuntimeError. Calls that may block (stop, analyse, close) release the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include "nnscope.h"

#include <stdint.h>
#include <string.h>

PyMODINIT_FUNC PyInit__nnscope(void);

/* ---- errors ------------------------------------------------------------- */

static PyObject *exc_for(int status)
{
	switch (status) {
	case NNS_EINVAL:
		return PyExc_ValueError;
	case NNS_ENOTFOUND:
		return PyExc_FileNotFoundError;
	case NNS_EIO:
		return PyExc_OSError;
	case NNS_ENOMEM:
		return PyExc_MemoryError;
	default:
		return PyExc_RuntimeError;
	}
}

/* Raises for status with msg (may be NULL or ""); returns NULL. */
static PyObject *raise_status(int status, const char *what, const char *msg)
{
	if (msg && *msg)
		PyErr_Format(exc_for(status), "nnscope: %s: %s (%s)", what, msg,
			     nns_strerror(status));
	else
		PyErr_Format(exc_for(status), "nnscope: %s: %s", what, nns_strerror(status));
	return NULL;
}

/* ---- options -------------------------------------------------------------- */

/* Fills *o from the environment (if use_env) then from json (if not NULL). */
static int build_options(struct nns_options *o, const char *json, int use_env)
{
	char err[512];
	int rc;

	nns_options_init(o);
	if (use_env) {
		err[0] = '\0';
		rc = nns_options_from_env(o, err, sizeof(err));
		if (rc) {
			raise_status(rc, "NNSCOPE_OPTIONS / MS_PROFILER_OPTIONS", err);
			return -1;
		}
	}
	if (json) {
		err[0] = '\0';
		rc = nns_options_from_json(o, json, err, sizeof(err));
		if (rc) {
			raise_status(rc, "options", err);
			return -1;
		}
	}
	return 0;
}

static int dict_set_long(PyObject *d, const char *k, long long v)
{
	PyObject *x = PyLong_FromLongLong(v);
	int rc;

	if (!x)
		return -1;
	rc = PyDict_SetItemString(d, k, x);
	Py_DECREF(x);
	return rc;
}

static const char *framework_name(int f)
{
	switch (f) {
	case NNS_FRAMEWORK_ALL:
		return "all";
	case NNS_FRAMEWORK_TIME:
		return "time";
	case NNS_FRAMEWORK_MEMORY:
		return "memory";
	default:
		return NULL;
	}
}

static PyObject *options_dict(const struct nns_options *o)
{
	PyObject *d = PyDict_New(), *s;
	const char *fw;

	if (!d)
		return NULL;
	s = PyUnicode_DecodeFSDefault(o->output_path);
	if (!s || PyDict_SetItemString(d, "output_path", s))
		goto fail;
	Py_CLEAR(s);
	fw = framework_name(o->profile_framework);
	s = fw ? PyUnicode_FromString(fw) : Py_NewRef(Py_None);
	if (!s || PyDict_SetItemString(d, "profile_framework", s))
		goto fail;
	Py_CLEAR(s);
	if (dict_set_long(d, "start", o->start) || dict_set_long(d, "op_time", o->op_time) ||
	    dict_set_long(d, "profile_memory", o->profile_memory) ||
	    dict_set_long(d, "profile_communication", o->profile_communication) ||
	    dict_set_long(d, "data_process", o->data_process) ||
	    dict_set_long(d, "timeline_limit_mb", o->timeline_limit_mb) ||
	    dict_set_long(d, "sync_enable", o->sync_enable) ||
	    dict_set_long(d, "cpu_sampling_interval_ms", o->cpu_sampling_interval_ms) ||
	    dict_set_long(d, "sched_skip_first", o->sched_skip_first) ||
	    dict_set_long(d, "sched_wait", o->sched_wait) ||
	    dict_set_long(d, "sched_warmup", o->sched_warmup) ||
	    dict_set_long(d, "sched_active", o->sched_active) ||
	    dict_set_long(d, "sched_repeat", o->sched_repeat) ||
	    dict_set_long(d, "start_step", o->start_step) ||
	    dict_set_long(d, "stop_step", o->stop_step) ||
	    dict_set_long(d, "buffer_kb_per_thread", (long long)o->buffer_kb_per_thread) ||
	    dict_set_long(d, "max_buffer_mb", (long long)o->max_buffer_mb))
		goto fail;
	return d;
fail:
	Py_XDECREF(s);
	Py_DECREF(d);
	return NULL;
}

static PyObject *m_parse_options(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"json", "use_env", NULL};
	const char *json = NULL;
	int use_env = 0;
	struct nns_options o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|zp:parse_options", kwlist, &json, &use_env))
		return NULL;
	if (build_options(&o, json, use_env))
		return NULL;
	return options_dict(&o);
}

/* ---- Handle ---------------------------------------------------------------- */

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	nns_profiler *p;
	PyObject *output_path; /* str, the effective output_path */
} HandleObject;

/* nns_destroy flushes and may write files: without the GIL. */
static void destroy_nogil(nns_profiler *p)
{
	PyThreadState *ts = PyEval_SaveThread();

	nns_destroy(p);
	PyEval_RestoreThread(ts);
}

static int handle_init(HandleObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {"options_json", "use_env", NULL};
	const char *json = NULL;
	int use_env = 1, rc;
	struct nns_options o;
	nns_profiler *p = NULL;
	PyThreadState *ts;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|zp:Handle", kwlist, &json, &use_env))
		return -1;
	if (self->p) {
		PyErr_SetString(PyExc_RuntimeError, "nnscope: Handle already initialised");
		return -1;
	}
	if (build_options(&o, json, use_env))
		return -1;
	ts = PyEval_SaveThread();
	rc = nns_create(&p, &o);
	PyEval_RestoreThread(ts);
	if (rc) {
		char what[1100];

		snprintf(what, sizeof(what), "cannot create a profiler writing to '%s'",
			 o.output_path);
		/* nns_last_error(NULL): the calling thread's nns_create message */
		raise_status(rc, what, nns_last_error(NULL));
		return -1;
	}
	self->p = p;
	Py_XSETREF(self->output_path, PyUnicode_DecodeFSDefault(o.output_path));
	if (!self->output_path)
		return -1;
	return 0;
}

static void handle_dealloc(HandleObject *self)
{
	if (self->p) {
		nns_profiler *p = self->p;

		self->p = NULL;
		destroy_nogil(p);
	}
	Py_XDECREF(self->output_path);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int check_open(HandleObject *self)
{
	if (!self->p) {
		PyErr_SetString(PyExc_ValueError, "nnscope: the profiler is closed");
		return -1;
	}
	return 0;
}

static PyObject *handle_result(HandleObject *self, int rc, const char *what)
{
	if (rc)
		return raise_status(rc, what, self->p ? nns_last_error(self->p) : NULL);
	Py_RETURN_NONE;
}

static PyObject *h_start(HandleObject *self, PyObject *unused)
{
	if (check_open(self))
		return NULL;
	return handle_result(self, nns_start(self->p), "start");
}

static PyObject *h_stop(HandleObject *self, PyObject *unused)
{
	PyThreadState *ts;
	int rc;

	if (check_open(self))
		return NULL;
	ts = PyEval_SaveThread();
	rc = nns_stop(self->p);
	PyEval_RestoreThread(ts);
	return handle_result(self, rc, "stop");
}

static PyObject *h_step(HandleObject *self, PyObject *unused)
{
	if (check_open(self))
		return NULL;
	return handle_result(self, nns_step(self->p), "step");
}

static PyObject *h_analyse(HandleObject *self, PyObject *unused)
{
	PyThreadState *ts;
	int rc;

	if (check_open(self))
		return NULL;
	ts = PyEval_SaveThread();
	rc = nns_analyse(self->p);
	PyEval_RestoreThread(ts);
	return handle_result(self, rc, "analyse");
}

static PyObject *h_close(HandleObject *self, PyObject *unused)
{
	nns_profiler *p = self->p;

	if (p) {
		self->p = NULL;
		destroy_nogil(p);
	}
	Py_RETURN_NONE;
}

static PyObject *h_set_metadata(HandleObject *self, PyObject *args)
{
	const char *k, *v;

	if (!PyArg_ParseTuple(args, "ss:set_metadata", &k, &v))
		return NULL;
	if (check_open(self))
		return NULL;
	return handle_result(self, nns_set_metadata(self->p, k, v), "set_metadata");
}

static PyObject *h_lost_events(HandleObject *self, PyObject *unused)
{
	if (check_open(self))
		return NULL;
	return PyLong_FromUnsignedLongLong(nns_lost_events(self->p));
}

static PyObject *h_last_error(HandleObject *self, PyObject *unused)
{
	return PyUnicode_FromString(self->p ? nns_last_error(self->p) : "");
}

static PyObject *h_closed(HandleObject *self, void *unused)
{
	return PyBool_FromLong(self->p == NULL);
}

static PyMethodDef handle_methods[] = {
    {"start", (PyCFunction)h_start, METH_NOARGS, "Starts collecting (nns_start)."},
    {"stop", (PyCFunction)h_stop, METH_NOARGS, "Stops collecting and flushes (nns_stop)."},
    {"step", (PyCFunction)h_step, METH_NOARGS, "Marks a step boundary (nns_step)."},
    {"analyse", (PyCFunction)h_analyse, METH_NOARGS,
     "Flushes and runs `nnscope analyse` on the output (nns_analyse)."},
    {"close", (PyCFunction)h_close, METH_NOARGS,
     "Stops, flushes, closes the trace (nns_destroy); idempotent."},
    {"set_metadata", (PyCFunction)h_set_metadata, METH_VARARGS,
     "set_metadata(key, value): run metadata (nns_set_metadata)."},
    {"lost_events", (PyCFunction)h_lost_events, METH_NOARGS,
     "Events dropped so far because buffers were full."},
    {"last_error", (PyCFunction)h_last_error, METH_NOARGS, "The library's last message."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef handle_members[] = {{"output_path", T_OBJECT,
					offsetof(HandleObject, output_path), READONLY,
					"The run directory the profiler writes."},
				       {NULL, 0, 0, 0, NULL}};

static PyGetSetDef handle_getset[] = {
    {"closed", (getter)h_closed, NULL, "True after close().", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject HandleType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "nnscope._nnscope.Handle",
    .tp_basicsize = sizeof(HandleObject),
    .tp_dealloc = (destructor)handle_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Handle(options_json=None, use_env=True): one nnscope collector (nns_profiler).",
    .tp_methods = handle_methods,
    .tp_members = handle_members,
    .tp_getset = handle_getset,
    .tp_init = (initproc)handle_init,
    .tp_new = PyType_GenericNew,
};

/* ---- events ------------------------------------------------------------------ */

/* A name id from an int argument; -1 with an exception set on error. */
static int get_u32(PyObject *o, uint32_t *out)
{
	unsigned long v = PyLong_AsUnsignedLong(o);

	if (v == (unsigned long)-1 && PyErr_Occurred())
		return -1;
	if (v > UINT32_MAX) {
		PyErr_SetString(PyExc_OverflowError, "nnscope: name id out of range");
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static PyObject *m_name(PyObject *self, PyObject *arg)
{
	const char *s = PyUnicode_AsUTF8(arg);

	if (!s)
		return NULL;
	return PyLong_FromUnsignedLong(nns_name(s));
}

static PyObject *m_push(PyObject *self, PyObject *arg)
{
	uint32_t id;

	if (get_u32(arg, &id))
		return NULL;
	nns_push(id);
	Py_RETURN_NONE;
}

static PyObject *m_pop(PyObject *self, PyObject *unused)
{
	nns_pop();
	Py_RETURN_NONE;
}

static PyObject *m_push_str(PyObject *self, PyObject *arg)
{
	const char *s = PyUnicode_AsUTF8(arg);

	if (!s)
		return NULL;
	nns_push_str(s);
	Py_RETURN_NONE;
}

static PyObject *m_begin(PyObject *self, PyObject *arg)
{
	uint32_t id;

	if (get_u32(arg, &id))
		return NULL;
	return PyLong_FromUnsignedLongLong(nns_begin(id));
}

static PyObject *m_end(PyObject *self, PyObject *arg)
{
	unsigned long long h = PyLong_AsUnsignedLongLong(arg);

	if (h == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	nns_end(h);
	Py_RETURN_NONE;
}

static PyObject *m_mark(PyObject *self, PyObject *arg)
{
	uint32_t id;

	if (get_u32(arg, &id))
		return NULL;
	nns_mark(id);
	Py_RETURN_NONE;
}

static PyObject *m_counter(PyObject *self, PyObject *args)
{
	unsigned int id;
	double v;

	if (!PyArg_ParseTuple(args, "Id:counter", &id, &v))
		return NULL;
	nns_counter(id, v);
	Py_RETURN_NONE;
}

static PyObject *m_flow(PyObject *self, PyObject *args)
{
	unsigned int id;
	unsigned long long fid;
	int phase;

	if (!PyArg_ParseTuple(args, "IKC:flow", &id, &fid, &phase))
		return NULL;
	if (phase != 's' && phase != 'f' && phase != 't') {
		PyErr_SetString(PyExc_ValueError, "nnscope: flow phase must be 's', 't' or 'f'");
		return NULL;
	}
	nns_flow(id, fid, (char)phase);
	Py_RETURN_NONE;
}

static PyObject *m_queue(PyObject *self, PyObject *args)
{
	unsigned int id, size, cap;

	if (!PyArg_ParseTuple(args, "III:queue", &id, &size, &cap))
		return NULL;
	nns_queue(id, size, cap);
	Py_RETURN_NONE;
}

static PyObject *mem_event(PyObject *args, PyObject *kw, int alloc)
{
	static char *kwlist[] = {"ptr", "bytes", "device", "total_allocated", "total_reserved",
				 NULL};
	unsigned long long ptr, bytes;
	int device = -1;
	long long ta = -1, tr = -1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "KK|iLL", kwlist, &ptr, &bytes, &device, &ta,
					 &tr))
		return NULL;
	if (alloc)
		nns_mem_alloc((const void *)(uintptr_t)ptr, bytes, device, ta, tr);
	else
		nns_mem_free((const void *)(uintptr_t)ptr, bytes, device, ta, tr);
	Py_RETURN_NONE;
}

static PyObject *m_mem_alloc(PyObject *self, PyObject *args, PyObject *kw)
{
	return mem_event(args, kw, 1);
}

static PyObject *m_mem_free(PyObject *self, PyObject *args, PyObject *kw)
{
	return mem_event(args, kw, 0);
}

static PyObject *m_strerror(PyObject *self, PyObject *arg)
{
	long v = PyLong_AsLong(arg);

	if (v == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(nns_strerror((int)v));
}

/* The profiler event calls go to: nns_current(), the one most recently
 * started, else the one `nnscope run` created in this process (LD_PRELOAD).
 * current_step() lets code that did not create it (the zero-code PyTorch
 * hook, nnscope/zero.py) mark steps on it. */
static PyObject *m_has_current(PyObject *self, PyObject *unused)
{
	return PyBool_FromLong(nns_current() != NULL);
}

static PyObject *m_current_step(PyObject *self, PyObject *unused)
{
	nns_profiler *p = nns_current();
	int rc;

	if (!p)
		Py_RETURN_FALSE;
	if ((rc = nns_step(p)))
		return raise_status(rc, "step", nns_last_error(p));
	Py_RETURN_TRUE;
}

#define KWFUNC(f) ((PyCFunction)(void (*)(void))(f))

static PyMethodDef module_methods[] = {
    {"parse_options", KWFUNC(m_parse_options), METH_VARARGS | METH_KEYWORDS,
     "parse_options(json=None, use_env=False) -> dict: the options a Handle would use."},
    {"name", m_name, METH_O, "name(str) -> int: interns a name (nns_name)."},
    {"push", m_push, METH_O, "push(id): begins a nested range on this thread."},
    {"pop", m_pop, METH_NOARGS, "pop(): ends the innermost range of this thread."},
    {"push_str", m_push_str, METH_O, "push_str(name): interns and pushes (slower)."},
    {"begin", m_begin, METH_O, "begin(id) -> handle: a range that may end on another thread."},
    {"end", m_end, METH_O, "end(handle): ends a begin() range."},
    {"mark", m_mark, METH_O, "mark(id): an instant event."},
    {"counter", m_counter, METH_VARARGS, "counter(id, value): a counter sample."},
    {"flow", m_flow, METH_VARARGS, "flow(id, flow_id, phase): a flow endpoint ('s' or 'f')."},
    {"queue", m_queue, METH_VARARGS,
     "queue(id, size, capacity): a data-queue sample (data-pipeline analysis)."},
    {"mem_alloc", KWFUNC(m_mem_alloc), METH_VARARGS | METH_KEYWORDS,
     "mem_alloc(ptr, bytes, device=-1, total_allocated=-1, total_reserved=-1)"},
    {"mem_free", KWFUNC(m_mem_free), METH_VARARGS | METH_KEYWORDS,
     "mem_free(ptr, bytes, device=-1, total_allocated=-1, total_reserved=-1)"},
    {"strerror", m_strerror, METH_O, "strerror(code) -> str"},
    {"has_current", m_has_current, METH_NOARGS,
     "has_current() -> bool: a profiler collects in this process (nns_current(): one started "
     "here, or the one `nnscope run` created)."},
    {"current_step", m_current_step, METH_NOARGS,
     "current_step() -> bool: marks a step boundary on nns_current(); False when there is "
     "none."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "nnscope._nnscope",
    .m_doc = "Low-level binding of libnnscope.so; use the nnscope package instead.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__nnscope(void)
{
	PyObject *m;

	if (PyType_Ready(&HandleType) < 0)
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	Py_INCREF(&HandleType);
	if (PyModule_AddObject(m, "Handle", (PyObject *)&HandleType) < 0) {
		Py_DECREF(&HandleType);
		Py_DECREF(m);
		return NULL;
	}
	if (PyModule_AddStringConstant(m, "VERSION", NNS_VERSION_STRING) ||
	    PyModule_AddIntConstant(m, "E_NOMEM", NNS_ENOMEM) ||
	    PyModule_AddIntConstant(m, "E_IO", NNS_EIO) ||
	    PyModule_AddIntConstant(m, "E_FORMAT", NNS_EFORMAT) ||
	    PyModule_AddIntConstant(m, "E_INVAL", NNS_EINVAL) ||
	    PyModule_AddIntConstant(m, "E_TRUNC", NNS_ETRUNC) ||
	    PyModule_AddIntConstant(m, "E_NOTFOUND", NNS_ENOTFOUND)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
