"""PyTorch glue: optional import, dtype names, the current stream, and
zero-copy tensors over device memory the runtime owns (DLPack)."""

import ctypes
import importlib

from .errors import NeedsTorchError

_torch = None

# metadata dtype name -> (torch attribute, element bytes)
DTYPES = {"bfloat16": ("bfloat16", 2), "float16": ("float16", 2),
          "float32": ("float32", 4), "float64": ("float64", 8),
          "int8": ("int8", 1), "uint8": ("uint8", 1), "int16": ("int16", 2),
          "int32": ("int32", 4), "uint32": ("uint32", 4),
          "int64": ("int64", 8), "uint64": ("uint64", 8), "bool": ("bool", 1),
          "float8_e4m3fn": ("float8_e4m3fn", 1),
          "float8_e5m2": ("float8_e5m2", 1)}
_name_of = {}   # torch.dtype -> metadata name (bytes and str)
_raw_stream = None


def torch(what="this function"):
    """The torch module; NeedsTorchError naming `what` when missing."""
    global _torch, _raw_stream
    if _torch is None:
        try:
            _torch = importlib.import_module("torch")
        except ImportError as e:
            raise NeedsTorchError(
                f"dslc: {what} needs PyTorch, which cannot be imported "
                f"({e}); the runtime itself (dslc.runtime_info, kernel "
                f"compilation) works without it") from None
        for name, (attr, _) in DTYPES.items():
            dt = getattr(_torch, attr, None)
            if dt is not None:
                _name_of[dt] = name
        _raw_stream = getattr(_torch._C, "_cuda_getCurrentRawStream", None)
    return _torch


def dtype_name(dtype):
    """Metadata spelling ("bfloat16") of a torch dtype or a string."""
    if isinstance(dtype, str):
        name = {"bf16": "bfloat16", "f16": "float16", "half": "float16",
                "f32": "float32", "float": "float32", "f64": "float64",
                "double": "float64"}.get(dtype, dtype)
        if name not in DTYPES:
            raise ValueError(f"dslc: unknown dtype '{dtype}' (one of "
                             f"{', '.join(DTYPES)})")
        return name
    torch("dtype names")
    try:
        return _name_of[dtype]
    except KeyError:
        raise ValueError(f"dslc: dtype {dtype} has no dslc equivalent "
                         f"(one of {', '.join(DTYPES)})") from None


def torch_dtype(name):
    return getattr(torch("dtypes"), DTYPES[dtype_name(name)][0])


def element_size(name):
    return DTYPES[dtype_name(name)][1]


def current_stream(device):
    """cudaStream_t (an int) of torch's current stream on `device`."""
    if _raw_stream is not None:
        return _raw_stream(device)
    return torch().cuda.current_stream(device).cuda_stream


def raw_stream_function():
    """A function device -> cudaStream_t (an int) of torch's current stream:
    torch._C._cuda_getCurrentRawStream itself when torch has it."""
    torch("torch's current stream")
    if _raw_stream is not None:
        return _raw_stream
    return lambda device: _torch.cuda.current_stream(device).cuda_stream


def capturing():
    t = torch()
    return t.cuda.is_current_stream_capturing()


# DLPack (dlpack.h, DLManagedTensor): torch.from_dlpack takes a capsule
# without needing numpy (which __cuda_array_interface__ would) and knows
# bfloat16.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor),
                             ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _DELETER)]
_KDL_CUDA = 2
# metadata dtype -> (DLDataTypeCode, bits)
_DL_CODES = {"bfloat16": (4, 16), "float16": (2, 16), "float32": (2, 32),
             "float64": (2, 64), "int8": (0, 8), "uint8": (1, 8),
             "int16": (0, 16), "int32": (0, 32), "uint32": (1, 32),
             "int64": (0, 64), "uint64": (1, 64), "bool": (6, 8)}

_live = {}   # manager_ctx -> (owner, managed struct, shape array)


def _release(managed):
    try:
        _live.pop(managed.contents.manager_ctx, None)
    except Exception:  # interpreter shutdown
        pass


_release_cb = _DELETER(_release)
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_next_ctx = [1]


class DeviceArray:
    """Device memory the runtime owns, as a torch tensor without a copy
    (DLPack). `owner` stays alive until the last tensor over the memory is
    freed (torch calls the DLPack deleter then)."""

    def __init__(self, ptr, shape, dtype, owner=None):
        self.ptr, self.shape, self.dtype, self.owner = ptr, tuple(shape), \
            dtype_name(dtype), owner

    def as_tensor(self, device):
        t = torch("dslc tensors")
        code, bits = _DL_CODES[self.dtype]
        shape = (ctypes.c_int64 * max(len(self.shape), 1))(*self.shape)
        m = _DLManagedTensor()
        m.dl_tensor.data = self.ptr
        m.dl_tensor.device = _DLDevice(_KDL_CUDA, device)
        m.dl_tensor.ndim = len(self.shape)
        m.dl_tensor.dtype = _DLDataType(code, bits, 1)
        m.dl_tensor.shape = shape
        m.dl_tensor.strides = None          # compact row-major
        m.dl_tensor.byte_offset = 0
        ctx = _next_ctx[0]
        _next_ctx[0] += 1
        m.manager_ctx = ctx
        m.deleter = _release_cb
        _live[ctx] = (self.owner, m, shape)
        capsule = _capsule_new(ctypes.addressof(m), b"dltensor", None)
        try:
            return t.from_dlpack(capsule)
        except Exception:
            _live.pop(ctx, None)
            raise
