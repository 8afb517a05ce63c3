"""DSL sources: a file, a source string or a decorated Python function,
and the kernel's parameter list read with Python's own parser (the DSL is
Python syntax), needed before the first compile to build dslc's
--signature and -D arguments from the call's arguments."""

import ast
import hashlib
import inspect
import os
import textwrap

from . import _locate
from .errors import InvalidArgumentError


class Param:
    """A DSL kernel parameter: kind is "constexpr", "tensor", "tuple",
    "int", "float" or None (not annotated); dtype/rank from a
    torch.Tensor[torch.DTYPE, RANK] annotation."""

    def __init__(self, name, kind=None, dtype=None, rank=None, default=None,
                 has_default=False):
        self.name, self.kind, self.dtype, self.rank = name, kind, dtype, rank
        self.default, self.has_default = default, has_default

    def __repr__(self):
        return f"Param({self.name!r}, {self.kind!r}, {self.dtype!r}, {self.rank!r})"


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _annotation(node):
    """(kind, dtype, rank) of an annotation node."""
    if node is None:
        return None, None, None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None, None, None
    name = _dotted(node)
    if name in ("hl.constexpr", "constexpr", "helion.language.constexpr"):
        return "constexpr", None, None
    if name in ("int", "float"):
        return name, None, None
    if name in ("torch.Tensor", "Tensor"):
        return "tensor", None, None
    if isinstance(node, ast.Subscript):
        base = _dotted(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) \
            else [node.slice]
        if base in ("torch.Tensor", "Tensor"):
            dtype = _dotted(items[0]) if items else None
            dtype = dtype.split(".")[-1] if dtype else None
            rank = items[1].value if len(items) > 1 and isinstance(
                items[1], ast.Constant) else None
            return "tensor", dtype, rank
        if base in ("tuple", "Tuple", "typing.Tuple"):
            return "tuple", None, None
    return None, None, None


def parse_params(text, name, origin):
    """(kernel name, [Param]) of kernel `name` (None: the only kernel with a
    @helion.kernel / @helion.jit / @dslc.kernel decorator, else the only
    function) in source `text`."""
    try:
        tree = ast.parse(text, filename=origin)
    except SyntaxError as e:
        raise InvalidArgumentError(
            f"{origin}:{e.lineno}:{e.offset}: error: {e.msg}") from None
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if name is None:
        kernels = [f for f in funcs if any(
            (_dotted(d.func if isinstance(d, ast.Call) else d) or "")
            .split(".")[-1] in ("kernel", "jit") for d in f.decorator_list)]
        pick = kernels or funcs
        if len(pick) != 1:
            raise InvalidArgumentError(
                f"dslc: {origin} defines {len(pick)} kernels "
                f"({', '.join(f.name for f in pick) or 'none'}): name one")
        fn = pick[0]
    else:
        match = [f for f in funcs if f.name == name]
        if not match:
            raise InvalidArgumentError(
                f"dslc: no kernel named '{name}' in {origin} (its functions: "
                f"{', '.join(f.name for f in funcs) or 'none'})")
        fn = match[0]
    args = fn.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + \
        list(args.defaults)
    params = []
    for a, d in list(zip(positional, defaults)) + list(
            zip(args.kwonlyargs, args.kw_defaults)):
        kind, dtype, rank = _annotation(a.annotation)
        value, has = None, d is not None
        if has:
            try:
                value = ast.literal_eval(d)
            except ValueError:
                has = False
        params.append(Param(a.arg, kind, dtype, rank, value, has))
    return fn.name, params


class Source:
    """A DSL program: `path` (what dslc compiles), `origin` (what messages
    should name), `sha256` of the text and the kernel's parameters."""

    def __init__(self, text, path, origin, name, line_offset=0):
        self.text, self.path, self.origin = text, path, origin
        self.sha256 = hashlib.sha256(text.encode()).hexdigest()
        self.name, self.params = parse_params(text, name, origin)

    def map_paths(self, message):
        """A dslc message with the compiled copy's path replaced by the
        user's file."""
        if self.path != self.origin:
            message = message.replace(self.path, self.origin)
        return message

    @staticmethod
    def from_file(path, name):
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            raise InvalidArgumentError(
                f"dslc: cannot read kernel source {path}: {e.strerror}") \
                from None
        return Source(text, os.path.abspath(path), path, name)

    @staticmethod
    def from_string(text, name, origin="<string>", pad_lines=0):
        """A source given as text, written once to the cache's sources/
        folder (dslc compiles files). pad_lines blank lines go first, so
        line numbers match the file the text came from."""
        text = "\n" * pad_lines + textwrap.dedent(text)
        sha = hashlib.sha256(text.encode()).hexdigest()
        folder = os.path.join(_locate.cache_dir(), "sources")
        path = os.path.join(folder, f"{sha[:32]}.py")
        if not os.path.isfile(path):
            os.makedirs(folder, exist_ok=True)
            tmp = f"{path}.tmp.{os.getpid()}"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        src = Source(text, path, origin if origin != "<string>" else path,
                     name)
        return src

    @staticmethod
    def from_function(fn):
        """The source of a decorated function, without dslc's own decorator
        (helion's, which carries the config, stays), line numbers kept."""
        try:
            lines, first = inspect.getsourcelines(fn)
            origin = inspect.getsourcefile(fn) or "<function>"
        except (OSError, TypeError) as e:
            raise InvalidArgumentError(
                f"dslc.kernel: the source of {fn.__name__} is not available "
                f"({e}); pass the file or the source text") from None
        text = textwrap.dedent("".join(lines))
        tree = ast.parse(text)
        fdef = tree.body[0]
        drop = set()
        scope = getattr(fn, "__globals__", {})
        for d in fdef.decorator_list:
            head = _dotted(d.func if isinstance(d, ast.Call) else d) or ""
            obj = scope.get(head.split(".")[0])
            mod = getattr(obj, "__name__", "") if inspect.ismodule(obj) \
                else getattr(obj, "__module__", "") or ""
            if mod == "dslc" or mod.startswith("dslc."):
                drop.update(range(d.lineno - 1, d.end_lineno))
                marker = d.lineno - 1
        # dslc's decorator becomes a bare @dslc.kernel (which marks a kernel
        # for dslc; its arguments travel on the command line)
        kept = [("" if i in drop else l) for i, l in
                enumerate(text.splitlines())]
        if drop:
            kept[marker] = "@dslc.kernel"
        elif not fdef.decorator_list:
            raise InvalidArgumentError(
                f"dslc.kernel: {fn.__name__} is not decorated")
        body = "\n".join(kept) + "\n"
        # The module's imports (aliases such as `import helion.language as
        # hl`) on one line above, blank lines keeping the line numbers.
        header = _module_imports(origin) if first >= 2 else ""
        text = (header + "\n" + "\n" * (first - 2) if header else
                "\n" * (first - 1)) + body
        return Source.from_string(text, fn.__name__, origin=origin)


def _module_imports(path):
    """The top-level import statements of a file, joined by '; '
    (__future__ imports left out)."""
    try:
        with open(path) as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError):
        return ""
    out = []
    for n in tree.body:
        if isinstance(n, ast.Import) or (isinstance(n, ast.ImportFrom) and
                                         n.module != "__future__"):
            out.append(ast.unparse(n))
    return "; ".join(out)
