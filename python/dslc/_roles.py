"""What each kernel argument is for, from the kernel's metadata, and how the
package allocates the ones the caller leaves out (docs/python.md,
"Arguments the package fills in").

The roles are the metadata's: dslc decides every parameter's role once
(docs/kernel-abi.md, "Roles") and writes it as "role"; nothing here guesses
one. How every argument is bound (shape, symmetric, zeroed once, peer table,
outputs per call, collective shapes, what cannot be bound) is the contract's
binding plan (contract/BindingPlan.h), asked through the runtime's one C API
call dslcBindingPlan (_capi.binding_plan); signal pads and LL scratch take
the shapes the caller passes in (contract_shape: the contract's, through
dslcMetadataFillShape). Here: the package's names for the contract's roles
and its wording of the plan's problems. Nothing here touches a GPU.
"""

from . import _capi
from .errors import InvalidArgumentError

INPUT, OUTPUT, WORKSPACE = "input", "output", "workspace"
SIGNAL_PAD, PEER_TABLE, SCRATCH = "signal_pad", "peer_table", "scratch"
UNUSED, SCALAR = "unused", "scalar"

# The contract's role names (contract::roleName) -> the package's.
_ROLES = {"input": INPUT, "output": OUTPUT, "inout": WORKSPACE,
          "signal_pad": SIGNAL_PAD, "peer_table": PEER_TABLE,
          "scratch": SCRATCH, "unused": UNUSED, "scalar": SCALAR}
FLOATING = ("bfloat16", "float16", "float32", "float64")


def normalize_role(text, where):
    """The package's name of the contract's role `text`."""
    if text not in _ROLES:
        raise InvalidArgumentError(
            f"{where}: unknown role '{text}' (known: "
            f"{', '.join(sorted(_ROLES))})")
    return _ROLES[text]


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
        # compiled for a tensor stored permuted (dslc --dim-order): bound as
        # stored; None: row-major
        self.dim_order = tuple(spec["dim_order"]) if spec.get("dim_order") \
            else None
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
    heap with a peer table), zero (zeroed: once on every rank, or, for an
    output made per call (`per_call`), on each call: torch.zeros outputs the
    kernel may add into), or, for a peer table, `table_of` (bound to that
    argument's table)."""

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


# The plan's problems the package reports itself (as it words them); the
# others (constraints, ranks, names) the runtime's dslcArgsCheck reports.
_REPORTED = ("no_value", "no_size", "like_missing", "no_data", "collective")


def _problem(where, arg, p):
    """InvalidArgumentError for the plan's problem p on `arg`."""
    miss = f"{where}: parameter '{arg.name}'"
    kind = p["kind"]
    if kind == "no_value":
        article = "an" if arg.kind == "int" else "a"
        return InvalidArgumentError(f"{miss} ({article} {arg.kind} scalar) "
                                    f"was not passed and has no default in "
                                    f"the source")
    if kind == "no_size" and arg.role == INPUT:
        return InvalidArgumentError(f"{miss} (the kernel's input) was not "
                                    f"passed")
    if kind == "no_size" and arg.role == OUTPUT:
        return InvalidArgumentError(
            f"{miss} is an output whose shape the metadata does not give: "
            f"pass it, or say dslc.kernel(..., collective=...)")
    if kind == "like_missing":
        return InvalidArgumentError(f"{miss} is shaped like '{arg.like}', "
                                    f"which was not passed")
    if kind == "no_data":
        return InvalidArgumentError(
            f"{miss} ({arg.role}) is sized from the data input, and no "
            f"floating tensor was passed")
    return InvalidArgumentError(f"{where}: {p['text']}")


def plan_fills(md, world, given, contract_shape=None, collective=None):
    """How to fill every bindable argument missing from `given` (name ->
    shape of what the caller passed; () for a scalar or a handle): the
    contract's binding plan for those shapes. contract_shape(name): the
    shape of a signal pad or an LL scratch for the bound arguments (the
    runtime's dslcMetadataFillShape; None: not known yet, those are left out
    and the call repeated with it). Raises InvalidArgumentError naming the
    argument when one cannot be filled."""
    where = f"kernel {md.get('kernel', '?')}"
    args = bindable_args(md)
    shapes = {n: list(s) for n, s in given.items() if s}
    bound = [n for n, s in given.items() if not s]
    for a in args:
        if a.role in (SIGNAL_PAD, SCRATCH) and a.name not in given:
            if contract_shape is None:
                bound.append(a.name)
            else:
                shapes[a.name] = list(contract_shape(a.name))
    plan = _capi.binding_plan(md, {
        "world": int(world), "shapes": shapes, "bound": bound,
        "from_data": True, "collective": collective})
    by_name = {a.name: a for a in args}
    order = {a.name: i for i, a in enumerate(args)}
    reported = sorted((p for p in plan["problems"]
                       if p["kind"] in _REPORTED and p["arg"] in by_name),
                      key=lambda p: order[p["arg"]])
    if reported:
        raise _problem(where, by_name[reported[0]["arg"]], reported[0])
    fills = []
    for b in plan["args"]:
        a = by_name.get(b["name"])
        if a is None or a.name in given or a.role in (INPUT, SCALAR):
            continue
        if a.role == PEER_TABLE:
            fills.append(Fill(a, table_of=b["table_of"]))
        elif a.role in (SIGNAL_PAD, SCRATCH) and contract_shape is None:
            continue
        else:
            # pads and scratch: always in symmetric memory (the plan's heap)
            fills.append(Fill(
                a, tuple(b["shape"]),
                symmetric=b["symmetric"] or a.role in (SIGNAL_PAD, SCRATCH),
                zero=b["fill"] in ("zero_once", "zero"),
                per_call=b["fill"] in ("poison", "zero")))
    return fills


def returned(md, made, values):
    """What a call returns: the kernel's `return` statement as the
    metadata's "returns" lists it (each value the tensor the call made or
    was given, viewed as the statement views it, None where the kernel
    returns a host value); without one,
    every output the kernel makes in its order (those passed as passed),
    then the output parameters the package allocated (not passed).
    `made`: name -> tensor the call allocated; `values`: the call's."""
    def tensor(name):
        return made[name] if name in made else values.get(name)

    def size(d):
        # an extent, as the metadata writes grid tiles' (or -1: inferred)
        if "infer" in d:
            return -1
        if "const" in d:
            return d["const"]
        raw = (tensor(d["param"]).shape[d["dim"]] if "param" in d
               else values[d["scalar"]])
        return max(0, raw + d.get("add", 0)) // d.get("div", 1)

    def viewed(t, view):
        return t if t is None or not view else t.view(
            *[size(d) for d in view])
    r = md.get("returns")
    if r is not None:
        views = r.get("views") or [None] * len(r["values"])
        got = [None if n is None else viewed(tensor(n), v)
               for n, v in zip(r["values"], views)]
        return tuple(got) if r.get("tuple") else got[0]
    results = [tensor(o["name"]) for o in md.get("outputs", [])
               if o["name"] in made or o["name"] in values]
    results += [made[p["name"]] for p in md.get("params", [])
                if p.get("role") == "output" and p["name"] in made]
    if not results:
        return None
    return results[0] if len(results) == 1 else tuple(results)
