"""Compiling a kernel for one rank with the `dslc` binary, cached on disk.

Two levels (docs/python.md, "The compile cache"):

  <cache_dir>/kernels/<family hash>/<specialization>/k.cubin
                                                    k.cubin.json, key.json

The family key is what every cubin of the kernel depends on: the source's
sha256, the kernel name, rank, world size, the --signature (dtypes and
ranks that differ from the annotations), the -D values, the config (given,
or the tuning cache's content when it comes from there) and extra dslc
arguments. Shapes are not in it. A compile passes the call's shapes
(`--shape NAME=AxB`, when the compiler has the option); the cubin is then
specialized for the few sizes the kernel needs at compile time, which its
metadata lists (the contract's rule, read through the C API:
dslcMetadataSpecializedSizes). The second level is those sizes: a call
uses any cubin of the family whose specialized sizes its tensors have, so
a shape-generic kernel is compiled once for every shape.

key.json also records the compiler (the binary's sha256 and its --version
line); an entry made by another compiler binary is rebuilt when a dslc
binary is at hand, and used as is when none is (a cache carried to a
machine without the compiler).
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from . import _capi, _locate
from .errors import (CompileError, InvalidArgumentError,
                     RuntimeNotFoundError, parse_diagnostics)

_compiler_ids = {}


def compiler_id(path):
    """'sha256 P' of a dslc binary (memoized): what a cache entry must have
    been made by. Its version line is recorded beside it (compiler_version)
    but not compared: a carried binary that cannot run there still
    matches."""
    st = os.stat(path)
    memo = (path, st.st_size, st.st_mtime_ns)
    if memo not in _compiler_ids:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _compiler_ids[memo] = f"sha256 {h.hexdigest()[:16]}"
    return _compiler_ids[memo]


def compiler_version(path):
    try:
        return subprocess.run([path, "--version"], capture_output=True,
                              text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def tuning_cache_path():
    return os.path.join(_locate.cache_dir(), "tuning.json")


def tuning_state():
    """sha256 of the tuning cache file ('none' when absent): part of the
    key of kernels compiled with --config-from-cache."""
    try:
        with open(tuning_cache_path(), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return "none"


class CompileRequest:
    """Everything one compile depends on."""

    def __init__(self, source, rank, world, signature, shapes, defines,
                 config=None, config_from_cache_size=None, extra_args=(),
                 config_from_cache_shapes=None):
        self.source, self.rank, self.world = source, rank, world
        self.signature = dict(sorted(signature.items()))
        self.shapes = {k: list(v) for k, v in sorted(shapes.items())}
        self.defines = dict(sorted(defines.items()))
        self.config = config
        self.config_from_cache_size = config_from_cache_size
        # the call's tensors (a kernel tuned per shape): the cache entry
        # tuned at them wins (dslc --size NAME=AxB)
        self.config_from_cache_shapes = tuning_shapes(
            config_from_cache_shapes or {})
        self.extra_args = list(extra_args)

    def key(self):
        """The family key (no shapes)."""
        k = {"source_sha256": self.source.sha256, "kernel": self.source.name,
             "rank": self.rank, "world_size": self.world,
             "signature": self.signature,
             "defines": {n: repr(v) for n, v in self.defines.items()},
             "extra_args": self.extra_args}
        if self.config_from_cache_size is not None:
            k["config"] = {"from_tuning_cache": tuning_state(),
                           "size": self.config_from_cache_size}
            if self.config_from_cache_shapes:
                # the entry is chosen by the extents' buckets (shapeKey)
                k["config"]["shape_buckets"] = {
                    n: [size_bucket(d) for d in s]
                    for n, s in self.config_from_cache_shapes.items()}
        else:
            k["config"] = self.config
        return k

    def key_hash(self):
        text = json.dumps(self.key(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def argv(self, dslc, out, with_shapes):
        a = [dslc, self.source.path, "-k", self.source.name, "--emit=cubin",
             "-o", out, "--world-size", str(self.world), "--rank",
             str(self.rank)]
        if self.signature:
            a += ["--signature", ",".join(f"{n}={t}" for n, t in
                                          self.signature.items())]
        if with_shapes:
            a += dslc_shape_args(self.shapes)
        for n, v in self.defines.items():
            v = int(v) if isinstance(v, bool) else v
            a += ["-D", f"{n}={v}"]
        if self.config_from_cache_size is not None:
            a += ["--config-from-cache", f"--cache-dir={_locate.cache_dir()}",
                  "--size", str(self.config_from_cache_size)]
            for n, s in self.config_from_cache_shapes.items():
                a += ["--size", f"{n}={'x'.join(map(str, s))}"]
        elif self.config is not None:
            a += ["--config", json.dumps(self.config)]
        return a + self.extra_args


def specialization_matches(specialized, shapes):
    """Whether tensors of these shapes (name -> sizes, the call's) have
    every specialized size [(param, dim, size)]; sizes of arguments the
    call leaves out (filled by the package) are not compared."""
    for param, dim, size in specialized:
        shape = shapes.get(param)
        if shape is None:
            continue
        if dim >= len(shape) or int(shape[dim]) != size:
            return False
    return True


def specialization_name(specialized):
    """The second-level folder of a cubin specialized for these sizes."""
    if not specialized:
        return "any"
    text = json.dumps(sorted([list(s) for s in specialized]))
    return "s-" + hashlib.sha256(text.encode()).hexdigest()[:16]


_shape_options = {}


def compiler_has_shape_option(dslc):
    """Whether this dslc binary takes --shape NAME=AxB (memoized per
    binary)."""
    cid = compiler_id(dslc)
    if cid not in _shape_options:
        try:
            p = subprocess.run([dslc, "--help"], capture_output=True,
                               text=True, timeout=60)
            _shape_options[cid] = "--shape" in p.stdout + p.stderr
        except (OSError, subprocess.SubprocessError):
            _shape_options[cid] = False
    return _shape_options[cid]


def _entries(family):
    """(folder, key.json content) of every complete cubin of a family, the
    most specialized first, then the newest."""
    out = []
    try:
        names = sorted(os.listdir(family))
    except OSError:
        return out
    for name in names:
        folder = os.path.join(family, name)
        keyfile = os.path.join(folder, "key.json")
        if name.startswith(".") or not os.path.isfile(
                os.path.join(folder, "k.cubin.json")) or not os.path.isfile(
                os.path.join(folder, "k.cubin")):
            continue
        try:
            with open(keyfile) as f:
                key = json.load(f)
            mtime = os.stat(keyfile).st_mtime_ns
        except (OSError, ValueError):
            continue
        if isinstance(key.get("specialized"), list):
            out.append((folder, key, mtime))
    out.sort(key=lambda e: (-len(e[1]["specialized"]), -e[2]))
    return [(folder, key) for folder, key, _ in out]


def lookup(req, dslc):
    """The cached cubin for req's shapes, or None: an entry of the family
    whose specialized sizes the shapes have, made by this compiler. Without
    a compiler (a carried cache), entries of the compiler that made the
    family's newest entry come first, then any."""
    family = os.path.join(_locate.cache_dir(), "kernels", req.key_hash())
    entries = [(f, k) for f, k in _entries(family)
               if specialization_matches([tuple(s) for s in k["specialized"]],
                                         req.shapes)]
    if dslc is not None:
        want = compiler_id(dslc)
        entries = [(f, k) for f, k in entries if k.get("compiler") == want]
    elif entries:
        newest = max(entries, key=lambda e: os.stat(
            os.path.join(e[0], "key.json")).st_mtime_ns)[1].get("compiler")
        entries.sort(key=lambda e: e[1].get("compiler") != newest)
    return os.path.join(entries[0][0], "k.cubin") if entries else None


def compile_kernel(req, log=None):
    """Path of the cubin for `req` (from the cache, or compiled now)."""
    dslc = _locate.compiler()
    hit = lookup(req, dslc)
    if hit is not None:
        return hit
    family = os.path.join(_locate.cache_dir(), "kernels", req.key_hash())
    if dslc is None:
        shapes = ", ".join(f"{n}={'x'.join(map(str, s))}"
                           for n, s in req.shapes.items())
        raise RuntimeNotFoundError(
            f"dslc: kernel {req.source.name} (rank {req.rank} of "
            f"{req.world}; shapes {shapes or 'none'}) is not in the cache "
            f"{family} and no dslc compiler was found ({_locate.searched()})")
    os.makedirs(family, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-", dir=family)
    try:
        cubin = _run_compiler(req, dslc, tmp, log)
        specialized = _capi.specialized_sizes(cubin + ".json")
        folder = os.path.join(family, specialization_name(specialized))
        key = req.key()
        key["specialized"] = [list(s) for s in specialized]
        key["shapes"] = req.shapes      # what the compile was given
        key["compiler"] = compiler_id(dslc)
        key["compiler_version"] = compiler_version(dslc)
        key["source_file"] = req.source.origin
        key["argv"] = [a.replace(tmp, folder) for a in
                       req.argv(dslc, cubin, _shapes_given(dslc))[1:]]
        with open(os.path.join(tmp, "key.json"), "w") as f:
            json.dump(key, f, indent=1, sort_keys=True)
        try:
            os.replace(tmp, folder)     # atomic when folder is absent
        except OSError:                 # a stale entry, or another process
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(tmp, folder)
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
    if not specialization_matches(specialized, req.shapes):
        wrong = [f"{p}.size({d}) == {n}" for p, d, n in specialized
                 if not specialization_matches([(p, d, n)], req.shapes)]
        raise CompileError(
            f"dslc: kernel {req.source.name} is compiled in for "
            f"{', '.join(wrong)} (its source or -D fixes the size), but the "
            f"call's tensors have shapes {req.shapes}")
    return os.path.join(folder, "k.cubin")


def _shapes_given(dslc):
    return compiler_has_shape_option(dslc)


def _run_compiler(req, dslc, tmp, log):
    out = os.path.join(tmp, "k.cubin")
    argv = req.argv(dslc, out, _shapes_given(dslc))
    if log:
        log(" ".join(argv))
    try:
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=600)
    except subprocess.TimeoutExpired:
        raise CompileError(f"dslc: compiling {req.source.name} took more "
                           f"than 600 s: {' '.join(argv)}") from None
    if p.returncode != 0:
        text = req.source.map_paths((p.stderr + p.stdout).strip())
        raise CompileError(
            f"dslc could not compile kernel {req.source.name} for rank "
            f"{req.rank} of {req.world}:\n{text}",
            parse_diagnostics(text))
    return out


def size_bucket(n):
    """floor(log2(n)), 0 for n <= 1: the tuning cache's bucket (the
    contract's rule, from the runtime's dslcSizeBucket)."""
    return _capi.size_bucket(n)


def is_tuned(source, world, dtype, n, shapes=None):
    """Whether the tuning cache holds this kernel (its name and source
    sha256) for the world size, dtype and size bucket of n, and, given the
    call's tensor `shapes` (a kernel tuned per shape), tuned at them: the
    runtime's dslcTuningCacheHasShape, the rule `dslc --config-from-cache`
    reads by."""
    return _capi.tuning_cache_has(
        _locate.cache_dir(), source.name, source.sha256, world, dtype, n,
        tuning_shapes(shapes) if shapes else None)


def tuning_shapes(shapes):
    """The call's tensor shapes as the tuner's problems hold them (name ->
    sizes; a 0-d tensor as [1]): the shapes a cache entry is keyed by."""
    return {k: [int(d) for d in v] or [1] for k, v in sorted(shapes.items())}


def tuning_tools():
    """(tuner, dslc): both must run on this machine to autotune."""
    tuner, dslc = _locate.tuner(), _locate.compiler()
    if tuner is None or dslc is None:
        raise RuntimeNotFoundError(
            f"dslc: autotune needs the tuner and dslc binaries "
            f"({_locate.searched()})")
    return tuner, dslc


def _run_tuner(source, argv, what, log):
    """Runs the tuner; its messages, in the user's paths, on failure."""
    if log:
        log(" ".join(argv))
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise CompileError(
            f"dslc: tuning {source.name} {what} failed (exit "
            f"{p.returncode}):\n"
            f"{source.map_paths((p.stderr + p.stdout).strip())}")


def autotune(source, collective, world, dtype, n, log=None):
    """Runs the tuner for this kernel at size n (every rank of the job runs
    it: the tuner's own multi-process mode, joined through the job's
    environment), unless the tuning cache already has the size's bucket."""
    if is_tuned(source, world, dtype, n):
        return
    tuner, dslc = tuning_tools()
    argv = [tuner, "--dsl", source.path, "-k", source.name, "--collective",
            collective, "--world-size", str(world), "--dtype", dtype,
            "--sizes", str(n), "--dslc", dslc,
            "--cache-dir", _locate.cache_dir(), "--quiet"]
    _run_tuner(source, argv, f"at size {n}", log)


def resolve_reference(source, reference):
    """reference='FILE.py:NAME' (FILE relative to the kernel's own file,
    or a kernel NAME of the same file) as the tuner takes it; None stays
    None."""
    if reference is None or callable(reference):
        return reference        # a callable: a PyTorch reference
    if not isinstance(reference, str) or not reference.strip():
        raise InvalidArgumentError(
            f"dslc.kernel({source.name}): reference= is 'FILE.py:NAME' or "
            f"the NAME of a kernel in the same file, got {reference!r}")
    path, sep, name = reference.rpartition(":")
    home = source.origin if source.origin and os.path.isfile(
        source.origin) else source.path
    if not sep:
        path, name = source.path, reference
    elif not os.path.isabs(path) and home:
        path = os.path.join(os.path.dirname(home), path)
    if not path or not os.path.exists(path):
        raise InvalidArgumentError(
            f"dslc.kernel({source.name}): reference {reference!r}: no file "
            f"{path!r} (a kernel given as source text names its reference "
            f"with an absolute FILE.py:NAME)")
    return f"{path}:{name}"


def dslc_shape_args(shapes):
    """dslc's --shape NAME=AxB for every tensor of `shapes` (name -> sizes;
    scalars, with no sizes, left out), in name order."""
    argv = []
    for n, shape in sorted(shapes.items()):
        if shape:
            argv += ["--shape", f"{n}={'x'.join(map(str, shape))}"]
    return argv


def tuner_shape_args(shapes, scalars):
    """--shape NAME=AxB,... (one problem: every tensor of the call) and
    --scalar NAME=V, the tuner's spelling of one call."""
    argv = []
    if shapes:
        argv += ["--shape", ",".join(
            f"{k}={'x'.join(map(str, v))}"
            for k, v in tuning_shapes(shapes).items())]
    for k, v in sorted(scalars.items()):
        argv += ["--scalar", f"{k}={v}"]
    return argv


def autotune_with_reference(source, reference, world, dtype, n, *, shapes,
                            signature, defines, scalars, extra_args=(),
                            log=None):
    """Any kernel: the tuner's compile + run at this call's shapes, each
    config checked against the DSL reference (docs/tuner.md), unless the
    cache already has the size's bucket. The kernel's dtypes (--signature)
    and constexprs (-D) reach the candidates only; the reference keeps its
    own annotations."""
    if is_tuned(source, world, dtype, n, shapes):
        return
    tuner, dslc = tuning_tools()
    if source.path is None:
        raise InvalidArgumentError(
            f"dslc.kernel({source.name}): autotune=True with reference= "
            f"needs a kernel from a file (the tuner reads it)")
    argv = reference_tuner_argv(
        (tuner, dslc), source, reference, world, shapes=shapes,
        scalars=scalars, defines=defines, signature=signature,
        extra_args=extra_args)
    _run_tuner(source, argv, "at its call's shapes", log)


def reference_tuner_argv(tools, source, reference, world, *, shapes, scalars,
                         defines, signature, extra_args, tuner_args=()):
    """The tuner's one-shot command for the kernel of `source` checked
    against `reference` (FILE.py:NAME, or "caller" with the measurer's
    --measurer-fds among `tuner_args`) at one call's problem: its shapes and
    scalars, its constexprs (-D, every dslc call), its dtypes (--signature),
    its shapes (--shape, for sizes a candidate compiles in) and the kernel's
    own dslc arguments (the candidates' calls only);
    compiles in parallel, one a core (at most 16)."""
    tuner, dslc = tools
    jobs = max(1, min(os.cpu_count() or 1, 16))
    argv = [tuner, "-k", f"{source.path}:{source.name}", "--reference",
            reference, "--world-size", str(world), "--dslc", dslc,
            "--cache-dir", _locate.cache_dir(), "--quiet", "-j", str(jobs),
            *tuner_args]
    argv += tuner_shape_args(shapes, scalars)
    for name, value in sorted(defines.items()):
        argv += ["--dslc-arg=-D", f"--dslc-arg={name}={value}"]
    if signature:
        argv += ["--kernel-arg=--signature", "--kernel-arg=" + ",".join(
            f"{k}={v}" for k, v in sorted(signature.items()))]
    # The candidates compile in the sizes they need at compile time (`:`
    # over a dimension, hl.specialize) from the call's shapes, as the
    # call's own compile does.
    argv += [f"--kernel-arg={a}" for a in dslc_shape_args(shapes)]
    for a in extra_args:
        argv.append(f"--kernel-arg={a}")
    return argv
