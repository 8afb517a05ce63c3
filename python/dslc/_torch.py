"""PyTorch glue: optional import, dtype names, the current stream, and
zero-copy tensors over device memory the runtime owns
(__cuda_array_interface__)."""

import importlib

from .errors import NeedsTorchError

_torch = None

# metadata dtype name -> (torch attribute, element bytes)
DTYPES = {"bfloat16": ("bfloat16", 2), "float16": ("float16", 2),
          "float32": ("float32", 4), "float64": ("float64", 8),
          "int8": ("int8", 1), "uint8": ("uint8", 1), "int16": ("int16", 2),
          "int32": ("int32", 4), "uint32": ("uint32", 4),
          "int64": ("int64", 8), "uint64": ("uint64", 8), "bool": ("bool", 1)}
# metadata dtype name -> the integer typestr of its width (CAI has no
# bfloat16; tensors are made as integers and viewed as the dtype)
_TYPESTR = {1: "|u1", 2: "<i2", 4: "<i4", 8: "<i8"}

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


def capturing():
    t = torch()
    return t.cuda.is_current_stream_capturing()


class DeviceArray:
    """A device allocation described by __cuda_array_interface__ (version 2,
    no stream: the memory is ready). `owner` is kept alive as long as this
    object (and so as long as any tensor made from it)."""

    def __init__(self, ptr, shape, dtype, owner=None):
        self.ptr, self.shape, self.dtype, self.owner = ptr, tuple(shape), \
            dtype_name(dtype), owner
        width = element_size(self.dtype)
        self.__cuda_array_interface__ = {
            "shape": self.shape, "typestr": _TYPESTR[width],
            "data": (ptr, False), "version": 2, "strides": None}

    def as_tensor(self, device):
        t = torch("dslc tensors")
        raw = t.as_tensor(self, device=t.device("cuda", device))
        want = torch_dtype(self.dtype)
        return raw if raw.dtype == want else raw.view(want)
