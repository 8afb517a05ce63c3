"""What each kernel argument is for, from the kernel's metadata, and how the
package allocates the ones the caller leaves out (docs/python.md,
"Arguments the package fills in").

The roles are the metadata's: dslc decides every parameter's role once
(docs/kernel-abi.md, "Roles") and writes it as "role"; nothing here guesses
one. Signal pads and LL scratch take the contract's sizes (contract/Sizing.h,
through the runtime's dslcArgsFillShape: the caller passes them in);
workspaces and collective outputs the collective plan's
(runtime/CollectivePlan.h). Nothing here touches a GPU.
"""

from .errors import InvalidArgumentError

INPUT, OUTPUT, WORKSPACE = "input", "output", "workspace"
SIGNAL_PAD, PEER_TABLE, SCRATCH = "signal_pad", "peer_table", "scratch"
UNUSED, SCALAR = "unused", "scalar"

_ROLE_SPELLINGS = {
    "input": INPUT, "data input": INPUT, "output": OUTPUT, "inout": WORKSPACE,
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
        self.explicit_role = "output" if is_output else spec.get("role")
        self.kind = kind_of(self.explicit_role, spec.get("dtype"))
        self.dtype = spec.get("dtype")
        self.rank = spec.get("rank", 0)
        self.access = spec.get("access", "write" if is_output else None)
        self.symmetric = bool(spec.get("symmetric", False))
        self.table_for = spec.get("peer_table_for")
        # added by dslc (the local pad of a table passed to symm_mem_sync):
        # never one of the caller's arguments (docs/kernel-abi.md)
        self.implicit = bool(spec.get("implicit", False))
        self.like = spec.get("like")
        # a scalar's default in the source (`eps: float = 1e-5`), bound
        # when the caller passes none
        self.default = spec.get("value") if self.kind in ("int", "float") \
            else None
        self.is_output = is_output
        self.role = None
        self.table_of = None     # peer tables: the argument they list
        self.listed = False      # some peer table lists this argument

    @property
    def needs_symmetric(self):
        return self.symmetric or self.listed


def kind_of(role, dtype):
    """"tensor", "int", "float" or "constexpr", from a metadata role."""
    if role == "constexpr":
        return "constexpr"
    if role == "scalar":
        return "int" if dtype == "int64" else "float"
    return "tensor"


def bindable_args(md):
    """Arguments in binding order (params without constexprs, then
    outputs), with their roles."""
    where = f"kernel {md.get('kernel', '?')}"
    args = [Arg(p, False) for p in md.get("params", [])
            if p.get("role") != "constexpr"]
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
    for a in args:
        if a.explicit_role is None:
            raise InvalidArgumentError(
                f"{where}: parameter '{a.name}' has no role: the metadata is "
                f"an older dslc's (compile the kernel again)")
        a.role = normalize_role(a.explicit_role,
                                f"{where}: parameter '{a.name}'")
    return args


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


def plan_fills(md, world, given, contract_shape=None, collective=None):
    """How to fill every bindable argument missing from `given` (name ->
    shape of what the caller passed). contract_shape(name): the shape the
    contract gives a signal pad or an LL scratch for the bound arguments
    (the runtime's dslcArgsFillShape; None: not known yet, those are left
    out and the call repeated with it). Raises InvalidArgumentError naming
    the argument when one cannot be filled."""
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
            if a.default is not None:
                continue        # the caller binds the source's default
            article = "an" if a.kind == "int" else "a"
            raise InvalidArgumentError(f"{miss} ({article} {a.kind} scalar) "
                                       f"was not passed and has no default "
                                       f"in the source")
        if a.role == INPUT:
            raise InvalidArgumentError(f"{miss} (the kernel's input) was not "
                                       f"passed")
        if a.role == PEER_TABLE:
            fills.append(Fill(a, table_of=a.table_of))
            continue
        if a.role == UNUSED:
            fills.append(Fill(a, shape=(1,) * a.rank, zero=True))
            continue
        if a.role in (SIGNAL_PAD, SCRATCH):
            if contract_shape is not None:
                fills.append(Fill(a, tuple(contract_shape(a.name)),
                                  symmetric=True, zero=True))
            continue
        if n is None:
            raise InvalidArgumentError(
                f"{miss} ({a.role}) is sized from the data input, and no "
                f"floating tensor was passed")
        if a.role == WORKSPACE:
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
