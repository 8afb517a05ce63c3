"""The host code of a Helion kernel, in plain Python (no torch): how
python/tests/gpu/helion_examples.py splits a kernel's def around its
loops, takes its parameters and spells compile-time values for dslc."""

import ast
import copy


class Skip(Exception):
    """A kernel call this program cannot make, and why."""


# ---------------------------------------------------------------------------
# The host code of a kernel (plain Python, no torch)
# ---------------------------------------------------------------------------

def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


_LANGUAGE = ("hl", "helion.language")
# Calls outside the loop that make the kernel's outputs (dslc's outputs are
# these, in the order made).
_MAKERS = {"torch.empty", "torch.zeros", "torch.empty_like", "torch.zeros_like"}
_NEW = {"new_empty", "new_zeros"}


def _is_language_call(call, names):
    d = _dotted(call.func) if isinstance(call, ast.Call) else None
    return d is not None and any(d == f"{m}.{n}" for m in _LANGUAGE
                                 for n in names)


def _is_grid_loop(stmt):
    return isinstance(stmt, ast.For) and _is_language_call(stmt.iter,
                                                           ("tile", "grid"))


def _is_device_statement(stmt):
    """A top-level statement dslc compiles into the kernel: an hl.tile /
    hl.grid loop, or an hl.barrier() between two of them."""
    return _is_grid_loop(stmt) or (
        isinstance(stmt, ast.Expr) and
        _is_language_call(stmt.value, ("barrier",)))


class _HostCalls(ast.NodeTransformer):
    """Marks the outputs a prologue makes and the block sizes it takes."""

    def visit_Call(self, node):
        self.generic_visit(node)
        d = _dotted(node.func)
        made = d in _MAKERS or (isinstance(node.func, ast.Attribute) and
                                node.func.attr in _NEW)
        if made:
            return ast.Call(ast.Attribute(ast.Name("__dslc_ctx__", ast.Load()),
                                          "made", ast.Load()), [node], [])
        if _is_language_call(node, ("register_block_size",)):
            return ast.Call(ast.Attribute(ast.Name("__dslc_ctx__", ast.Load()),
                                          "block_size", ast.Load()),
                            node.args, node.keywords)
        return node


def host_function_source(source, name):
    """The host part of kernel `name` of `source`, as the source of a def
    of the same parameters plus `__dslc_ctx__`: the host statements up to
    the last top-level grid loop (outputs made through __dslc_ctx__.made,
    block sizes from __dslc_ctx__.block_size), then
    `__dslc_ctx__.launch(__dslc_args__)` where __dslc_args__ are the
    parameters as passed, then the statements after the last loop. The
    kernel's loops and the hl.barrier() calls between them are the one
    launch (dslc compiles every top-level loop into one kernel), so host
    statements between two loops run before it."""
    tree = ast.parse(source)
    fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and
                 n.name == name), None)
    if fdef is None:
        raise ValueError(f"no def {name}")
    fdef = copy.deepcopy(fdef)
    body = list(fdef.body)
    if body and isinstance(body[0], ast.Expr) and \
            isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]  # the docstring
    loops = [i for i, s in enumerate(body) if _is_grid_loop(s)]
    if not loops:
        raise ValueError("no top-level hl.tile / hl.grid loop")
    last = loops[-1]
    prologue = [_HostCalls().visit(s) for s in body[:last]
                if not _is_device_statement(s)]
    snap = ast.parse("__dslc_args__ = dict(locals())").body
    launch = ast.parse("__dslc_ctx__.launch(__dslc_args__)").body
    fdef.body = snap + prologue + launch + body[last + 1:]
    fdef.decorator_list = []
    fdef.returns = None
    for a in fdef.args.args + fdef.args.posonlyargs + fdef.args.kwonlyargs:
        a.annotation = None
    fdef.args.kwonlyargs.append(ast.arg("__dslc_ctx__"))
    fdef.args.kw_defaults.append(None)
    module = ast.Module([fdef], [])
    ast.fix_missing_locations(module)
    return ast.unparse(module)


def compile_time_kind(annotation, default, specialized):
    """How dslc takes a parameter (its GenParams.cpp rules): "define" (a
    compile-time value, -D), "callable", "optional" (a tensor or None),
    or "value" (a tensor or a run-time scalar)."""
    if isinstance(default, ast.Lambda):
        return "callable"
    text = ast.unparse(annotation) if annotation is not None else ""
    if text.startswith(("'", '"')):
        text = text[1:-1]
    if "Callable" in text or text == "callable":
        return "callable"
    if "None" in text and "Tensor" in text:
        return "optional"
    head = text.split("[")[0]
    if head in ("hl.constexpr", "constexpr", "helion.constexpr", "str",
                "bool", "list", "List", "typing.List", "Sequence") or (
            head in ("tuple", "Tuple") and "Tensor" not in text):
        return "define"
    if specialized and head in ("", "int"):
        return "define"
    return "value"


def parameter_kinds(source, name):
    """{param: kind} of kernel `name` (compile_time_kind)."""
    tree = ast.parse(source)
    fdef = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and
                n.name == name)
    specialized = set()
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call) and _is_language_call(
                node, ("specialize",)) and node.args and \
                isinstance(node.args[0], ast.Name):
            specialized.add(node.args[0].id)
    args = fdef.args.posonlyargs + fdef.args.args
    defaults = [None] * (len(args) - len(fdef.args.defaults)) + \
        list(fdef.args.defaults)
    args += fdef.args.kwonlyargs
    defaults += list(fdef.args.kw_defaults)
    return {a.arg: compile_time_kind(a.annotation, d, a.arg in specialized)
            for a, d in zip(args, defaults)}


def define_text(value):
    """A -D value dslc reads (GenConstant.cpp's defineValue)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(define_text(v) for v in value) + "]"
    raise Skip(f"a compile-time value of type {type(value).__name__}")
