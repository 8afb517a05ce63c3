"""The communicator of this process, its symmetric heap and the registry of
symmetric memory (dslc's own and PyTorch's) that kernels' peer tables come
from."""

import bisect
import ctypes
import os
import threading
import weakref

from . import _capi, _torch
from .errors import InvalidArgumentError, NeedsTorchError, OutOfMemoryError

DEFAULT_HEAP_BYTES = 1 << 30   # per rank; dslc.init(heap_bytes=) or $DSLC_HEAP_BYTES
_ANCHOR_BYTES = 256

_state = threading.local()
_default = None


def _handle_out():
    return _capi.Handle()


class Region:
    """Symmetric memory [start, end) on this rank with a device table of
    every rank's address of `start` (`peers`, a device pointer) and those
    addresses on the host (`bases`)."""

    __slots__ = ("start", "end", "peers", "bases", "owner", "tables",
                 "__weakref__")

    def __init__(self, start, end, peers, bases, owner):
        self.start, self.end, self.peers, self.bases = start, end, peers, bases
        self.owner = owner      # keeps the memory alive while registered
        self.tables = {}        # offset -> device tensor of peer addresses


class SymmetricBuffer:
    """bytes of the communicator's symmetric heap, at the same offset on
    every rank. Freed (at the next allocation, after the device is idle)
    when the last tensor over it goes away."""

    def __init__(self, comm, handle, nbytes, local, peers, bases):
        self.comm, self.handle, self.nbytes = comm, handle, nbytes
        self.local, self.peers, self.bases = local, peers, bases

    def __del__(self):
        comm = self.comm
        if comm is not None and comm._h is not None and self.handle:
            comm._pending_free.append(self.handle)
            self.handle = None


class Communicator:
    """dslc's NCCL communicator for this process (one rank, one GPU)."""

    def __init__(self, handle, group=None, heap_bytes=None):
        self._h = handle
        lib = _capi.load()
        v = ctypes.c_int()
        _capi.check(lib.dslcCommWorldSize(handle, ctypes.byref(v)))
        self.world_size = v.value
        _capi.check(lib.dslcCommNumLocal(handle, ctypes.byref(v)))
        if v.value != 1:
            raise InvalidArgumentError(
                f"dslc: a Python communicator drives one GPU; this one "
                f"drives {v.value}")
        _capi.check(lib.dslcCommRank(handle, 0, ctypes.byref(v)))
        self.rank = v.value
        _capi.check(lib.dslcCommDevice(handle, 0, ctypes.byref(v)))
        self.device = v.value
        self.group = group
        self.group_name = getattr(group, "group_name", None)
        self.heap_bytes = int(heap_bytes or os.environ.get(
            "DSLC_HEAP_BYTES", DEFAULT_HEAP_BYTES))
        self._heap = None
        self._anchor = None
        self._pending_free = []
        self._regions = []          # sorted by start
        self._starts = []
        self._imported = {}         # local base address -> Region
        self._address_tables = {}   # tuple of addresses -> device table
        self._kernels = weakref.WeakSet()
        self._collectives = None

    # -- heap -------------------------------------------------------------
    def _heap_handle(self):
        if self._heap is None:
            h = _handle_out()
            _capi.check(_capi.load().dslcHeapCreate(
                self._h, self.heap_bytes, ctypes.byref(h)),
                "dslc: creating the symmetric heap")
            self._heap = h
            self._anchor = self._raw_alloc(_ANCHOR_BYTES, False)
        return self._heap

    def _raw_alloc(self, nbytes, zero):
        lib = _capi.load()
        b = _handle_out()
        _capi.check(lib.dslcHeapAlloc(self._heap, nbytes, 256, int(zero),
                                      ctypes.byref(b)))
        local, peers = ctypes.c_void_p(), ctypes.c_void_p()
        _capi.check(lib.dslcBufferLocal(b, 0, ctypes.byref(local)))
        _capi.check(lib.dslcBufferPeers(b, 0, ctypes.byref(peers)))
        return b, local.value, peers.value

    def _free_pending(self):
        if not self._pending_free:
            return
        t = _torch._torch
        if t is not None and t.cuda.is_available():
            t.cuda.synchronize(self.device)   # no kernel may still use them
        lib = _capi.load()
        while self._pending_free:
            _capi.check(lib.dslcHeapFree(self._heap, self._pending_free.pop()))

    def alloc(self, nbytes, zero=False):
        """A SymmetricBuffer of nbytes (collective: every rank allocates the
        same sizes in the same order). zero: zeroed on every rank before
        any rank returns (signal pads)."""
        if nbytes < 0:
            raise InvalidArgumentError(f"dslc: negative size {nbytes}")
        nbytes = max(int(nbytes), 16)
        self._heap_handle()
        self._free_pending()
        try:
            b, local, peers = self._raw_alloc(nbytes, zero)
        except OutOfMemoryError as e:
            raise OutOfMemoryError(
                f"{e} (the heap holds {self.heap_bytes} bytes per rank: "
                f"dslc.init(heap_bytes=...) or $DSLC_HEAP_BYTES)") from None
        self._check_same_offset(local - self._anchor[1])
        buf = SymmetricBuffer(self, b, nbytes, local, peers, None)
        # the peer addresses are read (one copy) only for an offset view
        self._register(Region(local, local + nbytes, peers, None,
                              weakref.ref(buf)))
        return buf

    def _check_same_offset(self, offset):
        """Peer tables assume a buffer sits at the same heap offset on every
        rank; different frees on different ranks would break that."""
        dist = _dist()
        if dist is None or self.world_size == 1:
            return
        t = _torch.torch()
        v = t.tensor([offset, -offset], dtype=t.int64,
                     device=t.device("cuda", self.device))
        dist.all_reduce(v, op=dist.ReduceOp.MAX, group=self.group)
        hi, lo = int(v[0]), -int(v[1])
        if hi != lo:
            raise InvalidArgumentError(
                f"dslc: rank {self.rank}: a symmetric allocation landed at "
                f"heap offsets {lo}..{hi} on different ranks: every rank must "
                f"allocate and free symmetric tensors in the same order")

    def _read_table(self, peers):
        """The world's addresses held in a device table."""
        if _torch._torch is None:
            return None
        arr = _torch.DeviceArray(peers, (self.world_size,), "int64")
        return [int(x) for x in arr.as_tensor(self.device).cpu().tolist()]

    # -- registry of symmetric memory --------------------------------------
    def _register(self, region):
        # drop regions whose owner died (their memory may be reused)
        live = [r for r in self._regions
                if not isinstance(r.owner, weakref.ref) or r.owner() is not None]
        live.append(region)
        live.sort(key=lambda r: r.start)
        self._regions = live
        self._starts = [r.start for r in live]

    def find(self, ptr, nbytes):
        """The Region holding [ptr, ptr + nbytes), or None."""
        i = bisect.bisect_right(self._starts, ptr) - 1
        if i < 0:
            return None
        r = self._regions[i]
        if isinstance(r.owner, weakref.ref) and r.owner() is None:
            return None
        return r if ptr + nbytes <= r.end else None

    def peer_table(self, tensor, what):
        """Device address of a table of every rank's copy of `tensor` (a
        tensor in symmetric memory: dslc.empty or torch symm_mem)."""
        ptr = tensor.data_ptr()
        nbytes = tensor.numel() * tensor.element_size()
        r = self.find(ptr, nbytes) or self._import_torch_symm_mem(tensor, what)
        off = ptr - r.start
        if off == 0:
            return r.peers
        table = r.tables.get(off)
        if table is None:
            if _torch.capturing():
                raise InvalidArgumentError(
                    f"dslc: {what}: a view at offset {off} of symmetric "
                    f"memory needs a new peer table, which cannot be made "
                    f"during CUDA graph capture: call once before capturing")
            t = _torch.torch()
            if r.bases is None:
                r.bases = self._read_table(r.peers)
            table = t.tensor([b + off for b in r.bases], dtype=t.int64,
                             device=t.device("cuda", self.device))
            r.tables[off] = table
        return table.data_ptr()

    def table_of_addresses(self, ptrs, nbytes, what):
        """Device address of a table holding `ptrs` (every rank's address of
        one symmetric tensor of nbytes, e.g. the data_ptr()s of a tuple from
        torch.ops.symm_mem.get_remote_tensors). Made once per set of
        addresses and checked by the runtime (dslcBufferImport: world
        entries, none null, 16-byte aligned, this rank's own)."""
        ptrs = tuple(int(p) for p in ptrs)
        table = self._address_tables.get(ptrs)
        if table is not None:
            return table.data_ptr()
        if len(ptrs) != self.world_size:
            raise InvalidArgumentError(
                f"dslc: {what}: {len(ptrs)} addresses for a world of "
                f"{self.world_size}")
        if _torch.capturing():
            raise InvalidArgumentError(
                f"dslc: {what}: a new set of peer addresses needs a device "
                f"table, which cannot be made during CUDA graph capture: "
                f"call once before capturing")
        t = _torch.torch()
        table = t.tensor(list(ptrs), dtype=t.int64,
                         device=t.device("cuda", self.device))
        local = (ctypes.c_void_p * 1)(ptrs[self.rank])
        dev = (ctypes.c_void_p * 1)(table.data_ptr())
        b = _handle_out()
        _capi.check(_capi.load().dslcBufferImport(
            self._h, local, dev, max(int(nbytes), 1), ctypes.byref(b)),
            f"dslc: {what}")
        _capi.check(_capi.load().dslcBufferRelease(b))
        self._address_tables[ptrs] = table
        return table.data_ptr()

    def import_symm_mem(self, handle, tensor=None):
        """Registers PyTorch symmetric memory (a handle from
        torch.distributed._symmetric_memory.rendezvous) so that tensors in
        it can be passed as symmetric (stack) tensors. Returns the Region."""
        if handle.world_size != self.world_size or handle.rank != self.rank:
            raise InvalidArgumentError(
                f"dslc: symmetric memory of rank {handle.rank} of "
                f"{handle.world_size} given to the communicator of rank "
                f"{self.rank} of {self.world_size}")
        bases = [int(p) for p in handle.buffer_ptrs]
        start = bases[self.rank]
        if start in self._imported:
            return self._imported[start]
        size = int(getattr(handle, "buffer_size", 0) or
                   (tensor.untyped_storage().nbytes() if tensor is not None
                    else 0))
        local = (ctypes.c_void_p * 1)(start)
        table = (ctypes.c_void_p * 1)(int(handle.buffer_ptrs_dev))
        b = _handle_out()
        _capi.check(_capi.load().dslcBufferImport(
            self._h, local, table, size, ctypes.byref(b)),
            "dslc: importing PyTorch symmetric memory")
        _capi.check(_capi.load().dslcBufferRelease(b))  # checked; tables are torch's
        r = Region(start, start + size, int(handle.buffer_ptrs_dev), bases,
                   handle)
        self._imported[start] = r
        self._register(r)
        return r

    def _import_torch_symm_mem(self, tensor, what):
        hint = (f"dslc: {what} is a symmetric tensor (the kernel reads other "
                f"ranks' copies): allocate it with dslc.empty(...) or "
                f"torch.distributed._symmetric_memory.empty(...)")
        try:
            import torch.distributed._symmetric_memory as symm_mem
        except ImportError:
            raise InvalidArgumentError(hint) from None
        if self.group_name is None:
            raise InvalidArgumentError(
                hint + "; PyTorch symmetric memory needs dslc.init(group) "
                "with a torch.distributed group")
        try:
            handle = symm_mem.rendezvous(tensor, self.group_name)
        except Exception as e:  # not symmetric memory
            raise InvalidArgumentError(f"{hint} ({e})") from None
        if handle is None:  # torch warns and returns None for other memory
            raise InvalidArgumentError(hint)
        return self.import_symm_mem(handle, tensor)

    # -- teardown -----------------------------------------------------------
    def destroy(self):
        if self._h is None:
            return
        lib = _capi.load()
        for k in list(self._kernels):
            k._release()
        if self._collectives is not None:
            from . import _collectives  # it imports this module
            _collectives.forget(self)
            lib.dslcCollectivesDestroy(self._collectives)
            self._collectives = None
        self._regions, self._starts, self._imported = [], [], {}
        self._address_tables = {}
        self._pending_free = []
        if self._heap is not None:
            lib.dslcHeapDestroy(self._heap)   # frees every buffer with it
            self._heap = None
        lib.dslcCommDestroy(self._h)
        self._h = None


def _dist():
    """torch.distributed when it is initialized, else None."""
    t = _torch._torch
    if t is None:
        return None
    dist = t.distributed
    return dist if dist.is_available() and dist.is_initialized() else None


def _pick_device(device):
    t = _torch.torch("dslc.init")
    if device is None:
        lr = os.environ.get("LOCAL_RANK")
        n = t.cuda.device_count()
        if n == 0:
            return 0   # the runtime reports "no CUDA device"
        device = int(lr) % n if lr is not None else t.cuda.current_device()
    t.cuda.set_device(device)
    return device


def init(group=None, *, device=None, heap_bytes=None, rendezvous_file=None,
         timeout_ms=60000):
    """The dslc communicator of this process (made once; later calls return
    it). With torch.distributed initialized: over `group` (default: the
    world), the NCCL unique id broadcast through torch.distributed. Without
    it, under torchrun / mpirun (RANK, WORLD_SIZE set): from the
    environment, the id through a rendezvous file. Otherwise: a world of
    one on this GPU. device: default $LOCAL_RANK mod the visible GPUs, else
    torch's current device (made current)."""
    global _default
    if _default is not None:
        if group is not None and _default.group is not group:
            raise InvalidArgumentError(
                "dslc: already initialized on another group (dslc.shutdown() "
                "first)")
        return _default
    lib = _capi.load()
    h = _handle_out()
    try:
        _torch.torch()   # before the runtime: its libnccl is the one used
    except NeedsTorchError:
        pass
    dist = _dist()
    if dist is not None:
        group = group or dist.group.WORLD
        dev = _pick_device(device)
        rank, world = dist.get_rank(group), dist.get_world_size(group)
        t = _torch.torch()
        uid = t.zeros(128, dtype=t.uint8)
        if rank == 0:
            raw = ctypes.create_string_buffer(128)
            _capi.check(lib.dslcGetUniqueId(raw), "dslc.init")
            uid = t.frombuffer(bytearray(raw.raw), dtype=t.uint8).clone()
        on = t.device("cuda", dev) if dist.get_backend(group) == "nccl" \
            else t.device("cpu")
        uid = uid.to(on)
        dist.broadcast(uid, src=dist.get_global_rank(group, 0), group=group)
        idbytes = bytes(uid.cpu().tolist())
        _capi.check(lib.dslcCommCreateRank(rank, world, dev, idbytes,
                                           ctypes.byref(h)), "dslc.init")
    elif os.environ.get("RANK") is not None:
        if group is not None:
            raise InvalidArgumentError(
                "dslc.init: a group was given but torch.distributed is not "
                "initialized")
        if _torch._torch is not None:
            _pick_device(device)
        path = rendezvous_file.encode() if rendezvous_file else None
        _capi.check(lib.dslcCommCreateFromEnv(path, timeout_ms,
                                              ctypes.byref(h)), "dslc.init")
    else:
        dev = _pick_device(device) if _torch._torch is not None else \
            (device or 0)
        raw = ctypes.create_string_buffer(128)
        _capi.check(lib.dslcGetUniqueId(raw), "dslc.init")
        _capi.check(lib.dslcCommCreateRank(0, 1, dev, raw.raw,
                                           ctypes.byref(h)), "dslc.init")
    _default = Communicator(h, group, heap_bytes)
    return _default


def default():
    """The process's communicator, made by dslc.init() on first use."""
    return _default if _default is not None else init()


def initialized():
    return _default is not None


def shutdown():
    """Destroys the communicator, its heap, kernels and collectives (in that
    order). Symmetric tensors must not be used afterwards."""
    global _default
    c, _default = _default, None
    if c is not None:
        c.destroy()



def empty(shape, dtype=None, *, zero=False):
    """A torch.Tensor in symmetric memory (contiguous, on the
    communicator's GPU). Collective: every rank allocates the same sizes in
    the same order."""
    t = _torch.torch("dslc.empty")
    comm = default()
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise InvalidArgumentError(f"dslc.empty: negative size in {shape}")
    name = _torch.dtype_name(dtype if dtype is not None else t.bfloat16)
    n = 1
    for s in shape:
        n *= s
    nbytes = n * _torch.element_size(name)
    if nbytes > comm.heap_bytes:
        raise InvalidArgumentError(
            f"dslc.empty: {shape} of {name} is {nbytes} bytes, more than the "
            f"symmetric heap ({comm.heap_bytes} bytes per rank: "
            f"dslc.init(heap_bytes=...) or $DSLC_HEAP_BYTES)")
    buf = comm.alloc(nbytes, zero=zero)
    return _torch.DeviceArray(buf.local, shape, name, owner=buf).as_tensor(
        comm.device)


def zeros(shape, dtype=None):
    """dslc.empty, zeroed on every rank before any rank returns."""
    return empty(shape, dtype, zero=True)
