"""Functions passed to a Helion kernel at run time, compiled into it.

Helion compiles a kernel for the function a call passes (matmul.py's
`epilogue=lambda acc, tile: acc + bias[tile[1]]`), lifting the tensors the
function captures to kernel arguments. dslc compiles a kernel from its
source, so the stand-in writes that source: each call of the parameter in
the kernel body becomes the function's expression with the call's
arguments in place of its parameters, and each captured tensor a new
tensor parameter of the kernel (captured ints, floats and bools become
constants). What cannot be written that way raises Skip with the reason: a
function of more than one statement, a lambda that cannot be told apart
from another on its line, a captured value of another kind.
"""

import ast
import copy
import inspect
import types


class NotInlinable(Exception):
    """Why a function passed at run time cannot be compiled in."""


_NODES = {}     # code object -> (parameter names, expression)


def _node_of(fn):
    """(parameter names, expression) of lambda or one-return def `fn`,
    from its file's syntax tree (parsed once per code object: a closure
    made anew for every call shares its code)."""
    if fn.__code__ not in _NODES:
        _NODES[fn.__code__] = _parse_node(fn)
    return _NODES[fn.__code__]


def _parse_node(fn):
    try:
        path = inspect.getsourcefile(fn)
        with open(path) as f:
            tree = ast.parse(f.read())
    except (TypeError, OSError, SyntaxError) as e:
        raise NotInlinable(f"its source is not readable ({e})")
    code = fn.__code__
    params = list(code.co_varnames[:code.co_argcount])
    is_lambda = fn.__name__ == "<lambda>"
    found = []
    for node in ast.walk(tree):
        if is_lambda and isinstance(node, ast.Lambda):
            first = node.lineno
        elif not is_lambda and isinstance(node, ast.FunctionDef) and \
                node.name == fn.__name__:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        else:
            continue
        if first == code.co_firstlineno and \
                [a.arg for a in node.args.args] == params:
            found.append(node)
    if len(found) != 1:
        raise NotInlinable(f"{len(found)} functions of its parameters start "
                           f"on line {code.co_firstlineno} of its file")
    node = found[0]
    if isinstance(node, ast.Lambda):
        return params, node.body
    body = [s for s in node.body
            if not (isinstance(s, ast.Expr) and
                    isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or \
            body[0].value is None:
        raise NotInlinable("it is more than one `return EXPRESSION`")
    return params, body[0].value


def _captured(fn, expr, params):
    """{free name: value} of the names `expr` reads that are neither
    parameters nor modules or builtins."""
    try:
        cv = inspect.getclosurevars(fn)
    except (TypeError, ValueError) as e:
        raise NotInlinable(f"its captured names are not readable ({e})")
    scope = dict(cv.globals, **cv.nonlocals)
    names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    out = {}
    for name in sorted(names - set(params)):
        if name not in scope:
            continue  # a builtin, or a name of the kernel's file
        value = scope[name]
        if isinstance(value, (types.ModuleType, types.FunctionType,
                              types.BuiltinFunctionType, type)):
            continue
        out[name] = value
    return out


class _Substitute(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            return copy.deepcopy(self.names[node.id])
        return node


class _InlineCalls(ast.NodeTransformer):
    def __init__(self, param, params, expr, replace):
        self.param, self.params, self.expr = param, params, expr
        self.replace = replace
        self.count = 0

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (isinstance(node.func, ast.Name) and node.func.id == self.param):
            return node
        if node.keywords or len(node.args) != len(self.params):
            raise NotInlinable(f"'{self.param}' is called with other "
                               f"arguments than its function's parameters")
        names = dict(zip(self.params, node.args), **self.replace)
        self.count += 1
        return _Substitute(names).visit(copy.deepcopy(self.expr))


def inline_callables(source, kernel, passed, is_tensor):
    """`source` with kernel `kernel` compiled for the functions `passed`
    ({parameter: function}): returns (new source, {new parameter: tensor})
    or raises NotInlinable. `is_tensor(value)` says what is lifted."""
    tree = ast.parse(source)
    fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and
                 n.name == kernel), None)
    if fdef is None:
        raise NotInlinable(f"no def {kernel}")
    taken = {a.arg for a in fdef.args.args + fdef.args.kwonlyargs} | {
        n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)}
    lifted = {}
    for param, fn in passed.items():
        if not isinstance(fn, types.FunctionType):
            raise NotInlinable(f"'{param}' is a {type(fn).__name__}")
        params, expr = _node_of(fn)
        replace = {}
        for name, value in _captured(fn, expr, params).items():
            if isinstance(value, (bool, int, float)):
                replace[name] = ast.Constant(value)
            elif is_tensor(value):
                new = name
                while new in taken:
                    new = f"captured_{new}"
                taken.add(new)
                lifted[new] = value
                replace[name] = ast.Name(new, ast.Load())
            else:
                raise NotInlinable(f"'{param}' captures '{name}', a "
                                   f"{type(value).__name__}")
        inliner = _InlineCalls(param, params, expr, replace)
        fdef.body = [inliner.visit(s) for s in fdef.body]
    # The lifted tensors: parameters before the first one with a default
    # (callers pass them by name).
    args = fdef.args
    first_default = len(args.args) - len(args.defaults)
    for name in lifted:
        args.args.insert(first_default, ast.arg(
            name, ast.Attribute(ast.Name("torch", ast.Load()), "Tensor",
                                ast.Load())))
        first_default += 1
    ast.fix_missing_locations(fdef)
    # The kernel's lines rewritten, the rest of the file as it is.
    lines = source.splitlines(keepends=True)
    start = min([fdef.lineno] + [d.lineno for d in fdef.decorator_list]) - 1
    text = ast.unparse(fdef) + "\n"
    return "".join(lines[:start]) + text + "".join(lines[fdef.end_lineno:]), \
        lifted
