"""ctypes bindings of the runtime's C API (runtime/CApi.h).

FUNCTIONS is the one table of signatures; tests/test_capi.py parses CApi.h
and checks that every declared function is in it with the same argument and
result types, that the library exports each, and that ErrorRecord matches
runtime/ErrorRecord.h.

NCCL: libdslc_runtime.so needs libnccl.so.2 (DT_NEEDED, RUNPATH
/usr/local/cuda/lib64). The dynamic loader satisfies that from a library
with that soname already loaded in the process, so the runtime uses the
libnccl that PyTorch loaded when torch is imported first; load() does that
(or preloads $DSLC_NCCL_LIBRARY). nccl_library() says which file the
runtime's NCCL calls resolve to.

The hot calls (HOT: the collectives and the kernel launch) go through the
_fastcall extension when it is built (python/dslc/_fastcall.c, stable ABI):
hot(name) binds the address of the function ctypes loaded, so the process
has one runtime library; without the extension hot(name) is the ctypes
function. Both take the same Python values (ints, bytes, None).
"""

import ctypes
import json
import importlib.machinery
import importlib.util
import os
import sys
import threading

from . import _locate
from .errors import RuntimeNotFoundError, error_for_status

c_int, c_int64, c_size_t = ctypes.c_int, ctypes.c_int64, ctypes.c_size_t
c_double, c_char_p, c_void_p = ctypes.c_double, ctypes.c_char_p, ctypes.c_void_p
P = ctypes.POINTER

Status = c_int     # dslcStatus
Handle = c_void_p  # dslcComm, dslcHeap, dslcBuffer, dslcKernel, dslcArgs, ...


class ErrorRecord(ctypes.Structure):
    """DslcErrorRecord (runtime/ErrorRecord.h), 48 bytes."""
    _fields_ = [("status", ctypes.c_uint32), ("line", ctypes.c_uint32),
                ("column", ctypes.c_uint32), ("cta", ctypes.c_uint32),
                ("slot", ctypes.c_int64), ("expected", ctypes.c_int64),
                ("seen", ctypes.c_int64), ("address", ctypes.c_uint64)]


STATUS = {"DSLC_OK": 0, "DSLC_ERROR_INVALID_ARGUMENT": 1,
          "DSLC_ERROR_METADATA": 2, "DSLC_ERROR_IO": 3, "DSLC_ERROR_CUDA": 4,
          "DSLC_ERROR_NCCL": 5, "DSLC_ERROR_NO_DEVICE": 6,
          "DSLC_ERROR_TIMEOUT": 7, "DSLC_ERROR_KERNEL_TIMEOUT": 8,
          "DSLC_ERROR_OUT_OF_MEMORY": 9, "DSLC_ERROR_INTERNAL": 10}

# name: (restype, argtypes), in CApi.h's order.
FUNCTIONS = {
    "dslcGetLastError": (c_char_p, []),
    "dslcStatusName": (c_char_p, [c_int]),
    "dslcDeviceCount": (c_int, []),
    "dslcGetUniqueId": (Status, [c_void_p]),
    "dslcCommCreateAll": (Status, [c_int, P(c_int), P(Handle)]),
    "dslcCommCreateRank": (Status, [c_int, c_int, c_int, c_void_p, P(Handle)]),
    "dslcCommCreateFromEnv": (Status, [c_char_p, c_int64, P(Handle)]),
    "dslcCommCreateVirtual": (Status, [c_int, c_int, P(Handle)]),
    "dslcCommIsVirtual": (Status, [Handle, P(c_int)]),
    "dslcCommDestroy": (Status, [Handle]),
    "dslcCommWorldSize": (Status, [Handle, P(c_int)]),
    "dslcCommNumLocal": (Status, [Handle, P(c_int)]),
    "dslcCommRank": (Status, [Handle, c_int, P(c_int)]),
    "dslcCommDevice": (Status, [Handle, c_int, P(c_int)]),
    "dslcCommStream": (Status, [Handle, c_int, P(c_void_p)]),
    "dslcCommBarrier": (Status, [Handle]),
    "dslcCommSynchronize": (Status, [Handle]),
    "dslcHeapCreate": (Status, [Handle, c_size_t, P(Handle)]),
    "dslcHeapDestroy": (Status, [Handle]),
    "dslcHeapAlloc": (Status, [Handle, c_size_t, c_size_t, c_int, P(Handle)]),
    "dslcHeapFree": (Status, [Handle, Handle]),
    "dslcBufferImport": (Status, [Handle, P(c_void_p), P(c_void_p), c_size_t,
                                  P(Handle)]),
    "dslcBufferRelease": (Status, [Handle]),
    "dslcBufferLocal": (Status, [Handle, c_int, P(c_void_p)]),
    "dslcBufferPeers": (Status, [Handle, c_int, P(c_void_p)]),
    "dslcKernelLoad": (Status, [Handle, c_char_p, c_char_p, c_int64,
                                P(Handle)]),
    "dslcKernelDestroy": (Status, [Handle]),
    "dslcKernelName": (Status, [Handle, P(c_char_p)]),
    "dslcKernelSetTimeoutMs": (Status, [Handle, c_int64]),
    "dslcKernelGrid": (Status, [Handle, c_int, Handle, P(c_int64)]),
    "dslcKernelLaunch": (Status, [Handle, c_int, Handle, c_void_p]),
    "dslcKernelSynchronize": (Status, [Handle]),
    "dslcKernelErrorRecord": (Status, [Handle, c_int, P(ErrorRecord)]),
    "dslcArgsCreate": (Status, [Handle, c_int, P(Handle)]),
    "dslcArgsDestroy": (Status, [Handle]),
    "dslcArgsSetTensor": (Status, [Handle, c_char_p, c_int, c_void_p, c_char_p,
                                   c_int, P(c_int64), c_void_p]),
    "dslcArgsSetInt": (Status, [Handle, c_char_p, c_int, c_int64]),
    "dslcArgsSetFloat": (Status, [Handle, c_char_p, c_int, c_double]),
    "dslcArgsCheck": (Status, [Handle]),
    "dslcCollectivesCreate": (Status, [Handle, c_char_p, c_char_p, c_size_t,
                                       P(Handle)]),
    "dslcCollectivesDestroy": (Status, [Handle]),
    "dslcAllReduce": (Status, [Handle, c_int, c_void_p, c_void_p, c_size_t,
                               c_char_p, c_char_p, c_void_p]),
    "dslcReduceScatter": (Status, [Handle, c_int, c_void_p, c_void_p, c_size_t,
                                   c_char_p, c_char_p, c_void_p]),
    "dslcAllGather": (Status, [Handle, c_int, c_void_p, c_void_p, c_size_t,
                               c_char_p, c_void_p]),
    "dslcCollectivesPrepare": (Status, [Handle, c_char_p, P(c_size_t),
                                        c_size_t, c_char_p]),
    "dslcCollectivesChoice": (Status, [Handle, c_char_p, c_size_t, c_char_p,
                                       c_char_p, c_size_t]),
    "dslcCollectivesLastCall": (Status, [Handle, c_char_p, c_size_t]),
    "dslcCommTeams": (Status, [Handle, c_int, P(c_int), P(c_int), P(c_int)]),
    "dslcNcclLibrary": (Status, [c_char_p, c_size_t, P(c_int)]),
    "dslcArgsNumTiles": (Status, [Handle, P(c_int64)]),
    "dslcKernelCheckErrors": (Status, [Handle]),
    "dslcCacheDir": (Status, [c_char_p, c_char_p, c_size_t]),
    "dslcSizeBucket": (c_int, [c_int64]),
    "dslcMetadataSpecializedSizes": (Status, [c_char_p, c_char_p, c_size_t]),
    "dslcMetadataFillShape": (Status, [c_char_p, c_char_p, c_int, c_int64,
                                       P(c_int64), c_int, P(c_int)]),
    "dslcBindingPlan": (Status, [c_char_p, c_char_p, c_char_p, c_size_t]),
    "dslcTuningCacheHas": (Status, [c_char_p, c_char_p, c_char_p, c_int,
                                    c_char_p, c_int64, P(c_int)]),
    "dslcTuningCacheHasShape": (Status, [c_char_p, c_char_p, c_char_p, c_int,
                                         c_char_p, c_int64, c_char_p,
                                         P(c_int)]),
    "dslcTunerDeviceInfo": (Status, [c_int, c_int, c_char_p, c_size_t]),
    "dslcTimesBelowFloor": (Status, [c_int, c_double, c_double,
                                     ctypes.c_uint64, c_char_p, c_size_t]),
}

# C API functions the _fastcall extension calls (its FUNCTIONS).
HOT = ("dslcAllReduce", "dslcReduceScatter", "dslcAllGather",
       "dslcKernelLaunch")

_lock = threading.Lock()
_lib = None
_fastcall = None     # the extension module; False when absent or off
FASTCALL_PYTHON = (3, 11)   # its Py_LIMITED_API (python/dslc/_fastcall.c)


def _prepare_nccl():
    """Makes sure the libnccl.so.2 the runtime binds to is the process's
    one: $DSLC_NCCL_LIBRARY if set, else PyTorch's (imported first, when it
    is installed), else whatever the runtime's RUNPATH finds."""
    path = os.environ.get("DSLC_NCCL_LIBRARY")
    if path:
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise RuntimeNotFoundError(
                f"dslc: cannot load DSLC_NCCL_LIBRARY={path}: {e}") from None
        return
    if "torch" in sys.modules or importlib.util.find_spec("torch") is not None:
        import torch  # noqa: F401  (loads torch's libnccl.so.2)


def load(path=None):
    """The runtime library with every FUNCTIONS entry typed (loaded once)."""
    global _lib
    if _lib is not None and path is None:
        return _lib
    with _lock:
        if _lib is not None and path is None:
            return _lib
        path = path or _locate.runtime_library()
        if not path:
            raise RuntimeNotFoundError(
                "dslc: libdslc_runtime.so not found; build it with "
                "`cmake --build build --target dslc_runtime_shared` "
                f"({_locate.searched()})")
        _prepare_nccl()
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise RuntimeNotFoundError(
                f"dslc: cannot load the runtime {path}: {e}") from None
        missing = []
        for name, (res, args) in FUNCTIONS.items():
            fn = getattr(lib, name, None)
            if fn is None:
                missing.append(name)
                continue
            fn.restype, fn.argtypes = res, args
        if missing:
            raise RuntimeNotFoundError(
                f"dslc: the runtime {path} lacks {', '.join(missing)}: it is "
                "older than this package; rebuild it")
        _lib = lib
        return lib


def fastcall():
    """The _fastcall extension module, or None: not built (nor named by
    $DSLC_FASTCALL), turned off (DSLC_FASTCALL=0), or a Python older than
    its stable ABI (3.11). A file that exists
    but does not load is an error, not a silent fallback."""
    global _fastcall
    if _fastcall is None:
        path = _locate.fastcall_extension()
        if path is None or sys.version_info < FASTCALL_PYTHON:
            _fastcall = False
        else:
            try:
                loader = importlib.machinery.ExtensionFileLoader(
                    "dslc._fastcall", path)
                spec = importlib.util.spec_from_file_location(
                    "dslc._fastcall", path, loader=loader)
                mod = importlib.util.module_from_spec(spec)
                loader.exec_module(mod)
            except (ImportError, OSError) as e:
                raise RuntimeNotFoundError(
                    f"dslc: cannot load the fast-call extension {path}: {e} "
                    "(rebuild it: cmake --build build --target "
                    "dslc_fastcall; or DSLC_FASTCALL=0 for ctypes)") from None
            _fastcall = mod
    return _fastcall or None


def hot(name, fast=True):
    """The callable for hot C API function `name` (one of HOT) of the loaded
    runtime: bound by the _fastcall extension when it is there and `fast`,
    else the ctypes function. Pass handles as ints (`handle.value`)."""
    fn = getattr(load(), name)
    ext = fastcall() if fast else None
    if ext is None:
        return fn
    return ext.bind(name, ctypes.cast(fn, c_void_p).value)


def last_error():
    return load().dslcGetLastError().decode("utf-8", "replace")


def check(status, what=None):
    """Raises the DslcError for a non-zero status (message from the
    runtime, prefixed with `what` when given)."""
    if status:
        msg = last_error()
        raise error_for_status(status, f"{what}: {msg}" if what else msg)


def call(name, *args):
    """Calls `name` and raises on a non-zero status."""
    check(getattr(load(), name)(*args))


def nccl_library():
    """(path, version) of the NCCL library the runtime's calls resolve to
    (version as NCCL_VERSION_CODE, e.g. 22809)."""
    buf = ctypes.create_string_buffer(4096)
    v = c_int(0)
    call("dslcNcclLibrary", buf, len(buf), ctypes.byref(v))
    return buf.value.decode(), v.value


def cache_dir(given=None):
    """The dslc cache directory by the contract's one rule (the runtime's
    dslcCacheDir): `given`, else $DSLC_CACHE_DIR, $XDG_CACHE_HOME/dslc,
    $HOME/.cache/dslc; an error naming the variables when none is set."""
    buf = ctypes.create_string_buffer(4096)
    call("dslcCacheDir", given.encode() if given else None, buf, len(buf))
    return buf.value.decode()


def size_bucket(n):
    """The tuning cache's size bucket of n elements (dslcSizeBucket)."""
    return load().dslcSizeBucket(int(n))


def specialized_sizes(metadata_path):
    """[(param, dim, size)]: the sizes a compiled kernel is specialized for
    (the contract's rule, dslcMetadataSpecializedSizes: the metadata's
    integer `==` constraints)."""
    import json
    size = 4096
    while True:
        buf = ctypes.create_string_buffer(size)
        rc = load().dslcMetadataSpecializedSizes(metadata_path.encode(), buf,
                                                 size)
        if rc == STATUS["DSLC_ERROR_INVALID_ARGUMENT"] and size < (1 << 24):
            size *= 16          # a kernel with very many specialized sizes
            continue
        check(rc, f"dslc: reading {metadata_path}")
        return [(p, int(d), int(n)) for p, d, n in json.loads(buf.value)]


def fill_shape(metadata_path, name, world, num_tiles):
    """The shape the contract gives signal pad or LL scratch `name` of a
    compiled kernel for `world` ranks and `num_tiles` tiles
    (dslcMetadataFillShape)."""
    sizes = (c_int64 * 8)()
    rank = c_int(0)
    call("dslcMetadataFillShape", metadata_path.encode(), name.encode(),
         int(world), int(num_tiles), sizes, 8, ctypes.byref(rank))
    return tuple(sizes[i] for i in range(rank.value))


def binding_plan(metadata, request):
    """The contract's binding plan (dslcBindingPlan) of the kernel whose
    metadata is `metadata` (the dict dslc writes beside the cubin, or its
    text) for `request` ({"world", "shapes", "scalars", "bound",
    "from_data", "collective"}): {"args": [{"name", "role", "shape",
    "symmetric", "fill", "table_of", ...}], "problems": [{"kind", "arg",
    "text"}], ...}."""
    import json
    text = metadata if isinstance(metadata, str) else json.dumps(metadata)
    req = json.dumps(request).encode()
    size = 1 << 16
    while True:
        buf = ctypes.create_string_buffer(size)
        rc = load().dslcBindingPlan(text.encode(), req, buf, size)
        if rc == STATUS["DSLC_ERROR_INVALID_ARGUMENT"] and size < (1 << 26) \
                and last_error().startswith("the binding plan need"):
            size *= 16          # a kernel with very many arguments
            continue
        check(rc, "dslc: the binding plan")
        return json.loads(buf.value)


def tuning_cache_has(cache, kernel, sha256, world, dtype, count, shapes=None):
    """Whether the tuning cache holds a config for this kernel (name and
    source sha256), world size, dtype and count's size bucket, and, given
    `shapes` (name -> sizes, the call's tensors), tuned at those shapes
    (dslcTuningCacheHasShape: the rule `dslc --config-from-cache` reads
    by)."""
    found = c_int(0)
    shapes_json = json.dumps({n: [int(v) for v in s]
                              for n, s in shapes.items()}) if shapes else None
    call("dslcTuningCacheHasShape", cache.encode() if cache else None,
         kernel.encode(), sha256.encode(), int(world), dtype.encode(),
         int(count), shapes_json.encode() if shapes_json else None,
         ctypes.byref(found))
    return bool(found.value)


def mapped_nccl_files():
    """Every distinct libnccl file mapped into this process
    (/proc/self/maps): two entries mean two copies of NCCL."""
    files = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and "libnccl" in os.path.basename(
                        parts[5].strip()):
                    files.add(os.path.realpath(parts[5].strip()))
    except OSError:
        pass
    return sorted(files)


def tuner_device_info(device, virtual=False):
    """{"device", "driver", "multiprocessors", "memory_bytes_per_s",
    "l2_bytes"} of GPU
    `device` as the tuner names it (dslcTunerDeviceInfo: the cache's device
    key, the driver's versions, the memory roof of the physical floor)."""
    import json
    buf = ctypes.create_string_buffer(4096)
    call("dslcTunerDeviceInfo", int(device), int(bool(virtual)), buf, len(buf))
    return json.loads(buf.value.decode())


def times_below_floor(device, eager_us, graph_us, nbytes):
    """'' when the eager and graph medians (us; 0: not measured) of a call
    moving `nbytes` through GPU `device` are physically possible, else why
    not (dslcTimesBelowFloor: the one rule of runtime/Floor.h)."""
    buf = ctypes.create_string_buffer(1024)
    call("dslcTimesBelowFloor", int(device), float(eager_us), float(graph_us),
         int(nbytes), buf, len(buf))
    return buf.value.decode()
