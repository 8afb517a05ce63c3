"""dslc.kernel: a DSL kernel called on torch tensors. Compiled on first call
for this rank, world size, dtypes and shapes (disk cache: _compile.py),
loaded once per shape, its pads / scratch / workspaces / outputs allocated
from the metadata (_roles.py), launched on torch's current stream."""

import os
import sys

from . import _kernel_op, _comm, _compile, _roles, _torch, _tune_caller
# _Instance and dim_order are also read from here (the Helion stand-in,
# the tuner's caller, tests)
from ._instance import _Instance, _read_metadata
from ._source import Source
from ._tensors import (TensorSpec, _annotated_as, _is_symm_handle,
                       _is_tensor, _is_tensor_tuple, _layout, _layout_text,
                       _numel, dim_order)
from .errors import InvalidArgumentError, KernelError, NeedsTorchError

# Most fast keys a kernel keeps (Kernel._fast_key): past it they are
# dropped, not the instances.
_MAX_FAST_KEYS = 1024


def _arg_key(v, constexpr, tensor):
    """One argument's part of Kernel._fast_key (`tensor`: torch.Tensor);
    False where the call must take the full path."""
    kind = type(v)
    if kind is tensor:
        if v.requires_grad:
            return False
        return (v.dtype, v.shape, v.stride(), v.device)
    if kind is bool or kind is int or kind is float:
        return (kind, v) if constexpr else kind
    return None if v is None else False


__all__ = ["Kernel", "TensorSpec", "check_errors", "dim_order", "kernel",
           "synchronize"]

_AUTO_CONSTEXPRS = {"my_rank": "rank", "rank": "rank",
                    "world_size": "world"}


class Kernel:
    """A DSL kernel; call it like the Helion kernel it is. See
    docs/python.md."""

    def __init__(self, source, *, config=None, autotune=False,
                 collective=None, reference=None, timeout_ms=None,
                 dslc_args=(), verbose=None, tolerance=None):
        self.source = source
        self.name = source.name
        self.params = source.params
        self.config = config
        self.autotune = autotune
        self.collective = collective
        self.reference = _compile.resolve_reference(source, reference)
        if tolerance is not None and (
                not isinstance(tolerance, (tuple, list)) or
                len(tolerance) != 2 or
                not all(isinstance(t, (int, float)) and t >= 0
                        for t in tolerance)):
            raise InvalidArgumentError(
                f"dslc.kernel({self.name}): tolerance= is (rtol, atol), two "
                f"numbers >= 0, got {tolerance!r}")
        self.tolerance = tuple(tolerance) if tolerance is not None else None
        # What the last autotune did (_tune_caller.tune_calls), and a size
        # whose tuned config every compile takes from the tuning cache (set
        # by a caller that tuned the kernel itself: a host-code wrapper).
        self.last_tuning = None
        self.config_from_cache_size = None
        # ... and whether it was tuned per shape (the entry of each call's
        # shapes, not only of its size bucket)
        self.config_from_cache_per_shape = False
        self.timeout_ms = -1 if timeout_ms is None else int(timeout_ms)
        self.dslc_args = tuple(dslc_args)
        self.verbose = bool(os.environ.get("DSLC_VERBOSE")) \
            if verbose is None else verbose
        if autotune and self.reference is None and collective not in (
                "all_reduce", "reduce_scatter", "all_gather"):
            raise InvalidArgumentError(
                f"dslc.kernel({self.name}): autotune=True needs "
                f"collective='all_reduce' | 'reduce_scatter' | 'all_gather' "
                f"(the tuner measures a kernel as that collective) or "
                f"reference='FILE.py:NAME' (any kernel: a DSL kernel "
                f"computing the same, which the tuner checks every config "
                f"against at the call's shapes) or reference=FUNCTION (a "
                f"PyTorch function of the same arguments, returning what "
                f"the kernel returns)")
        self._instances = {}
        # A call's fast key (_fast_key) -> the instance its first call
        # found: later calls like it skip the argument checks.
        self._fast = {}
        self._constexpr = [p.kind == "constexpr" for p in self.params]
        self._by_name = {p.name: i for i, p in enumerate(self.params)}
        _kernel_op.key_of(self)
        if "torch" in sys.modules:
            _eager_call()     # made now, not while torch.compile traces
            _kernel_op.register()

    def __repr__(self):
        return f"<dslc.Kernel {self.name} from {self.source.origin}>"

    def _log(self, msg):
        if self.verbose:
            print(f"dslc: {msg}", file=sys.stderr, flush=True)

    # -- arguments ---------------------------------------------------------
    def _map_args(self, args, kwargs):
        """Values of the DSL parameters by name (absent: not passed)."""
        if len(args) > len(self.params):
            raise InvalidArgumentError(
                f"kernel {self.name} takes {len(self.params)} parameters "
                f"({', '.join(p.name for p in self.params)}), "
                f"{len(args)} given")
        for k, v in kwargs.items():
            if k not in self._by_name and "." in k:
                raise InvalidArgumentError(
                    f"kernel {self.name}: '{k}' is a parameter dslc adds "
                    f"(the signal pad a table passed to symm_mem_sync points "
                    f"at): the package allocates it, or takes it from the "
                    f"table's symmetric-memory handle; pass nothing for it")
            if k not in self._by_name and not _is_tensor(v):
                raise InvalidArgumentError(
                    f"kernel {self.name} has no parameter '{k}' (its "
                    f"parameters: {', '.join(p.name for p in self.params)})")
            # Any other name with a tensor: an output the caller passes
            # (checked against the metadata's outputs once compiled).
            if self._by_name.get(k, len(args)) < len(args):
                raise InvalidArgumentError(
                    f"kernel {self.name}: parameter '{k}' given twice")
        return self._passed(args, kwargs)

    def _passed(self, args, kwargs):
        """The call's values by name (positional, then keywords), those
        given as None (not passed) left out; unchecked (_map_args checks,
        a fast-path call was checked when its key was made)."""
        values = {p.name: v for p, v in zip(self.params, args)}
        values.update(kwargs)
        return {k: v for k, v in values.items() if v is not None}

    def _request(self, values, rank, world):
        """(CompileRequest, instance key, shapes of tensors passed)."""
        signature, shapes, defines, key = {}, {}, {}, []
        passed = {}                     # tensor parameter -> dtype given
        for p in self.params:
            v = values.get(p.name)
            if p.kind == "constexpr":
                auto = _AUTO_CONSTEXPRS.get(p.name)
                if auto is not None:
                    want = rank if auto == "rank" else world
                    if v is not None and v != want:
                        raise InvalidArgumentError(
                            f"kernel {self.name}: {p.name}={v} given, but "
                            f"this process is rank {rank} of {world}")
                    continue
                if isinstance(v, (bool, int, float)):
                    defines[p.name] = v
                key.append(("c", p.name, v if isinstance(
                    v, (bool, int, float)) else None))
                continue
            if v is None:
                key.append(("-", p.name))
                continue
            if p.kind == "tuple" and _is_tensor_tuple(v):
                if len(v) != world:
                    raise InvalidArgumentError(
                        f"kernel {self.name}: parameter '{p.name}' is a "
                        f"tuple of every rank's copy; {len(v)} tensors "
                        f"given for a world of {world}")
                v = v[rank]             # this rank's copy: dtype and shape
            if isinstance(v, TensorSpec) or _is_tensor(v):
                dt = v.dtype_name if isinstance(v, TensorSpec) else \
                    _torch.dtype_name(v.dtype)
                order, shape = _layout(v) if p.kind != "tuple" else \
                    (None, tuple(int(s) for s in v.shape))
                if order is False:
                    raise InvalidArgumentError(
                        f"kernel {self.name}: parameter '{p.name}' is not "
                        f"contiguous, nor a transpose or permutation of a "
                        f"contiguous tensor (shape {tuple(v.shape)}, strides "
                        f"{tuple(v.stride())}): call .contiguous()")
                passed[p.name] = dt
                if not _annotated_as(p, dt, len(shape)):
                    signature[p.name] = f"{dt}[{len(shape)}]"
                # a permuted tensor is compiled for and bound as stored
                shapes[p.name] = shape
                key.append(("t", p.name, dt, shape, order))
            elif _is_symm_handle(v):
                key.append(("h", p.name))
            elif isinstance(v, (bool, int, float)):
                key.append(("s", p.name, type(v).__name__))
            else:
                raise InvalidArgumentError(
                    f"kernel {self.name}: parameter '{p.name}' got a "
                    f"{type(v).__name__}; expected a tensor, a number or a "
                    f"symmetric-memory handle")
        self._check_dtypes(passed)
        self._follow_data_dtype(values, signature)
        return signature, shapes, defines, tuple(key)

    def _check_dtypes(self, passed):
        """The kernel is compiled for the dtype its data is passed in: the
        parameters annotated with one floating dtype are retyped together.
        A call that passes them in different dtypes, or passes an integer
        tensor for one, would compile a kernel mixing types its source
        never mixes: refused, naming the parameters."""
        first = {}                      # annotated dtype -> (param, given)
        explicit = _signature_names(self.dslc_args)
        for p in self.params:
            dt = passed.get(p.name)
            if dt is None or p.dtype not in _roles.FLOATING or \
                    p.name in explicit:
                continue
            if dt not in _roles.FLOATING:
                raise InvalidArgumentError(
                    f"kernel {self.name}: parameter '{p.name}' is annotated "
                    f"{p.dtype}, but a {dt} tensor was given (pass a "
                    f"floating tensor: .to(torch.{p.dtype}))")
            name, given = first.setdefault(p.dtype, (p.name, dt))
            if given != dt:
                raise InvalidArgumentError(
                    f"kernel {self.name}: parameters '{name}' and "
                    f"'{p.name}' are both annotated {p.dtype}, but '{name}' "
                    f"was given as {given} and '{p.name}' as {dt}: the "
                    f"kernel is compiled for its data's dtype, so pass them "
                    f"in one dtype (convert with .to()), or retype them "
                    f"explicitly with dslc_args=('--signature', "
                    f"'{p.name}={dt}[{p.rank}]')")

    def _follow_data_dtype(self, values, signature):
        """Parameters left out whose annotation has the data's annotated
        dtype take the dtype the data was passed with (an output `out:
        torch.Tensor[torch.bfloat16, 1]` becomes float32 when the input
        is), as the build retypes examples with --signature."""
        for p in self.params:
            if p.kind != "tensor" or p.name not in signature or \
                    p.dtype not in _roles.FLOATING:
                continue
            passed = signature[p.name].split("[")[0]
            if passed == p.dtype:
                return
            for q in self.params:
                if q.name not in values and q.kind == "tensor" and \
                        q.dtype == p.dtype and q.rank is not None:
                    signature[q.name] = f"{passed}[{q.rank}]"
            return

    def compile(self, *args, rank=None, world_size=None, **kwargs):
        """Compiles (or finds in the cache) the cubin for these arguments
        without a GPU; tensors may be TensorSpec(dtype, shape). rank and
        world_size default to the communicator's. Returns its path."""
        if rank is None or world_size is None:
            comm = _comm.default()
            rank, world_size = comm.rank, comm.world_size
        values = self._map_args(args, kwargs)
        signature, shapes, defines, _ = self._request(values, rank,
                                                      world_size)
        return self._compile(values, signature, shapes, defines, rank,
                             world_size)

    def tune(self, *args, force=False, budget_s=None, **kwargs):
        """Tunes the kernel now at these arguments against its callable
        reference (what autotune=True does at a call whose shapes the
        cache lacks): `force` re-tunes what the cache has, `budget_s`
        bounds the search (the tuner's --budget-s). Returns what the tuning
        did ({"seconds", "measured", "wrong"}; None: cached)."""
        if not callable(self.reference):
            raise InvalidArgumentError(
                f"kernel {self.name}: tune() measures against a callable "
                f"reference (dslc.kernel(..., reference=FUNCTION))")
        comm = _comm.default()
        values = self._map_args(args, kwargs)
        signature, shapes, defines, _ = self._request(values, comm.rank,
                                                      comm.world_size)
        tuner_args = (["--force"] if force else []) + (
            ["--budget-s", str(budget_s)] if budget_s is not None else [])
        self._tune(values, signature, shapes, defines, comm.world_size,
                   tuner_args)
        self._release()       # instances of configs from before
        return self.last_tuning

    def _tune(self, values, signature, shapes, defines, world, tuner_args=()):
        """Tunes at this call's shapes against the reference, unless the
        cache has them; returns the size the cache's entry is keyed by (the
        largest input's)."""
        dt, _ = self._data_of(values)
        n = max((_numel(s) for s in shapes.values()), default=1)
        scalars = {p.name: values[p.name] for p in self.params
                   if p.kind == "scalar" and
                   isinstance(values.get(p.name), (int, float))}
        if callable(self.reference):
            # a PyTorch reference: this process measures (the tuner searches
            # and caches)
            if any(isinstance(v, TensorSpec) for v in values.values()):
                raise InvalidArgumentError(
                    f"kernel {self.name}: autotune=True with a callable "
                    f"reference measures on the call's tensors: call the "
                    f"kernel (compile() has only their specs)")
            _tune_caller.tune(self, values, shapes=shapes,
                              signature=signature, defines=defines,
                              scalars=scalars, world=world, dtype=dt, n=n,
                              tuner_args=tuner_args, log=self._log,
                              extra_args=[*self.dslc_args,
                                          *self._layout_args(values)])
        else:
            _compile.autotune_with_reference(
                self.source, self.reference, world, dt, n, shapes=shapes,
                signature=signature, defines=defines, scalars=scalars,
                extra_args=[*self.dslc_args, *self._layout_args(values)],
                log=self._log)
        return n

    def _layout_args(self, values):
        """dslc's --dim-order for the call's tensors stored permuted (a
        transposed weight, y.T.contiguous().T)."""
        args = []
        for p in self.params:
            v = values.get(p.name)
            if p.kind == "tensor" and (isinstance(v, TensorSpec) or
                                       _is_tensor(v)):
                order, _ = _layout(v)
                if order:
                    args += ["--dim-order", f"{p.name}={_layout_text(order)}"]
        return args

    def _compile(self, values, signature, shapes, defines, rank, world):
        from_cache = self.config_from_cache_size
        # a kernel tuned per shape (with a reference) reads the entry of the
        # call's shapes
        from_cache_shapes = shapes if self.config_from_cache_per_shape \
            else None
        if self.autotune and self.reference is not None:
            # Any kernel: tuned at this call's shapes against its reference
            from_cache = self._tune(values, signature, shapes, defines, world)
            from_cache_shapes = shapes
        elif self.autotune:
            dt, n = self._data_of(values)
            _compile.autotune(self.source, self.collective, world, dt, n,
                              log=self._log)
            from_cache = n
        req = _compile.CompileRequest(
            self.source, rank, world, signature, shapes, defines,
            config=self.config, config_from_cache_size=from_cache,
            extra_args=[*self.dslc_args, *self._layout_args(values)],
            config_from_cache_shapes=from_cache_shapes)
        return _compile.compile_kernel(req, log=self._log)

    def _data_of(self, values):
        """(dtype name, element count) of the first floating tensor."""
        for p in self.params:
            v = values.get(p.name)
            if v is not None and (_is_tensor(v) or isinstance(v, TensorSpec)):
                dt = v.dtype_name if isinstance(v, TensorSpec) else \
                    _torch.dtype_name(v.dtype)
                if dt in _roles.FLOATING:
                    n = 1
                    for s in v.shape:
                        n *= int(s)
                    return dt, n
        raise InvalidArgumentError(
            f"kernel {self.name}: autotune needs a floating tensor argument "
            f"(the collective's data)")

    # -- calls ---------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        t = _torch._torch
        if t is not None and t.compiler.is_compiling():
            # one op in the traced graph (fullgraph holds); arguments the
            # op cannot carry run eagerly (a graph break)
            out = _kernel_op.call(self, self._map_args(args, kwargs))
            if out is not _kernel_op.NOT_TRACEABLE:
                return out
            return _eager_call()(self, *args, **kwargs)
        return self._call(*args, **kwargs)

    def rank_and_world(self):
        comm = _comm.default()
        return comm.rank, comm.world_size

    def _call(self, *args, **kwargs):
        fast = self._fast_key(args, kwargs)
        if fast is not None:
            inst = self._fast.get(fast)
            if inst is not None and inst.handle:
                return inst.launch_bound(self._passed(args, kwargs))
        values = self._map_args(args, kwargs)
        inst = self._instance_for(values)
        if fast is not None:
            if len(self._fast) >= _MAX_FAST_KEYS:
                self._fast.clear()  # keys that never repeat (a NaN)
            self._fast[fast] = inst
        return inst.launch(values)

    def _fast_key(self, args, kwargs):
        """What a call's instance and binding depend on: each tensor's
        dtype, shape, strides and device (a plain torch.Tensor that needs
        no grad), each constexpr's value, each other scalar's type, the
        names given by keyword, and the communicator; None for a call the
        full path must see (other argument kinds, too many arguments, a
        keyword that is no parameter (an output passed by name) or repeats
        a positional one)."""
        t = _torch._torch
        if t is None or len(args) > len(self.params):
            return None
        comm = _comm._default
        if comm is None:
            return None
        key = [id(comm)]
        tensor = t.Tensor
        for v, constexpr in zip(args, self._constexpr):
            k = _arg_key(v, constexpr, tensor)
            if k is False:
                return None
            key.append(k)
        for name in sorted(kwargs):
            i = self._by_name.get(name)
            if i is None or i < len(args):
                return None
            k = _arg_key(kwargs[name], self._constexpr[i], tensor)
            if k is False:
                return None
            key.append((name, k))
        return tuple(key)

    def _call_values(self, values, made=False):
        return self._instance_for(values).launch(values, made)

    def _instance_for(self, values):
        """The instance a call with `values` launches (compiled and loaded
        at the first call with its shapes)."""
        comm = _comm.default()
        t = _torch._torch
        if t is not None and t.is_grad_enabled():
            for name, v in values.items():
                if _is_tensor(v) and v.requires_grad:
                    raise InvalidArgumentError(
                        f"kernel {self.name}: parameter '{name}' requires "
                        f"grad, but dslc kernels are forward-only (no "
                        f"backward is defined): call under torch.no_grad() "
                        f"or pass .detach()")
        signature, shapes, defines, key = self._request(
            values, comm.rank, comm.world_size)
        # Outputs passed by name: bound as given, not allocated. The
        # kernel is compiled for its parameters alone (an output is no
        # parameter: dslc sizes it, and refuses --shape for it); the
        # instance binds the outputs at their shapes.
        given_outputs = {k: v for k, v in values.items()
                         if k not in self._by_name}
        params, call_shapes = values, shapes
        if given_outputs:
            params = {k: v for k, v in values.items() if k in self._by_name}
            call_shapes = dict(shapes)
            call_shapes.update({k: tuple(v.shape)
                                for k, v in given_outputs.items()})
            key = (key, tuple(sorted((k, tuple(v.shape))
                                     for k, v in given_outputs.items())))
        inst = self._instances.get(key)
        if inst is None:
            if _torch.capturing():
                raise InvalidArgumentError(
                    f"kernel {self.name}: first call with these shapes during "
                    f"CUDA graph capture; call it once before capturing (it "
                    f"compiles, loads and allocates its pads then)")
            cubin = self._compile(params, signature, shapes, defines,
                                  comm.rank, comm.world_size)
            outputs = [o["name"] for o in _read_metadata(cubin)
                       .get("outputs", [])]
            for k in given_outputs:
                if k not in outputs:
                    raise InvalidArgumentError(
                        f"kernel {self.name} has no parameter or output "
                        f"'{k}' (its parameters: "
                        f"{', '.join(p.name for p in self.params)}; its "
                        f"outputs: {', '.join(outputs) or 'none'})")
            inst = _Instance(self, comm, cubin, values, call_shapes)
            self._instances[key] = inst
        return inst

    def synchronize(self):
        """Waits for torch's current stream; a kernel error record becomes a
        KernelError (with file:line:col, rank and slot)."""
        synchronize()

    def _release(self):
        for inst in self._instances.values():
            inst.release()
        self._instances.clear()
        self._fast.clear()


def _signature_names(dslc_args):
    """The parameters a user's --signature in dslc_args retypes."""
    names, args = set(), list(dslc_args)
    for i, a in enumerate(args):
        text = a[len("--signature="):] if a.startswith("--signature=") else \
            args[i + 1] if a == "--signature" and i + 1 < len(args) else None
        for item in (text or "").split(","):
            if "=" in item:
                names.add(item.split("=", 1)[0].strip())
    return names


_eager = None


def _eager_call():
    """Kernel._call hidden from torch.compile (torch.compiler.disable),
    what a call traced by dynamo runs: the traced function's graph breaks
    there and the call runs eagerly (the launch goes to the stream all the
    same). Eager calls skip the wrapper."""
    global _eager
    if _eager is None:
        fn = Kernel._call
        try:
            t = _torch.torch()
        except NeedsTorchError:
            t = None
        if t is not None and hasattr(t, "compiler") and \
                hasattr(t.compiler, "disable"):
            fn = t.compiler.disable(fn, recursive=True)
        _eager = fn
    return _eager


def check_errors():
    """Raises KernelError when a kernel of this process left an error
    record (a wait that timed out, an index outside its tensor)."""
    if not _comm.initialized():
        return
    for k in list(_comm.default()._kernels):
        for inst in list(k._instances.values()):
            if inst.handle:
                inst.check()


def synchronize():
    """torch.cuda.synchronize() on the communicator's GPU, turning a kernel
    error record into a KernelError (the CUDA error of the trapped launch is
    its __cause__)."""
    t = _torch.torch("dslc.synchronize")
    dev = _comm.default().device
    try:
        t.cuda.synchronize(dev)
    except RuntimeError as e:
        try:
            check_errors()
        except KernelError as k:
            raise k from e
        raise
    check_errors()


def kernel(target=None, name=None, *, source=None, config=None,
           autotune=False, collective=None, reference=None, timeout_ms=None,
           dslc_args=(), verbose=None, tolerance=None):
    """A DSL kernel callable on torch tensors.

    dslc.kernel("file.py", "name")          a kernel of a file
    dslc.kernel(source=TEXT, name="name")   of a source string
    @dslc.kernel / @dslc.kernel(config=...) on a Python function whose body
                                            is the DSL kernel
    """
    opts = dict(config=config, autotune=autotune, collective=collective,
                reference=reference, timeout_ms=timeout_ms,
                dslc_args=dslc_args, verbose=verbose, tolerance=tolerance)
    if source is not None:
        return Kernel(Source.from_string(source, name), **opts)
    if isinstance(target, (str, os.PathLike)):
        return Kernel(Source.from_file(os.fspath(target), name), **opts)
    if callable(target):
        return Kernel(Source.from_function(target), **opts)
    if target is None:
        return lambda fn: Kernel(Source.from_function(fn), **opts)
    raise InvalidArgumentError(
        f"dslc.kernel: expected a file name, source= or a function, got "
        f"{type(target).__name__}")
