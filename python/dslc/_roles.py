"""What each kernel argument is for, from the kernel's metadata, and how the
package allocates the ones the caller leaves out (docs/python.md,
"Arguments the package fills in").

The roles and sizes are the collective harness's (docs/runtime.md, "The
collective harness"): an explicit "role" key in the metadata wins; else the
access facts (`access`, `peer_table_for`, `symmetric`); metadata without
`access` gets the harness's old heuristics. Nothing here touches a GPU.
"""

from . import _torch
from .errors import InvalidArgumentError

INPUT, OUTPUT, WORKSPACE = "input", "output", "workspace"
SIGNAL_PAD, PEER_TABLE, SCRATCH = "signal_pad", "peer_table", "scratch"
UNUSED, SCALAR = "unused", "scalar"

_ROLE_SPELLINGS = {
    "input": INPUT, "data input": INPUT, "output": OUTPUT,
    "data output": OUTPUT, "workspace": WORKSPACE, "signal pad": SIGNAL_PAD,
    "pad": SIGNAL_PAD, "peer table": PEER_TABLE, "table": PEER_TABLE,
    "scratch": SCRATCH, "packet scratch": SCRATCH, "ll scratch": SCRATCH,
    "unused": UNUSED, "none": UNUSED, "scalar": SCALAR,
}
FLOATING = ("bfloat16", "float16", "float32", "float64")


def normalize_role(text, where):
    key = str(text).strip().lower().replace("_", " ").replace("-", " ")
    if key not in _ROLE_SPELLINGS:
        raise InvalidArgumentError(
            f"{where}: unknown role '{text}' (known: "
            f"{', '.join(sorted(set(_ROLE_SPELLINGS.values())))})")
    return _ROLE_SPELLINGS[key]


class Arg:
    """A bindable argument: role, dtype, rank, and for peer tables the
    argument whose copies the table lists."""

    def __init__(self, spec, is_output):
        self.name = spec["name"]
        self.kind = spec.get("kind", "tensor")
        self.dtype = spec.get("dtype")
        self.rank = spec.get("rank", 0)
        self.access = spec.get("access", "write" if is_output else None)
        self.symmetric = bool(spec.get("symmetric", False))
        self.table_for = spec.get("peer_table_for")
        self.like = spec.get("like")
        self.is_output = is_output
        self.explicit_role = spec.get("role")
        self.role = None
        self.table_of = None     # peer tables: the argument they list
        self.listed = False      # some peer table lists this argument

    @property
    def needs_symmetric(self):
        return self.symmetric or self.listed


def bindable_args(md):
    """Arguments in binding order (params without constexprs, then
    outputs), with their roles."""
    where = f"kernel {md.get('kernel', '?')}"
    args = [Arg(p, False) for p in md.get("params", [])
            if p.get("kind") != "constexpr"]
    args += [Arg(o, True) for o in md.get("outputs", [])]
    by_name = {a.name: a for a in args}
    for a in args:
        if a.table_for:
            target = by_name.get(a.table_for)
            if target is None:
                raise InvalidArgumentError(
                    f"{where}: parameter '{a.name}' is the peer table of "
                    f"'{a.table_for}', which is not a tensor argument")
            target.listed = True
            a.table_of = target.name
    has_access = any(a.access is not None for a in args if not a.is_output)
    for a in args:
        if a.explicit_role is not None:
            a.role = normalize_role(a.explicit_role,
                                    f"{where}: parameter '{a.name}'")
        elif a.kind in ("int", "float"):
            a.role = SCALAR
        elif a.is_output:
            a.role = OUTPUT
        elif has_access:
            a.role = _role_from_access(a)
        else:
            a.role = None
    if not has_access:
        _old_heuristics(args)
    for a in args:
        if a.role == PEER_TABLE and a.table_of is None:
            pads = [b for b in args if b.role == SIGNAL_PAD]
            if len(pads) == 1:
                a.table_of = pads[0].name
                pads[0].listed = True
    return args


def _role_from_access(a):
    if a.access == "none":
        return UNUSED
    if a.table_for:
        return PEER_TABLE
    if a.dtype in ("int32", "uint32") and (a.listed or (
            a.rank == 2 and a.access == "readwrite")):
        return SIGNAL_PAD
    if a.dtype == "int64" and a.rank == 1 and a.symmetric:
        return SCRATCH
    if a.dtype in FLOATING:
        return {"read": INPUT, "write": OUTPUT,
                "readwrite": WORKSPACE}.get(a.access)
    return None


def _old_heuristics(args):
    """Metadata without `access`: the first floating tensor is the input,
    rank-2 int32/uint32 tensors are pads, a uint64 rank-1 tensor is the
    table of the single pad."""
    seen_input = False
    for a in args:
        if a.role is not None:
            continue
        if a.dtype in FLOATING and not seen_input:
            a.role, seen_input = INPUT, True
        elif a.dtype in ("int32", "uint32") and a.rank == 2:
            a.role = SIGNAL_PAD
        elif a.dtype == "uint64" and a.rank == 1:
            a.role = PEER_TABLE


class Fill:
    """An argument the package allocates: dtype, shape, symmetric (in the
    heap with a peer table), zero (zeroed once on every rank), or, for a
    peer table, `table_of` (bound to that argument's table)."""

    def __init__(self, arg, shape=None, symmetric=False, zero=False,
                 table_of=None, per_call=False):
        self.arg, self.shape = arg, shape
        self.symmetric, self.zero = symmetric, zero
        self.table_of, self.per_call = table_of, per_call

    @property
    def name(self):
        return self.arg.name

    def __repr__(self):
        return (f"Fill({self.name!r}, role={self.arg.role}, "
                f"shape={self.shape}, symmetric={self.symmetric}, "
                f"zero={self.zero}, table_of={self.table_of})")


def _round_up(n, m):
    return -(-n // m) * m


def collective_output_shape(collective, n_in, world, rank):
    """Output shape of a collective on an input of n_in elements."""
    if collective == "all_reduce":
        return (n_in,)
    if collective == "reduce_scatter":
        if n_in % world:
            raise InvalidArgumentError(
                f"reduce_scatter: size {n_in} is not a multiple of the world "
                f"size {world}")
        return (n_in // world,)
    if collective == "all_gather":
        return (world, n_in) if rank == 2 else (world * n_in,)
    raise InvalidArgumentError(f"unknown collective '{collective}'")


def plan_fills(md, world, given, num_tiles=None, collective=None):
    """How to fill every bindable argument missing from `given` (name ->
    shape of what the caller passed). num_tiles: the grid's tile count, for
    signal pads (None: not known yet; pads are then left out and the call
    is repeated with it). Raises InvalidArgumentError naming the argument
    when one cannot be filled."""
    where = f"kernel {md.get('kernel', '?')}"
    args = bindable_args(md)
    inputs = [a for a in args if a.role == INPUT and a.name in given]
    data = inputs[0] if inputs else next(
        (a for a in args if a.name in given and a.dtype in FLOATING), None)
    n = None
    if data is not None:
        n = 1
        for s in given[data.name]:
            n *= int(s)
    fills = []
    for a in args:
        if a.name in given:
            continue
        miss = f"{where}: parameter '{a.name}'"
        if a.role == SCALAR:
            raise InvalidArgumentError(f"{miss} (a {a.kind} scalar) was not "
                                       f"passed")
        if a.role == INPUT:
            raise InvalidArgumentError(f"{miss} (the kernel's input) was not "
                                       f"passed")
        if a.role is None:
            raise InvalidArgumentError(
                f"{miss} ({a.dtype}[{a.rank}], access {a.access}) has no role "
                f"the package can fill in: pass it")
        if a.role == PEER_TABLE:
            fills.append(Fill(a, table_of=a.table_of))
            continue
        if a.role == UNUSED:
            fills.append(Fill(a, shape=(1,) * a.rank, zero=True))
            continue
        if a.role == SIGNAL_PAD:
            if num_tiles is None:
                continue
            rows = max(int(num_tiles), 1)
            shape = (rows, world) if a.rank == 2 else (rows * world,)
            fills.append(Fill(a, shape, symmetric=True, zero=True))
            continue
        if n is None:
            raise InvalidArgumentError(
                f"{miss} ({a.role}) is sized from the data input, and no "
                f"floating tensor was passed")
        if a.role == SCRATCH:
            block0 = int(md["grid"]["tiles"][0]["block"]) \
                if md.get("grid", {}).get("tiles") else 1
            elem = _torch.element_size(data.dtype)
            fills.append(Fill(a, (world * _round_up(n, block0) * elem,),
                              symmetric=True, zero=True))
        elif a.role == WORKSPACE:
            shape = (world, n) if a.rank == 2 else (world * n,)
            fills.append(Fill(a, shape, symmetric=a.needs_symmetric,
                              zero=True))
        elif a.role == OUTPUT:
            if a.like is not None:
                if a.like not in given:
                    raise InvalidArgumentError(
                        f"{miss} is shaped like '{a.like}', which was not "
                        f"passed")
                shape = tuple(given[a.like])
            elif collective is not None:
                shape = collective_output_shape(collective, n, world, a.rank)
            else:
                raise InvalidArgumentError(
                    f"{miss} is an output whose shape the metadata does not "
                    f"give: pass it, or say dslc.kernel(..., collective=...)")
            fills.append(Fill(a, shape, symmetric=a.needs_symmetric,
                              per_call=True))
    return fills
