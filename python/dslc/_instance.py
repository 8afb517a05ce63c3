"""_Instance: one loaded cubin of a dslc.kernel with its arguments object,
the pads, scratch and outputs its metadata asks for (_roles.py), bound
and launched on torch's current stream."""

import ctypes
import json

from . import _capi, _comm, _roles, _torch
from ._tensors import _is_symm_handle, _is_tensor, _is_tensor_tuple, _layout
from .errors import InvalidArgumentError, KernelError, KernelRecord

def _read_metadata(cubin):
    with open(cubin + ".json") as f:
        return json.load(f)


class _Instance:
    """One loaded cubin with its arguments object and filled buffers."""

    def __init__(self, kernel, comm, cubin, values, shapes, metadata=None):
        """`metadata`: a metadata file to load instead of the cubin's own
        (the tuner's grid cap written into a copy)."""
        self.kernel, self.comm = kernel, comm
        self.lib = lib = _capi.load()
        self.cubin = cubin
        with open(metadata or cubin + ".json") as f:
            self.md = json.load(f)
        self.origin_map = kernel.source.map_paths
        h = _capi.Handle()
        _capi.check(lib.dslcKernelLoad(comm._h, cubin.encode(),
                                       metadata.encode() if metadata else None,
                                       kernel.timeout_ms, ctypes.byref(h)),
                    f"dslc: loading kernel {kernel.name}")
        self.handle = h
        comm._kernels.add(kernel)
        a = _capi.Handle()
        _capi.check(lib.dslcArgsCreate(h, 0, ctypes.byref(a)))
        self.args = a
        self.c_args = {}        # _set_tensor's encoded arguments
        self.keep = []          # buffers the launch uses
        # name -> what was bound last (a tensor: ptr, shape, peers, dtype)
        self.last = {}
        self.outputs = []       # (Fill, symmetric buffer tensor or None)
        self.staging = {}       # name -> symmetric copy of a plain input
        self.stream_dev = comm.device
        self.launch_fn = _capi.hot("dslcKernelLaunch")   # ints: handles' .value
        self.margs = {a.name: a for a in _roles.bindable_args(self.md)}
        # tensor arguments bound by address alone (no peers, no staging)
        self.plain = {a.name for a in self.margs.values()
                      if a.kind == "tensor" and not a.needs_symmetric and
                      not a.implicit and not a.table_of}
        self._setup(values, shapes)

    # binding helpers
    def _set_tensor(self, name, ptr, dtype, shape, peers):
        # the C arguments of a name, dtype and shape, made once
        key = (name, dtype, tuple(shape))
        c = self.c_args.get(key)
        if c is None:
            c = (name.encode(), dtype.encode(),
                 (ctypes.c_int64 * max(len(shape), 1))(*shape))
            self.c_args[key] = c
        _capi.check(self.lib.dslcArgsSetTensor(
            self.args, c[0], -1, ptr, c[1], len(shape), c[2], peers))

    def _bind_value(self, name, v):
        """Binds a caller's value; returns nothing (raises on misuse)."""
        arg = self.margs.get(name)
        if arg is None:        # a tuple or an argument the kernel dropped
            raise InvalidArgumentError(
                f"kernel {self.kernel.name}: parameter '{name}' is not an "
                f"argument of the compiled kernel")
        if arg.implicit:
            raise InvalidArgumentError(
                f"kernel {self.kernel.name}: '{name}' is a signal pad dslc "
                f"adds for symm_mem_sync, not an argument: pass nothing for "
                f"it")
        pad = self.margs.get(arg.table_of) if arg.table_of else None
        if pad is not None and pad.implicit and not _is_symm_handle(v):
            raise InvalidArgumentError(
                f"kernel {self.kernel.name}: parameter '{name}' is the table "
                f"of symm_mem_sync's signal pads, whose local pad ('{pad.name}')"
                f" dslc binds with it: pass the symmetric-memory handle "
                f"(symm_mem.rendezvous(...), its signal pads) or nothing "
                f"(dslc allocates both), not a tensor of addresses")
        if isinstance(v, (bool, int, float)) and not _is_tensor(v):
            fn = self.lib.dslcArgsSetFloat if arg.kind == "float" else \
                self.lib.dslcArgsSetInt
            _capi.check(fn(self.args, name.encode(), -1, v))
            return
        if _is_symm_handle(v):
            self._bind_handle(arg, v)
            return
        what = f"kernel {self.kernel.name}: parameter '{name}'"
        if _is_tensor_tuple(v):
            self._bind_tuple(arg, v, what)
            return
        if v.get_device() != self.comm.device:
            raise InvalidArgumentError(
                f"{what} is on {v.device}, the communicator on cuda:"
                f"{self.comm.device}")
        order, stored = _layout(v)
        if order != arg.dim_order:
            raise InvalidArgumentError(
                f"{what} is " + (f"stored with dim order {order} (strides "
                                 f"{tuple(v.stride())})" if order else
                                 "contiguous" if order is None else
                                 f"not contiguous (strides "
                                 f"{tuple(v.stride())})") +
                ", but the kernel was compiled for " +
                (f"dim order {arg.dim_order}" if arg.dim_order else
                 "a contiguous tensor") + " (call .contiguous())")
        dt = _torch.dtype_name(v.dtype)
        if arg.dtype == "uint64" and dt == "int64":
            dt = "uint64"            # a table of addresses either way
        peers = None
        if arg.symmetric:
            peers = self._peers_or_staging(arg, v, what)
            if isinstance(peers, tuple):   # staged copy: (tensor, peers)
                stage, peers = peers
                stage.copy_(v)
                v = stage
        ptr, shape = v.data_ptr(), stored
        state = (ptr, shape, peers, dt)
        if self.last.get(name) != state:
            self._set_tensor(name, ptr, dt, shape, peers)
            self.last[name] = state

    def _bind_tuple(self, arg, copies, what):
        """A tuple of every rank's copy of a symmetric tensor (what
        torch.ops.symm_mem.get_remote_tensors returns): this rank's copy
        and a device table of the copies' addresses (made once per set of
        addresses, checked by the runtime)."""
        if not arg.symmetric:
            raise InvalidArgumentError(
                f"{what} is not a tuple parameter of the compiled kernel; "
                f"pass one tensor")
        mine = copies[self.comm.rank]
        ptrs = tuple(int(t.data_ptr()) for t in copies)
        for t in copies:
            if tuple(t.shape) != tuple(mine.shape) or t.dtype != mine.dtype:
                raise InvalidArgumentError(
                    f"{what}: the copies differ in shape or dtype "
                    f"({tuple(t.shape)} {t.dtype} vs {tuple(mine.shape)} "
                    f"{mine.dtype})")
        if not mine.is_contiguous():
            raise InvalidArgumentError(f"{what}: this rank's copy is not "
                                       f"contiguous")
        nbytes = mine.numel() * mine.element_size()
        peers = self.comm.table_of_addresses(ptrs, nbytes, what)
        state = (ptrs, tuple(mine.shape))
        if self.last.get(arg.name) != state:
            self._set_tensor(arg.name, ptrs[self.comm.rank],
                             _torch.dtype_name(mine.dtype), tuple(mine.shape),
                             peers)
            self.last[arg.name] = state

    def _peers_or_staging(self, arg, v, what):
        stage = self.staging.get(arg.name)
        if stage is None or stage[2] != v.data_ptr():
            try:
                return self.comm.peer_table(v, what)
            except InvalidArgumentError:
                if arg.role != _roles.INPUT:
                    raise
        if stage is None or tuple(stage[0].shape) != tuple(v.shape):
            if _torch.capturing():
                raise InvalidArgumentError(
                    f"{what}: a plain tensor passed as a symmetric input is "
                    f"copied into symmetric memory, made on the first call; "
                    f"make that call before capturing")
            t = _comm.empty(tuple(v.shape), v.dtype)
            stage = (t, self.comm.peer_table(t, what))
        # remember which plain tensor this is: no lookup next time
        self.staging[arg.name] = (stage[0], stage[1], v.data_ptr())
        return stage[0], stage[1]

    def _bind_handle(self, arg, h):
        """PyTorch symmetric memory handle for a pad or a peer table."""
        world = self.comm.world_size
        if arg.role == _roles.PEER_TABLE:
            target = self.margs.get(arg.table_of)
            dev = h.signal_pad_ptrs_dev if target is not None and \
                target.role == _roles.SIGNAL_PAD else h.buffer_ptrs_dev
            self._set_tensor(arg.name, int(dev), "uint64", (world,), None)
            self.last[arg.name] = None
            if target is not None and target.implicit:
                # the local pad the table lists: this handle's own
                self.handle_pads = getattr(self, "handle_pads", {})
                self.handle_pads[target.name] = h
            return
        if arg.role == _roles.SIGNAL_PAD:
            self.handle_pads = getattr(self, "handle_pads", {})
            self.handle_pads[arg.name] = h
            return                      # bound in _setup once tiles are known
        raise InvalidArgumentError(
            f"kernel {self.kernel.name}: parameter '{arg.name}' ({arg.role}) "
            f"cannot take a symmetric-memory handle; pass a tensor")

    def _alloc(self, fill):
        t = _torch.torch()
        dtype = _torch.torch_dtype(fill.arg.dtype)
        if fill.symmetric:
            x = _comm.empty(fill.shape, dtype, zero=fill.zero)
            return x, self.comm.peer_table(x, f"parameter '{fill.name}'")
        dev = t.device("cuda", self.comm.device)
        x = (t.zeros if fill.zero else t.empty)(fill.shape, dtype=dtype,
                                                device=dev)
        return x, None

    def _setup(self, values, shapes):
        k = self.kernel
        world = self.comm.world_size
        for name, v in values.items():
            if name in self.margs:
                self._bind_value(name, v)
        given = dict(shapes)
        for a in self.margs.values():
            if a.role == _roles.SCALAR and a.name not in values and \
                    a.default is not None:
                self._bind_value(a.name, a.default)   # the source's default
                given[a.name] = ()
        for name, v in values.items():
            if _is_symm_handle(v) or (isinstance(v, (bool, int, float)) and
                                      not _is_tensor(v)):
                given[name] = ()
        for name in getattr(self, "handle_pads", {}):
            given[name] = ()      # an implicit pad bound from its table's
        fills = _roles.plan_fills(self.md, world, given, None, k.collective)
        self.tables = {}
        for f in fills:
            if f.table_of is not None:
                continue
            x, peers = self._alloc(f)
            self.tables[f.name] = peers
            if f.per_call:
                self.outputs.append((f, x if f.symmetric else None))
            else:
                self.keep.append(x)
            self._set_tensor(f.name, x.data_ptr(), f.arg.dtype, f.shape, peers)
        tiles = ctypes.c_int64()
        _capi.check(self.lib.dslcArgsNumTiles(self.args, ctypes.byref(tiles)),
                    f"kernel {k.name}: counting tiles")
        self.num_tiles = tiles.value

        def contract_shape(name):
            return _capi.fill_shape(self.cubin + ".json", name, world,
                                    self.num_tiles)

        for name, h in getattr(self, "handle_pads", {}).items():
            arg = self.margs[name]
            shape = list(contract_shape(name))
            pad = h.get_signal_pad(h.rank, shape,
                                   dtype=_torch.torch_dtype(arg.dtype))
            self.keep.append(pad)
            self._set_tensor(name, pad.data_ptr(), arg.dtype, tuple(shape),
                             None)
            given[name] = tuple(shape)
        fills = _roles.plan_fills(self.md, world, given, contract_shape,
                                  k.collective)
        for f in fills:
            if f.arg.role in (_roles.SIGNAL_PAD, _roles.SCRATCH):
                x, peers = self._alloc(f)
                self.tables[f.name] = peers
                self.keep.append(x)
                self._set_tensor(f.name, x.data_ptr(), f.arg.dtype, f.shape,
                                 peers)
        for f in fills:
            if f.table_of is None:
                continue
            peers = self.tables.get(f.table_of)
            if peers is None and f.table_of in self.staging:
                peers = self.staging[f.table_of][1]   # a staged input's
            if peers is None:
                v = values.get(f.table_of)
                if v is None or not _is_tensor(v):
                    raise InvalidArgumentError(
                        f"kernel {k.name}: parameter '{f.name}' lists the "
                        f"copies of '{f.table_of}', which was neither passed "
                        f"as a tensor nor filled in")
                peers = self.comm.peer_table(v, f"parameter '{f.table_of}'")
            self._set_tensor(f.name, peers, f.arg.dtype, (world,), None)
        _capi.check(self.lib.dslcArgsCheck(self.args),
                    f"dslc: kernel {k.name}")

    def launch(self, values, made=False):
        """Launches on torch's current stream; returns what the kernel's
        `return` gives (_roles.returned), or with `made` the outputs the
        call made (name -> tensor, in the kernel's order)."""
        for name, v in values.items():
            if name in self.margs and not _is_symm_handle(v):
                self._bind_value(name, v)
        return self._run(values, made)

    def launch_bound(self, values):
        """launch() of a call whose tensors have the dtypes, shapes,
        strides and device of one this instance launched with
        (Kernel._fast_key): a plain tensor already bound is only rebound
        at a new address; anything else is bound as launch() binds it."""
        last = self.last
        for name, v in values.items():
            state = last.get(name)
            if state is not None and name in self.plain:
                ptr = v.data_ptr()
                if ptr != state[0]:
                    self._set_tensor(name, ptr, state[3], state[1], None)
                    last[name] = (ptr,) + state[1:]
            elif name in self.margs and not _is_symm_handle(v):
                self._bind_value(name, v)
        return self._run(values, False)

    def _run(self, values, made):
        """Allocates the outputs and launches (the arguments bound)."""
        t = _torch._torch
        allocated = []
        for f, sym in self.outputs:
            if sym is None:
                # torch.zeros outputs (the plan's "zero" fill) start at 0
                x = (t.zeros if f.zero else t.empty)(
                    f.shape, dtype=_torch.torch_dtype(f.arg.dtype),
                    device=t.device("cuda", self.comm.device))
                self._set_tensor(f.name, x.data_ptr(), f.arg.dtype, f.shape,
                                 None)
            else:
                x = sym
                if f.zero:
                    x.zero_()
            allocated.append(x)
        stream = _torch.current_stream(self.stream_dev)
        rc = self.launch_fn(self.handle.value, 0, self.args.value, stream)
        if rc:
            _capi.check(rc, f"dslc: kernel {self.kernel.name}")
        # a symmetric output is the instance's buffer: hand out a copy
        outputs = {f.name: x.clone() if sym is not None else x
                   for x, (f, sym) in zip(allocated, self.outputs)}
        return outputs if made else _roles.returned(self.md, outputs, values)

    def records(self):
        rec = _capi.ErrorRecord()
        _capi.check(self.lib.dslcKernelErrorRecord(self.handle, 0,
                                                   ctypes.byref(rec)))
        if rec.status == 0:
            return []
        src = self.md.get("source", {}).get("file", "?")
        return [KernelRecord(self.comm.rank, self.md.get("kernel"),
                             rec.status, self.origin_map(src), rec.line,
                             rec.column, rec.cta, rec.slot, rec.expected,
                             rec.seen, rec.address)]

    def check(self):
        rc = self.lib.dslcKernelCheckErrors(self.handle)
        if rc:
            msg = self.origin_map(_capi.last_error())
            raise KernelError(msg, self.records())

    def release(self):
        if self.args:
            self.lib.dslcArgsDestroy(self.args)
            self.args = None
        if self.handle:
            self.lib.dslcKernelDestroy(self.handle)
            self.handle = None
