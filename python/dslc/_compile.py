"""Compiling a kernel for one rank with the `dslc` binary, cached on disk.

Cache entry: <cache_dir>/kernels/<key hash>/k.cubin (+ k.cubin.json, the
metadata, and key.json, the key in full). The key holds what the cubin
depends on: the source's sha256, the kernel name, rank, world size, the
--signature (dtype and rank of each tensor passed), the shapes passed, the
-D values, the config (given, or the tuning cache's content when it comes
from there) and extra dslc arguments. key.json also records the compiler
(the binary's sha256, and its --version line); an entry made by another
compiler binary is rebuilt when a dslc binary is at hand, and used as is
when none is (a cache carried to a machine without the compiler).
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from . import _capi, _locate
from .errors import CompileError, RuntimeNotFoundError, parse_diagnostics

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
                 config=None, config_from_cache_size=None, extra_args=()):
        self.source, self.rank, self.world = source, rank, world
        self.signature = dict(sorted(signature.items()))
        self.shapes = {k: list(v) for k, v in sorted(shapes.items())}
        self.defines = dict(sorted(defines.items()))
        self.config = config
        self.config_from_cache_size = config_from_cache_size
        self.extra_args = list(extra_args)

    def key(self):
        k = {"source_sha256": self.source.sha256, "kernel": self.source.name,
             "rank": self.rank, "world_size": self.world,
             "signature": self.signature, "shapes": self.shapes,
             "defines": {n: repr(v) for n, v in self.defines.items()},
             "extra_args": self.extra_args}
        if self.config_from_cache_size is not None:
            k["config"] = {"from_tuning_cache": tuning_state(),
                           "size": self.config_from_cache_size}
        else:
            k["config"] = self.config
        return k

    def key_hash(self):
        text = json.dumps(self.key(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def argv(self, dslc, out):
        a = [dslc, self.source.path, "-k", self.source.name, "--emit=cubin",
             "-o", out, "--world-size", str(self.world), "--rank",
             str(self.rank)]
        if self.signature:
            a += ["--signature", ",".join(f"{n}={t}" for n, t in
                                          self.signature.items())]
        for n, v in self.defines.items():
            v = int(v) if isinstance(v, bool) else v
            a += ["-D", f"{n}={v}"]
        if self.config_from_cache_size is not None:
            a += ["--config-from-cache", f"--cache-dir={_locate.cache_dir()}",
                  "--size", str(self.config_from_cache_size)]
        elif self.config is not None:
            a += ["--config", json.dumps(self.config)]
        return a + self.extra_args


def compile_kernel(req, log=None):
    """Path of the cubin for `req` (compiled now, or from the cache)."""
    folder = os.path.join(_locate.cache_dir(), "kernels", req.key_hash())
    cubin = os.path.join(folder, "k.cubin")
    dslc = _locate.compiler()
    if os.path.isfile(cubin + ".json") and os.path.isfile(cubin):
        if dslc is None:
            return cubin
        try:
            with open(os.path.join(folder, "key.json")) as f:
                stored = json.load(f).get("compiler")
        except (OSError, ValueError):
            stored = None
        if stored == compiler_id(dslc):
            return cubin
    if dslc is None:
        raise RuntimeNotFoundError(
            f"dslc: kernel {req.source.name} (rank {req.rank} of "
            f"{req.world}) is not in the cache {folder} and no dslc "
            f"compiler was found ({_locate.searched()})")
    parent = os.path.dirname(folder)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-", dir=parent)
    try:
        argv = req.argv(dslc, os.path.join(tmp, "k.cubin"))
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
        key = req.key()
        key["compiler"] = compiler_id(dslc)
        key["compiler_version"] = compiler_version(dslc)
        key["source_file"] = req.source.origin
        key["argv"] = [cubin if a == argv[argv.index("-o") + 1] else a
                       for a in argv[1:]]
        with open(os.path.join(tmp, "key.json"), "w") as f:
            json.dump(key, f, indent=1, sort_keys=True)
        try:
            os.replace(tmp, folder)     # atomic when folder is absent
        except OSError:                 # another process made it first
            shutil.rmtree(folder, ignore_errors=True)
            os.replace(tmp, folder)
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
    return cubin


def size_bucket(n):
    """floor(log2(n)), 0 for n <= 1: the tuning cache's bucket (the
    contract's rule, from the runtime's dslcSizeBucket)."""
    return _capi.size_bucket(n)


def is_tuned(source, collective, world, dtype, n):
    """Whether the tuning cache holds this kernel (its sha256:name key) for
    the collective, world size, dtype and size bucket of n."""
    try:
        with open(tuning_cache_path()) as f:
            entries = json.load(f).get("entries", [])
    except (OSError, ValueError):
        return False
    want = f"{source.sha256}:{source.name}"
    for e in entries:
        k = e.get("key", {})
        if (k.get("kernel") == want and k.get("collective") == collective and
                k.get("world_size") == world and k.get("dtype") == dtype and
                k.get("bucket") == size_bucket(n)):
            return True
    return False


def autotune(source, collective, world, dtype, n, log=None):
    """Runs the tuner for this kernel at size n (every rank of the job runs
    it: the tuner's own multi-process mode, joined through the job's
    environment), unless the tuning cache already has the size's bucket."""
    if is_tuned(source, collective, world, dtype, n):
        return
    tuner, dslc = _locate.tuner(), _locate.compiler()
    if tuner is None or dslc is None:
        raise RuntimeNotFoundError(
            f"dslc: autotune needs the tuner and dslc binaries "
            f"({_locate.searched()})")
    argv = [tuner, "--dsl", source.path, "-k", source.name, "--collective",
            collective, "--world-size", str(world), "--dtype", dtype,
            "--sizes", str(n), "--dslc", dslc,
            "--cache-dir", _locate.cache_dir(), "--quiet"]
    if log:
        log(" ".join(argv))
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise CompileError(
            f"dslc: tuning {source.name} at size {n} failed (exit "
            f"{p.returncode}):\n{source.map_paths((p.stderr + p.stdout).strip())}")
