"""dslc from Python: communicating GPU kernels on torch tensors.

    import torch, torch.distributed as dist, dslc
    dist.init_process_group("nccl")
    dslc.init()                                  # dslc's communicator
    x = dslc.empty(4096, torch.bfloat16)         # symmetric memory, a torch.Tensor
    dslc.all_reduce(x)                           # tuned kernel or NCCL, in place
    k = dslc.kernel("examples/one_shot_all_reduce.py")
    out = k(a_shared=x)                          # compiled on first call

The package is Python over the runtime's C API (ctypes; the hot calls
through a small stable-ABI extension when it is built); torch is only
imported when a function needs it. docs/python.md has the whole story.
"""

import atexit as _atexit
import os as _os

# Never NVLink multicast (docs/runtime.md): set before torch's symmetric
# memory or NCCL read them.
for _k, _v in (("NCCL_NVLS_ENABLE", "0"),
               ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
               ("NVSHMEM_DISABLE_NVLS", "1")):
    _os.environ.setdefault(_k, _v)

from . import errors  # noqa: E402
from ._collectives import (all_gather, all_reduce, choice, prepare,  # noqa: E402
                           reduce_scatter, register_ops)
from ._comm import Communicator, empty, initialized, zeros  # noqa: E402
from ._comm import default as communicator  # noqa: E402
from ._compile import size_bucket  # noqa: E402
from ._kernel import (Kernel, TensorSpec, check_errors, kernel,  # noqa: E402
                      synchronize)
from ._locate import cache_dir  # noqa: E402
from .errors import (CompileError, DslcError, InvalidArgumentError,  # noqa: E402
                     KernelError, NeedsTorchError, NoDeviceError,
                     RuntimeNotFoundError)

__version__ = "0.1.0"

__all__ = [
    "init", "shutdown", "initialized", "communicator", "Communicator",
    "empty", "zeros", "peer_table", "import_symm_mem", "kernel", "Kernel",
    "TensorSpec", "synchronize", "check_errors", "all_reduce",
    "reduce_scatter", "all_gather", "prepare", "choice", "register_ops",
    "device_count", "runtime_info", "cache_dir", "size_bucket", "errors",
    "DslcError", "InvalidArgumentError", "KernelError", "CompileError",
    "NoDeviceError", "NeedsTorchError", "RuntimeNotFoundError",
]


def init(group=None, *, device=None, heap_bytes=None, rendezvous_file=None,
         timeout_ms=60000):
    """dslc's communicator for this process (see _comm.init): over a
    torch.distributed group (the NCCL unique id broadcast through it),
    from torchrun's environment, or a world of one. Registers the
    torch.library ops when torch is present."""
    from . import _comm, _torch
    comm = _comm.init(group, device=device, heap_bytes=heap_bytes,
                      rendezvous_file=rendezvous_file, timeout_ms=timeout_ms)
    if _torch._torch is not None:
        register_ops()
    return comm


def shutdown():
    """Destroys the communicator, its heap, kernels and collectives (in that
    order); runs at exit. A kernel error record nobody collected (no
    dslc.synchronize() after the failing launch) is printed first."""
    import sys
    from . import _comm
    try:
        check_errors()
    except KernelError as e:
        print(f"dslc: {e}", file=sys.stderr)
    except DslcError:
        pass
    _comm.shutdown()


_atexit.register(shutdown)


def device_count():
    """Visible CUDA devices as the runtime sees them (0 without a driver)."""
    from . import _capi
    return _capi.load().dslcDeviceCount()


def peer_table(ptrs_dev, world_size=None):
    """A uint64 torch tensor over a device array of `world_size` addresses
    (e.g. a torch symmetric-memory handle's signal_pad_ptrs_dev), zero-copy:
    what Helion's kernels take as `signal_pad_addrs`."""
    from . import _comm, _torch
    comm = _comm.default()
    n = world_size or comm.world_size
    return _torch.DeviceArray(int(ptrs_dev), (n,), "uint64").as_tensor(
        comm.device)


def import_symm_mem(handle):
    """Registers PyTorch symmetric memory (the handle of
    torch.distributed._symmetric_memory.rendezvous) so tensors in it can be
    passed to kernels as symmetric tensors; done on first use otherwise."""
    from . import _comm
    _comm.default().import_symm_mem(handle)


def runtime_info():
    """Where the pieces are and which NCCL the runtime uses: a dict with
    library, compiler, tuner, cache_dir, nccl_library, nccl_version,
    nccl_files_mapped (every libnccl file in the process: one is the goal),
    torch_nccl_version (when torch is imported), devices, fastcall (the
    _fastcall extension's file, None when the hot calls use ctypes)."""
    import sys
    from . import _capi, _locate
    info = {"library": _locate.runtime_library(),
            "compiler": _locate.compiler(), "tuner": _locate.tuner(),
            "cache_dir": _locate.cache_dir()}
    lib = _capi.load()
    path, version = _capi.nccl_library()
    info["nccl_library"] = _os.path.realpath(path)
    info["nccl_version"] = f"{version // 10000}.{version // 100 % 100}." \
                           f"{version % 100}"
    info["nccl_files_mapped"] = _capi.mapped_nccl_files()
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            v = torch.cuda.nccl.version()
            info["torch_nccl_version"] = ".".join(str(x) for x in v)
        except Exception as e:  # torch without NCCL
            info["torch_nccl_version"] = f"unavailable ({e})"
    info["devices"] = lib.dslcDeviceCount()
    ext = _capi.fastcall()
    info["fastcall"] = ext.__file__ if ext is not None else None
    return info
