"""dslc.all_reduce / reduce_scatter / all_gather on torch tensors: the
runtime's collectives library (runtime/Collectives.h: the tuned dslc kernel
for the size, or NCCL), on torch's current stream.

Eager calls go straight to the C API (a handful of attribute reads and one
ctypes call). Under torch.compile the same functions call the torch.library
ops dslc::inplace_all_reduce (mutates its input), dslc::reduce_scatter and
dslc::all_gather, which have fake implementations, so Dynamo traces through
them and Inductor keeps them in the graph. (Not "all_reduce_": torchgen
takes a trailing underscore for an aten-style in-place op that must take
`self` and return it, which auto-functionalization checks.)
"""

import ctypes
import sys

from . import _capi, _comm, _torch
from .errors import InvalidArgumentError

_OPS = {"sum": b"sum", "prod": b"prod", "max": b"max", "min": b"min",
        "avg": b"avg"}
_registered = False
_dtype_bytes = {}     # torch.dtype -> b"bfloat16"


class _Coll:
    """The communicator's Collectives handle and the hot-path callables
    (the _fastcall extension's, else ctypes': both take ints and bytes)."""

    __slots__ = ("h", "hv", "comm", "device", "world", "stream", "fast",
                 "all_reduce", "reduce_scatter", "all_gather")

    def __init__(self, comm):
        lib = _capi.load()
        h = _capi.Handle()
        _capi.check(lib.dslcCollectivesCreate(comm._h, None, None, 0,
                                              ctypes.byref(h)),
                    "dslc: creating the collectives")
        comm._collectives = h
        self.h, self.hv, self.comm, self.device = h, h.value, comm, \
            comm.device
        self.world = comm.world_size
        self.stream = _torch.raw_stream_function()
        self.bind(True)

    def bind(self, fast):
        """Calls through the _fastcall extension (when built) or, with
        fast=False, through ctypes (benchmarks/dslc_overhead.py times
        both)."""
        self.all_reduce = _capi.hot("dslcAllReduce", fast)
        self.reduce_scatter = _capi.hot("dslcReduceScatter", fast)
        self.all_gather = _capi.hot("dslcAllGather", fast)
        self.fast = bool(fast and _capi.fastcall())


_coll = None


def _get():
    global _coll
    comm = _comm.default()
    if _coll is None or _coll.comm is not comm or comm._collectives is None:
        _coll = _Coll(comm)
        _register_ops()
    return _coll


def forget(comm):
    """Drops the hot path's handle of `comm`'s collectives (its destroy
    calls this before dslcCollectivesDestroy)."""
    global _coll
    if _coll is not None and _coll.comm is comm:
        _coll = None


def _dtype(t):
    name = _dtype_bytes.get(t.dtype)
    if name is None:
        name = _torch.dtype_name(t.dtype).encode()
        _dtype_bytes[t.dtype] = name
    return name


def _check_tensor(c, t, what):
    if t.get_device() != c.device:
        raise InvalidArgumentError(
            f"dslc.{what}: tensor on {t.device}, the communicator on "
            f"cuda:{c.device}")
    if not t.is_contiguous():
        raise InvalidArgumentError(f"dslc.{what}: the tensor is not "
                                   f"contiguous")


def _unknown_op(what, op):
    return InvalidArgumentError(f"dslc.{what}: unknown op '{op}' "
                                f"(sum, prod, max, min, avg)")


def _eager_all_reduce(t, op="sum"):
    # The hot path (issue 13: within 1 us of the C call): module globals
    # read once, one C call through _fastcall; every check stays, the
    # messages are made only on failure.
    c = _coll or _get()
    dev = c.device
    if t.get_device() != dev or not t.is_contiguous():
        _check_tensor(c, t, "all_reduce")
    opb = _OPS.get(op)
    if opb is None:
        raise _unknown_op("all_reduce", op)
    p = t.data_ptr()
    rc = c.all_reduce(c.hv, 0, p, p, t.numel(),
                      _dtype_bytes.get(t.dtype) or _dtype(t), opb,
                      c.stream(dev))
    if rc:
        _capi.check(rc, "dslc.all_reduce")
    return t


def _eager_reduce_scatter(t, op="sum", out=None):
    c = _get()
    _check_tensor(c, t, "reduce_scatter")
    if t.dim() == 0 or t.shape[0] % c.world:
        raise InvalidArgumentError(
            f"dslc.reduce_scatter: dim 0 of {tuple(t.shape)} is not a "
            f"multiple of the world size {c.world}")
    shape = (t.shape[0] // c.world,) + tuple(t.shape[1:])
    if out is None:
        out = t.new_empty(shape)
    elif tuple(out.shape) != shape or out.dtype != t.dtype:
        raise InvalidArgumentError(
            f"dslc.reduce_scatter: out is {out.dtype}{tuple(out.shape)}, "
            f"{t.dtype}{shape} needed")
    _check_tensor(c, out, "reduce_scatter")
    opb = _OPS.get(op)
    if opb is None:
        raise _unknown_op("reduce_scatter", op)
    _capi.check(c.reduce_scatter(c.hv, 0, t.data_ptr(), out.data_ptr(),
                                 out.numel(), _dtype(t), opb,
                                 c.stream(c.device)),
                "dslc.reduce_scatter")
    return out


def _eager_all_gather(t, out=None):
    c = _get()
    _check_tensor(c, t, "all_gather")
    shape = ((c.world * t.shape[0],) + tuple(t.shape[1:])) if t.dim() else \
        (c.world,)
    if out is None:
        out = t.new_empty(shape)
    elif tuple(out.shape) != shape or out.dtype != t.dtype:
        raise InvalidArgumentError(
            f"dslc.all_gather: out is {out.dtype}{tuple(out.shape)}, "
            f"{t.dtype}{shape} needed")
    _check_tensor(c, out, "all_gather")
    _capi.check(c.all_gather(c.hv, 0, t.data_ptr(), out.data_ptr(),
                             t.numel(), _dtype(t), c.stream(c.device)),
                "dslc.all_gather")
    return out


def _is_compiling_unbound():
    """torch.compiler.is_compiling before dslc has looked it up: nothing
    compiles without torch imported."""
    if "torch" not in sys.modules:
        return False
    return _bind_is_compiling(_torch.torch())()


# The one check per call: torch.compiler.is_compiling itself once bound
# (Dynamo folds a call to it to True while tracing).
_is_compiling = _is_compiling_unbound


def _bind_is_compiling(torch):
    global _is_compiling
    _is_compiling = torch.compiler.is_compiling
    return _is_compiling


def all_reduce(t, op="sum"):
    """Reduces `t` over the ranks in place (like dist.all_reduce) and
    returns it. Tuned dslc kernel for the size, or NCCL; on torch's current
    stream; capturable in CUDA graphs (call once eagerly per size first, so
    the kernel instance exists: a captured call never allocates and would
    use NCCL)."""
    if _is_compiling():
        _torch._torch.ops.dslc.inplace_all_reduce(t, op)
        return t
    return _eager_all_reduce(t, op)


def reduce_scatter(t, op="sum", out=None):
    """Rank r gets the reduction of dim-0 slice r of `t` (dim 0 a multiple
    of the world size); returns a new tensor (or `out`)."""
    if out is None and _is_compiling():
        return _torch._torch.ops.dslc.reduce_scatter(t, op)
    return _eager_reduce_scatter(t, op, out)


def all_gather(t, out=None):
    """Every rank's `t` concatenated along dim 0, in rank order."""
    if out is None and _is_compiling():
        return _torch._torch.ops.dslc.all_gather(t)
    return _eager_all_gather(t, out)


def prepare(collective, counts, dtype):
    """Makes the kernel instances `collective` ("all_reduce", ...) needs
    for these total element counts before a CUDA graph capture
    (collective: every rank calls it)."""
    c = _get()
    arr = (ctypes.c_size_t * len(counts))(*counts)
    _capi.check(_capi.load().dslcCollectivesPrepare(
        c.h, collective.encode(), arr, len(counts),
        _torch.dtype_name(dtype).encode()), f"dslc.prepare({collective})")


def choice(collective, count, dtype):
    """Where a call would go: "kernel: REASON" or "nccl: REASON"."""
    c = _get()
    buf = ctypes.create_string_buffer(1024)
    _capi.check(_capi.load().dslcCollectivesChoice(
        c.h, collective.encode(), count, _torch.dtype_name(dtype).encode(),
        buf, len(buf)), f"dslc.choice({collective})")
    return buf.value.decode()


def _register_ops():
    """The torch.library ops (once, when torch is present)."""
    global _registered
    if _registered:
        return
    torch = _torch.torch("dslc's torch.library ops")
    _bind_is_compiling(torch)
    lib_ops = torch.library

    @lib_ops.custom_op("dslc::inplace_all_reduce", mutates_args=("t",),
                       device_types="cuda")
    def _all_reduce_op(t: torch.Tensor, op: str) -> None:
        _eager_all_reduce(t, op)

    @_all_reduce_op.register_fake
    def _(t, op):
        return None

    @lib_ops.custom_op("dslc::reduce_scatter", mutates_args=(),
                       device_types="cuda")
    def _reduce_scatter_op(t: torch.Tensor, op: str) -> torch.Tensor:
        return _eager_reduce_scatter(t, op)

    @_reduce_scatter_op.register_fake
    def _(t, op):
        w = _comm.default().world_size
        torch._check(t.shape[0] % w == 0)
        return t.new_empty((t.shape[0] // w,) + tuple(t.shape[1:]))

    @lib_ops.custom_op("dslc::all_gather", mutates_args=(),
                       device_types="cuda")
    def _all_gather_op(t: torch.Tensor) -> torch.Tensor:
        return _eager_all_gather(t)

    @_all_gather_op.register_fake
    def _(t):
        w = _comm.default().world_size
        if t.dim() == 0:
            return t.new_empty((w,))
        return t.new_empty((w * t.shape[0],) + tuple(t.shape[1:]))

    _registered = True


def register_ops():
    """Registers dslc::inplace_all_reduce, dslc::reduce_scatter,
    dslc::all_gather and dslc::kernel_call (every dslc.kernel call) with
    torch.library (dslc.init does it when torch is present)."""
    _register_ops()
    from . import _kernel_op
    _kernel_op.register()
