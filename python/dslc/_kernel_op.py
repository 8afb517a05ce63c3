"""Every dslc.kernel call as one torch.library custom op, so that
torch.compile (fullgraph=True included) traces through user kernels.

The op, dslc::kernel_call, takes the kernel (a key into this process's
registry of Kernel objects), its tensor arguments by name and its numbers
by name, and returns the outputs the kernel allocates. Its fake (meta)
implementation compiles the kernel (or finds it in the disk cache: no GPU)
and shapes the outputs from the metadata by the contract's rules
(_roles.plan_fills), so the traced graph knows them. Every tensor argument
is declared mutable: a kernel may write any of them (outputs passed in,
in-place updates), and functionalization keeps that correct.

Kernels are forward-only: no backward is registered, so autograd through
them raises (Kernel.__call__ refuses inputs that require grad up front).
Arguments the op cannot carry (a tuple of every rank's copies, a symmetric
memory handle) make the call run eagerly outside the graph instead (a
graph break), as before.
"""

import itertools

from . import _roles, _torch
from .errors import InvalidArgumentError

NOT_TRACEABLE = object()   # call(): the arguments cannot go through the op


def _is_tensor(v):
    t = _torch._torch
    return t is not None and isinstance(v, t.Tensor)

_kernels = {}              # key -> Kernel
_keys = {}                 # id(Kernel) -> key
_counter = itertools.count()
_registered = False


def key_of(kernel):
    """The registry key of `kernel` (a string constant in traced graphs)."""
    k = _keys.get(id(kernel))
    if k is None:
        k = f"k{next(_counter)}:{kernel.name}"
        _keys[id(kernel)] = k
        _kernels[k] = kernel
    return k


def split_values(values):
    """(tensor names, tensors, int names, ints, float names, floats) of a
    call's values, or None when one cannot go through the op."""
    tn, tv, inames, ivals, fn, fv = [], [], [], [], [], []
    for name, v in values.items():
        if _is_tensor(v):
            tn.append(name)
            tv.append(v)
        elif isinstance(v, bool):
            inames.append(name)
            ivals.append(int(v))
        elif isinstance(v, int):
            inames.append(name)
            ivals.append(v)
        elif isinstance(v, float):
            fn.append(name)
            fv.append(v)
        else:
            return None
    return tn, tv, inames, ivals, fn, fv


def _values(tn, tv, inames, ivals, fn, fv):
    values = dict(zip(tn, tv))
    values.update(zip(inames, ivals))
    values.update(zip(fn, fv))
    return values


def call(kernel, values):
    """The kernel's call through dslc::kernel_call (while tracing), or
    NOT_TRACEABLE when its arguments cannot go through the op."""
    parts = split_values(values)
    if parts is None:
        return NOT_TRACEABLE
    register()
    tn, tv, inames, ivals, fn, fv = parts
    outs = _torch._torch.ops.dslc.kernel_call(key_of(kernel), tn, tv, inames,
                                               ivals, fn, fv)
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else tuple(outs)


def fake_outputs(kernel, values):
    """Empty tensors shaped as the call's outputs (fake mode: no GPU work),
    from the compiled kernel's metadata."""
    import json
    comm_rank, world = kernel.rank_and_world()
    signature, shapes, defines, _ = kernel._request(values, comm_rank, world)
    cubin = kernel._compile(values, signature, shapes, defines, comm_rank,
                            world)
    with open(cubin + ".json") as f:
        md = json.load(f)
    given = dict(shapes)
    for name, v in values.items():
        if not _is_tensor(v):
            given[name] = ()
    like = next(v for v in values.values() if _is_tensor(v))
    outs = []
    for f in _roles.plan_fills(md, world, given, None, kernel.collective):
        if f.per_call:
            outs.append(like.new_empty(
                f.shape, dtype=_torch.torch_dtype(f.arg.dtype)))
    return outs


def register():
    """Registers dslc::kernel_call (once, when torch is present)."""
    global _registered
    if _registered:
        return
    torch = _torch.torch("dslc::kernel_call")
    from typing import List

    @torch.library.custom_op("dslc::kernel_call", mutates_args=("tensors",),
                             device_types="cuda")
    def _kernel_call(key: str, tensor_names: List[str],
                     tensors: List[torch.Tensor], int_names: List[str],
                     ints: List[int], float_names: List[str],
                     floats: List[float]) -> List[torch.Tensor]:
        k = _kernels.get(key)
        if k is None:
            raise InvalidArgumentError(
                f"dslc::kernel_call: no kernel {key} in this process")
        out = k._call_values(_values(tensor_names, tensors, int_names, ints,
                                     float_names, floats))
        if out is None:
            return []
        # outputs never alias an argument (the op returns new tensors)
        return [o.clone() if any(o is t for t in tensors) else o
                for o in (out if isinstance(out, tuple) else (out,))]

    @_kernel_call.register_fake
    def _(key, tensor_names, tensors, int_names, ints, float_names, floats):
        return fake_outputs(_kernels[key],
                            _values(tensor_names, tensors, int_names, ints,
                                    float_names, floats))

    _registered = True
