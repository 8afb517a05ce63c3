"""Every dslc.kernel call as one torch.library custom op, so that
torch.compile (fullgraph=True included) traces through user kernels.

The op, dslc::kernel_call, takes the kernel (a key into this process's
registry of Kernel objects), its tensor arguments by name and its numbers
by name, and returns the outputs the kernel allocates. Its fake (meta)
implementation compiles the kernel (or finds it in the disk cache: no GPU)
and shapes the outputs from the metadata by the contract's rules
(_roles.plan_fills), so the traced graph knows them. The op is functional
(Inductor does not functionalize a mutated list of tensors): the tensor
arguments the kernel writes (metadata access) are written as copies,
returned after the outputs and copied back into the caller's tensors by
the traced code, a mutation torch.compile orders like any in-place op
(one extra copy of those tensors under torch.compile).

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
# key -> (names of the outputs a call makes, in order; return_part(md))
_return_plans = {}
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


def _names(text):
    """Names joined with ',' (identifiers): the op's schema takes no list
    of strings."""
    return text.split(",") if text else []


def _values(tn, tv, inames, ivals, fn, fv):
    tn, inames, fn = (_names(n) if isinstance(n, str) else n
                      for n in (tn, inames, fn))
    values = dict(zip(tn, tv))
    values.update(zip(inames, ivals))
    values.update(zip(fn, fv))
    return values


def written(kernel, values):
    """Names of the tensor arguments the compiled kernel writes (metadata
    access write/readwrite): compiled for these values (or found in the
    disk cache), no GPU. Called by the op's implementations, never by
    traced code."""
    md, _ = _metadata(kernel, values)
    return {p["name"] for p in md.get("params", [])
            if p.get("access") in ("write", "readwrite") and
            _is_tensor(values.get(p["name"]))}


def call(kernel, values):
    """The kernel's call through dslc::kernel_call (while tracing), or
    NOT_TRACEABLE when its arguments cannot go through the op. The op is
    functional: after the outputs it returns one tensor per tensor
    argument, the updated copy of one the kernel writes or an empty tensor;
    the copies are written back here, a mutation torch.compile orders like
    any in-place op."""
    parts = split_values(values)
    if parts is None:
        return NOT_TRACEABLE
    tn, tv, inames, ivals, fn, fv = parts
    res = _torch._torch.ops.dslc.kernel_call(
        key_of(kernel), ",".join(tn), tv, ",".join(inames), ivals,
        ",".join(fn), fv)
    outs, updated = res[:len(res) - len(tv)], res[len(res) - len(tv):]
    for t, u in zip(tv, updated):
        if u.shape == t.shape:      # shapes are static: no data branch
            t.copy_(u)
    # what the kernel's `return` gives, from its outputs and arguments (the
    # op's fake implementation, run while tracing the op, recorded the
    # metadata's part of it)
    names, md = _return_plans.get(
        key_of(kernel), ([f"#{i}" for i in range(len(outs))], None))
    if md is None:      # (not traced through the fake: the outputs made)
        md = {"outputs": [{"name": n} for n in names]}
    return _roles.returned(md, dict(zip(names, outs)), dict(zip(tn, tv)))


def _metadata(kernel, values):
    import json
    rank, world = kernel.rank_and_world()
    signature, shapes, defines, _ = kernel._request(values, rank, world)
    cubin = kernel._compile(values, signature, shapes, defines, rank, world)
    with open(cubin + ".json") as f:
        return json.load(f), shapes


def _updated(tensor_names, values, written_names, fresh):
    """Per tensor argument: `fresh(t)` when the kernel writes it, else an
    empty tensor (a shape no argument of the call has... unless empty)."""
    return [fresh(values[n]) if n in written_names else values[n].new_empty(0)
            for n in tensor_names]


def fake_outputs(kernel, values, tensor_names):
    """The op's results in fake mode (no GPU work): the call's outputs,
    shaped from the compiled kernel's metadata, then the updated copies."""
    md, shapes = _metadata(kernel, values)
    _, world = kernel.rank_and_world()
    given = dict(shapes)
    for name, v in values.items():
        if not _is_tensor(v):
            given[name] = ()
    like = next(v for v in values.values() if _is_tensor(v))
    outs, names = [], []
    for f in _roles.plan_fills(md, world, given, None, kernel.collective):
        if f.per_call:
            outs.append(like.new_empty(
                f.shape, dtype=_torch.torch_dtype(f.arg.dtype)))
            names.append(f.name)
    _return_plans[key_of(kernel)] = (names, return_part(md))
    return outs + _updated(tensor_names, values, written(kernel, values),
                           lambda t: t.new_empty(t.shape))


def return_part(md):
    """What _roles.returned reads of metadata `md` (kept per kernel)."""
    part = {"outputs": md.get("outputs", []),
            "params": [p for p in md.get("params", [])
                       if p.get("role") == "output"]}
    if md.get("returns") is not None:
        part["returns"] = md["returns"]
    return part


def values_of(values, originals, t):
    """The written copy that stands for the caller's tensor `t`."""
    for n, o in originals.items():
        if o is t:
            return values[n]
    raise AssertionError("dslc::kernel_call: a written tensor was lost")


def register():
    """Registers dslc::kernel_call (once, when torch is present)."""
    global _registered
    if _registered:
        return
    torch = _torch.torch("dslc::kernel_call")
    from typing import List

    @torch.library.custom_op("dslc::kernel_call", mutates_args=(),
                             device_types="cuda")
    def _kernel_call(key: str, tensor_names: str,
                     tensors: List[torch.Tensor], int_names: str,
                     ints: List[int], float_names: str,
                     floats: List[float]) -> List[torch.Tensor]:
        k = _kernels.get(key)
        if k is None:
            raise InvalidArgumentError(
                f"dslc::kernel_call: no kernel {key} in this process")
        values = _values(tensor_names, tensors, int_names, ints, float_names,
                         floats)
        names = _names(tensor_names)
        originals = dict(values)
        writes = written(k, values)
        for n in writes:          # the op is functional: write copies
            values[n] = values[n].clone()
        outs = list(k._call_values(values, made=True).values())
        return outs + _updated(names, originals, writes,
                               lambda t: values_of(values, originals, t))

    @_kernel_call.register_fake
    def _(key, tensor_names, tensors, int_names, ints, float_names, floats):
        return fake_outputs(_kernels[key],
                            _values(tensor_names, tensors, int_names, ints,
                                    float_names, floats),
                            _names(tensor_names))

    _registered = True
