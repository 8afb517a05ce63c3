/*===- _fastcall.c - the hot C API calls of the dslc package ------------===*
 *
 * A CPython extension on the stable ABI only (Py_LIMITED_API 3.11,
 * METH_FASTCALL), so the one file built here against Debian's Python 3.11
 * headers loads in any CPython >= 3.11 (the GPU machine's torch venv runs
 * 3.12): `_fastcall.abi3.so`.
 *
 * It does not link libdslc_runtime.so. `bind(kind, address)` takes the
 * address of a C API function from the library ctypes loaded
 * (ctypes.cast(lib.dslcAllReduce, ctypes.c_void_p).value) and returns a
 * builtin function that calls through that pointer, so there is one runtime
 * library in the process. A bound function takes exactly the arguments of
 * its C function, as Python ints (handles and addresses: int or None for
 * NULL), bytes (C strings: bytes or None) and returns the dslcStatus as an
 * int, like the ctypes function it replaces; a bad argument raises
 * TypeError, OverflowError or ValueError naming it, before any C call.
 * The GIL is released around the C call, as ctypes does.
 *
 * The function pointer types are checked against runtime/CApi.h at compile
 * time.
 *
 *===---------------------------------------------------------------------===*/
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "runtime/CApi.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

typedef dslcStatus (*ReduceFn)(dslcCollectives, int, const void *, void *,
                               size_t, const char *, const char *, void *);
typedef dslcStatus (*GatherFn)(dslcCollectives, int, const void *, void *,
                               size_t, const char *, void *);
typedef dslcStatus (*LaunchFn)(dslcKernel, int, dslcArgs, void *);

#define DSLC_SAME_TYPE(fnType, fn)                                             \
  _Static_assert(__builtin_types_compatible_p(fnType, __typeof__(&fn)),        \
                 #fn "'s signature in runtime/CApi.h changed: update "         \
                     "python/dslc/_fastcall.c and python/dslc/_capi.py")
DSLC_SAME_TYPE(ReduceFn, dslcAllReduce);
DSLC_SAME_TYPE(ReduceFn, dslcReduceScatter);
DSLC_SAME_TYPE(GatherFn, dslcAllGather);
DSLC_SAME_TYPE(LaunchFn, dslcKernelLaunch);
_Static_assert(sizeof(void *) <= sizeof(unsigned long long),
               "a pointer must fit an unsigned long long");

/* ---- argument conversion: 0 on success, -1 with an exception set ------ */

static void wrongType(const char *fn, Py_ssize_t i, const char *param,
                      const char *want, PyObject *got) {
  PyObject *name = PyType_GetName(Py_TYPE(got));
  if (!name)
    return;
  PyErr_Format(PyExc_TypeError, "%s: argument %zd (%s) must be %s, not %U", fn,
               i + 1, param, want, name);
  Py_DECREF(name);
}

static void raiseOutOfRange(const char *fn, Py_ssize_t i, const char *param,
                            const char *range) {
  PyErr_Format(PyExc_OverflowError, "%s: argument %zd (%s) is out of %s", fn,
               i + 1, param, range);
}

/* Replaces a pending conversion error (OverflowError, ValueError) with
   one naming the argument. */
static void outOfRange(const char *fn, Py_ssize_t i, const char *param,
                       const char *range) {
  if (PyErr_ExceptionMatches(PyExc_OverflowError) ||
      PyErr_ExceptionMatches(PyExc_ValueError)) {
    PyErr_Clear();
    raiseOutOfRange(fn, i, param, range);
  }
}

static int toPointer(PyObject *const *args, Py_ssize_t i, const char *fn,
                     const char *param, void **out) {
  PyObject *o = args[i];
  if (o == Py_None) {
    *out = NULL;
    return 0;
  }
  if (!PyLong_Check(o)) {
    wrongType(fn, i, param, "an int (an address) or None", o);
    return -1;
  }
  unsigned long long v = PyLong_AsUnsignedLongLong(o);
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    outOfRange(fn, i, param, "range for an address (0 .. 2**64-1)");
    return -1;
  }
  if (sizeof(void *) < sizeof(v) && v > (unsigned long long)UINTPTR_MAX) {
    raiseOutOfRange(fn, i, param, "range for an address");
    return -1;
  }
  *out = (void *)(uintptr_t)v;
  return 0;
}

static int toInt(PyObject *const *args, Py_ssize_t i, const char *fn,
                 const char *param, int *out) {
  PyObject *o = args[i];
  if (!PyLong_Check(o)) {
    wrongType(fn, i, param, "an int", o);
    return -1;
  }
  int overflow = 0;
  long v = PyLong_AsLongAndOverflow(o, &overflow);
  if (v == -1 && PyErr_Occurred())
    return -1;
  if (overflow || v < INT_MIN || v > INT_MAX) {
    raiseOutOfRange(fn, i, param, "range for a C int");
    return -1;
  }
  *out = (int)v;
  return 0;
}

static int toSize(PyObject *const *args, Py_ssize_t i, const char *fn,
                  const char *param, size_t *out) {
  PyObject *o = args[i];
  if (!PyLong_Check(o)) {
    wrongType(fn, i, param, "an int", o);
    return -1;
  }
  size_t v = PyLong_AsSize_t(o);
  if (v == (size_t)-1 && PyErr_Occurred()) {
    outOfRange(fn, i, param, "range for a size_t (0 .. 2**64-1)");
    return -1;
  }
  *out = v;
  return 0;
}

/* bytes (no NUL inside) or None; the pointer lives as long as args[i]. */
static int toCString(PyObject *const *args, Py_ssize_t i, const char *fn,
                     const char *param, const char **out) {
  PyObject *o = args[i];
  if (o == Py_None) {
    *out = NULL;
    return 0;
  }
  if (!PyBytes_Check(o)) {
    wrongType(fn, i, param, "bytes or None", o);
    return -1;
  }
  char *s = NULL;
  Py_ssize_t n = 0;
  if (PyBytes_AsStringAndSize(o, &s, &n) < 0)
    return -1;
  if ((size_t)n != strlen(s)) {
    PyErr_Format(PyExc_ValueError, "%s: argument %zd (%s) contains a NUL byte",
                 fn, i + 1, param);
    return -1;
  }
  *out = s;
  return 0;
}

static int checkCount(const char *fn, Py_ssize_t nargs, Py_ssize_t want) {
  if (nargs == want)
    return 0;
  PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", fn,
               want, nargs);
  return -1;
}

/* ---- the bound functions: self is a capsule holding the C address ----- */

static const char ReduceCapsule[] = "dslc._fastcall.reduce";
static const char GatherCapsule[] = "dslc._fastcall.gather";
static const char LaunchCapsule[] = "dslc._fastcall.launch";

/* name(coll, local, send, recv, count, dtype, op, stream) */
static PyObject *callReduce(PyObject *self, PyObject *const *args,
                            Py_ssize_t nargs, const char *fn) {
  ReduceFn call = (ReduceFn)PyCapsule_GetPointer(self, ReduceCapsule);
  void *coll, *send, *recv, *stream;
  int local;
  size_t count;
  const char *dtype, *op;
  if (!call || checkCount(fn, nargs, 8) < 0 ||
      toPointer(args, 0, fn, "coll", &coll) < 0 ||
      toInt(args, 1, fn, "local", &local) < 0 ||
      toPointer(args, 2, fn, "send", &send) < 0 ||
      toPointer(args, 3, fn, "recv", &recv) < 0 ||
      toSize(args, 4, fn, "count", &count) < 0 ||
      toCString(args, 5, fn, "dtype", &dtype) < 0 ||
      toCString(args, 6, fn, "op", &op) < 0 ||
      toPointer(args, 7, fn, "stream", &stream) < 0)
    return NULL;
  dslcStatus rc;
  Py_BEGIN_ALLOW_THREADS rc =
      call((dslcCollectives)coll, local, send, recv, count, dtype, op, stream);
  Py_END_ALLOW_THREADS return PyLong_FromLong((long)rc);
}

static PyObject *allReduce(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs) {
  return callReduce(self, args, nargs, "dslcAllReduce");
}

static PyObject *reduceScatter(PyObject *self, PyObject *const *args,
                               Py_ssize_t nargs) {
  return callReduce(self, args, nargs, "dslcReduceScatter");
}

/* dslcAllGather(coll, local, send, recv, count, dtype, stream) */
static PyObject *allGather(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs) {
  static const char fn[] = "dslcAllGather";
  GatherFn call = (GatherFn)PyCapsule_GetPointer(self, GatherCapsule);
  void *coll, *send, *recv, *stream;
  int local;
  size_t count;
  const char *dtype;
  if (!call || checkCount(fn, nargs, 7) < 0 ||
      toPointer(args, 0, fn, "coll", &coll) < 0 ||
      toInt(args, 1, fn, "local", &local) < 0 ||
      toPointer(args, 2, fn, "send", &send) < 0 ||
      toPointer(args, 3, fn, "recv", &recv) < 0 ||
      toSize(args, 4, fn, "count", &count) < 0 ||
      toCString(args, 5, fn, "dtype", &dtype) < 0 ||
      toPointer(args, 6, fn, "stream", &stream) < 0)
    return NULL;
  dslcStatus rc;
  Py_BEGIN_ALLOW_THREADS rc =
      call((dslcCollectives)coll, local, send, recv, count, dtype, stream);
  Py_END_ALLOW_THREADS return PyLong_FromLong((long)rc);
}

/* dslcKernelLaunch(kernel, local, args, stream) */
static PyObject *kernelLaunch(PyObject *self, PyObject *const *args,
                              Py_ssize_t nargs) {
  static const char fn[] = "dslcKernelLaunch";
  LaunchFn call = (LaunchFn)PyCapsule_GetPointer(self, LaunchCapsule);
  void *kernel, *kargs, *stream;
  int local;
  if (!call || checkCount(fn, nargs, 4) < 0 ||
      toPointer(args, 0, fn, "kernel", &kernel) < 0 ||
      toInt(args, 1, fn, "local", &local) < 0 ||
      toPointer(args, 2, fn, "args", &kargs) < 0 ||
      toPointer(args, 3, fn, "stream", &stream) < 0)
    return NULL;
  dslcStatus rc;
  Py_BEGIN_ALLOW_THREADS rc =
      call((dslcKernel)kernel, local, (dslcArgs)kargs, stream);
  Py_END_ALLOW_THREADS return PyLong_FromLong((long)rc);
}

#define FASTCALL(f) ((PyCFunction)(void (*)(void))(f))

/* One per kind; PyCFunction_NewEx keeps a pointer to the entry. */
static PyMethodDef Bound[] = {
    {"dslcAllReduce", FASTCALL(allReduce), METH_FASTCALL,
     "dslcAllReduce(coll, local, send, recv, count, dtype, op, stream) -> "
     "status"},
    {"dslcReduceScatter", FASTCALL(reduceScatter), METH_FASTCALL,
     "dslcReduceScatter(coll, local, send, recv, recv_count, dtype, op, "
     "stream) -> status"},
    {"dslcAllGather", FASTCALL(allGather), METH_FASTCALL,
     "dslcAllGather(coll, local, send, recv, send_count, dtype, stream) -> "
     "status"},
    {"dslcKernelLaunch", FASTCALL(kernelLaunch), METH_FASTCALL,
     "dslcKernelLaunch(kernel, local, args, stream) -> status"},
};
static const char *const BoundCapsule[] = {ReduceCapsule, ReduceCapsule,
                                           GatherCapsule, LaunchCapsule};
#define NUM_BOUND ((Py_ssize_t)(sizeof(Bound) / sizeof(Bound[0])))

/* bind(name, address): name is the C API function's ("dslcAllReduce"). */
static PyObject *bind(PyObject *module, PyObject *const *args,
                      Py_ssize_t nargs) {
  static const char fn[] = "bind";
  if (checkCount(fn, nargs, 2) < 0)
    return NULL;
  if (!PyUnicode_Check(args[0])) {
    wrongType(fn, 0, "name", "a str", args[0]);
    return NULL;
  }
  const char *name = PyUnicode_AsUTF8AndSize(args[0], NULL);
  if (!name)
    return NULL;
  void *address;
  if (toPointer(args, 1, fn, "address", &address) < 0)
    return NULL;
  if (!address) {
    PyErr_Format(PyExc_ValueError, "bind: a NULL address for %s", name);
    return NULL;
  }
  for (Py_ssize_t k = 0; k < NUM_BOUND; ++k) {
    if (strcmp(name, Bound[k].ml_name) != 0)
      continue;
    PyObject *capsule = PyCapsule_New(address, BoundCapsule[k], NULL);
    if (!capsule)
      return NULL;
    PyObject *f = PyCFunction_NewEx(&Bound[k], capsule, NULL);
    Py_DECREF(capsule);
    return f;
  }
  PyErr_Format(PyExc_ValueError,
               "bind: '%s' is not one of dslcAllReduce, dslcReduceScatter, "
               "dslcAllGather, dslcKernelLaunch",
               name);
  return NULL;
}

static PyMethodDef Methods[] = {
    {"bind", FASTCALL(bind), METH_FASTCALL,
     "bind(name, address) -> function: calls the C API function `name` "
     "(dslcAllReduce, dslcReduceScatter, dslcAllGather, dslcKernelLaunch) at "
     "`address` with the arguments converted as ctypes would, returns its "
     "dslcStatus"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef Module = {
    PyModuleDef_HEAD_INIT,
    "_fastcall",
    "The dslc package's hot C API calls without ctypes (stable ABI).",
    -1,
    Methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__fastcall(void) {
  PyObject *m = PyModule_Create(&Module);
  if (!m)
    return NULL;
  PyObject *names = PyTuple_New(NUM_BOUND);
  if (!names) {
    Py_DECREF(m);
    return NULL;
  }
  for (Py_ssize_t k = 0; k < NUM_BOUND; ++k) {
    PyObject *s = PyUnicode_FromString(Bound[k].ml_name);
    if (!s) {
      Py_DECREF(names);
      Py_DECREF(m);
      return NULL;
    }
    PyTuple_SetItem(names, k, s); /* steals s */
  }
  int rc = PyModule_AddObjectRef(m, "FUNCTIONS", names);
  Py_DECREF(names);
  if (rc < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
