"""Helion's own examples run with dslc and checked against their PyTorch
references (issue 26).

    python helion_examples.py HELION/examples/rms_norm.py [more files]
    python helion_examples.py --all HELION/examples        (each in a process)

A Helion example file is imported as written with a stand-in for the
`helion` package: `@helion.kernel` makes each kernel a dslc kernel, and the
file's own `main()` runs. So the inputs are built the way its main() /
check() builds them, and `run_example(kernel, baseline, args)` compares
the kernel with the PyTorch reference the file defines, with the file's
tolerances (Helion's defaults: rtol 1e-2, atol 1e-1), forward and, with
bwd=True, backward. Like Helion, a kernel's code outside its tile loop
runs on the host: the function's statements before the loop run in Python
(views, sizes, torch.empty of the outputs), the loop is the dslc kernel
(`python/dslc`, dslc.kernel at world 1) launched with those outputs, and
the statements after it (`return out, rms.reshape(-1, 1)`, `loss.mean()`)
run in Python again. hl.register_block_size returns the block size dslc
compiled (its metadata's tunables).

Report: one line per kernel (PASS, FAIL with the reason, SKIP with why),
then a summary. Exit status 0 when every kernel that ran passed, 1 when one
failed, 77 when nothing could run (no torch, no GPU). Importable without
torch: the source transform is plain Python (tests: python/tests).
"""

import argparse
import hashlib
import importlib.util
import inspect
import json
import math
import os
import subprocess
import sys
import tempfile
import traceback
import types

SKIP_EXIT = 77
HERE = os.path.dirname(os.path.abspath(__file__))
REPO_PYTHON = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import helion_callables  # noqa: E402  (beside this file)
from helion_host import (Skip, define_text,  # noqa: E402
                         host_function_source, parameter_kinds)

# Helion's examples that need nothing beyond Hopper (issue 26's scope):
# not Blackwell-only, TPU/Pallas-only, CuTe-only or jagged.
IN_SCOPE = [
    "add.py", "attention.py", "batch_softmax.py", "bf16xint16_gemm.py",
    "bmm.py", "broadcast_matmul.py", "concatenate.py", "cross_entropy.py",
    "embedding.py", "epilogue_subtiling.py", "exp.py", "flex_attention.py",
    "fp8_attention.py", "fp8_gemm.py", "fp8_matmul.py", "fused_linear_jsd.py",
    "gather_gemv.py", "gdn_fwd_h.py", "geglu.py", "grpo_loss.py",
    "int4_gemm.py", "jsd.py", "kl_div.py", "layer_norm.py", "long_sum.py",
    "low_mem_dropout.py", "mamba2_chunk_scan.py", "mamba2_chunk_state.py",
    "matmul.py", "matmul_layernorm.py", "matmul_split_k.py",
    "moe_matmul_ogs.py", "rms_norm.py", "rope.py", "se_block.py",
    "segment_reduction.py", "softmax.py", "split_k_barrier.py",
    "squeeze_and_excitation_net.py", "sum.py", "swiglu.py", "welford.py",
    "xsa.py",
]


# ---------------------------------------------------------------------------
# Running kernels (torch, a GPU, python/dslc)
# ---------------------------------------------------------------------------

class Report:
    """Per kernel, what happened to its runs."""

    def __init__(self):
        self.kernels = {}      # name -> list of (status, detail)
        self.invoked = []      # kernels called since the last mark

    def mark(self):
        self.invoked = []

    def add(self, kernel, status, detail):
        self.kernels.setdefault(kernel, []).append((status, detail))

    def close_run(self, status, detail):
        for k in dict.fromkeys(self.invoked):
            self.add(k, status, detail)
        self.invoked = []

    def verdict(self, kernel):
        """FAIL when any run failed; else PASS when any run passed (calls
        dslc could not make, e.g. with a function passed at run time, are
        said beside it); else SKIP."""
        runs = self.kernels.get(kernel, [])
        by = {status: [d for s, d in runs if s == status]
              for status in ("PASS", "FAIL", "SKIP")}
        if by["FAIL"]:
            return "FAIL", by["FAIL"][0]
        if by["PASS"]:
            skipped = (f" ({len(by['SKIP'])} call(s) skipped: "
                       f"{by['SKIP'][0]})" if by["SKIP"] else "")
            return "PASS", by["PASS"][0] + skipped
        if by["SKIP"]:
            return "SKIP", by["SKIP"][0]
        return "SKIP", "never called"


REPORT = Report()


class _Context:
    """One call of a kernel: its outputs, block sizes and launch."""

    def __init__(self, kernel, blocks):
        self.kernel, self.blocks, self.outputs = kernel, list(blocks), []

    def made(self, t):
        self.outputs.append(t)
        return t

    def block_size(self, *args, **kwargs):
        if not self.blocks:
            raise Skip("hl.register_block_size: dslc's metadata lists fewer "
                       "block sizes than the host code takes")
        return self.blocks.pop(0)

    def launch(self, args):
        self.kernel.launch(args, self.outputs)


def static_shapes_setting(decorator_kwargs, environ=os.environ):
    """Helion's static_shapes for a kernel: the decorator's keyword, else
    HELION_STATIC_SHAPES (Helion's literals), else True (its default)."""
    given = decorator_kwargs.get("static_shapes")
    if given is not None:
        return bool(given)
    text = environ.get("HELION_STATIC_SHAPES", "").strip().lower()
    if text in ("", "1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"HELION_STATIC_SHAPES must be one of 1, true, yes, "
                     f"on, 0, false, no, off; got {text!r}")


class DslcKernel:
    """What @helion.kernel makes of a kernel of an example file."""

    def __init__(self, fn, decorator_kwargs):
        self.fn, self.name = fn, fn.__name__
        # what Helion's Kernel object exposes and examples re-read
        # (attention.py: helion.kernel(attention.fn, configs=attention.configs))
        config = decorator_kwargs.get("config")
        self.configs = decorator_kwargs.get("configs") or (
            [config] if config is not None else [])
        self.settings = decorator_kwargs
        # Helion specializes a kernel on its tensors' shapes unless told
        # not to (static_shapes=True by default, HELION_STATIC_SHAPES):
        # so does dslc then (--specialize-shapes; one cubin per shape).
        self.static_shapes = static_shapes_setting(decorator_kwargs)
        self.path = inspect.getsourcefile(fn)
        with open(self.path) as f:
            self.source = f.read()
        self.kinds = parameter_kinds(self.source, self.name)
        self.signature = inspect.signature(fn)
        self.hosts = {}         # kernel file -> its host function
        self.instances = {}
        # A config to compile instead of the kernel's own (a tuner's
        # candidate: benchmarks/helion_same_source.py); None: the kernel's.
        self.config = None

    def use_config(self, config):
        """Compile `config` (a dict) from now on, or the kernel's own
        config with None."""
        self.config = config
        self.instances = {}

    def autotune(self, args, want, select, tolerance=None, tuner_args=()):
        """Tunes the kernel at these arguments with dslc's tuner (the
        package's tuning against a PyTorch reference: the tuner searches,
        this process measures): each candidate runs the file's host code
        around the candidate's cubin, select(args, returned) gives what it
        computed, checked against `want` (tensors) within `tolerance`
        (rtol, atol). Later calls compile the tuned config. Returns what
        the tuning did (_tune_caller.tune_calls; None: cached)."""
        import torch
        from dslc import _tune_caller
        from dslc._kernel import check_errors
        bound = self.signature.bind(*args)
        bound.apply_defaults()
        values, defines, passed = self._arguments(bound.arguments)
        if passed:
            raise Skip("tuning a kernel for a function passed at run time")
        kernel = self._kernel(defines)
        kernel.block_sizes(values)          # the default config's compile
        vals = kernel._map_args((), values)
        signature, shapes, defs, _ = kernel._request(vals, 0, 1)
        dtype, _ = kernel._data_of(vals)
        n = max((math.prod(s) for s in shapes.values()), default=1)
        device = next(v.device.index or 0 for v in vals.values()
                      if isinstance(v, torch.Tensor))

        def runner(cubin, metadata):
            kernel.use_cubin(cubin, metadata)
            return (lambda: list(select(args, self(*args)))), \
                check_errors, lambda: kernel.use_cubin(None)
        problem = dict(shapes=shapes, defines=defs, signature=signature)
        done = _tune_caller.tune_calls(
            kernel.source, problem, dtype=dtype, n=n, device=device,
            want=list(want), runner=runner, tolerance=tolerance,
            extra_args=kernel.dslc_args, tuner_args=tuner_args)
        kernel.config_from_cache_size = n
        kernel.config_from_cache_per_shape = True
        kernel.release_instances()
        return done

    def __call__(self, *args, **kwargs):
        REPORT.invoked.append(self.name)
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values, defines, passed = self._arguments(bound.arguments)
        path, host, lifted = self._variant(passed)
        values.update({n: t.contiguous() for n, t in lifted.items()})
        kernel = self._kernel(defines, path)
        blocks = kernel.block_sizes(values)
        ctx = _Context(_Launcher(kernel, values), blocks)
        return host(**bound.arguments, **lifted, __dslc_ctx__=ctx)

    def _variant(self, passed):
        """(file, host function, lifted tensors) of the kernel compiled for
        the functions `passed` at run time ({parameter: function};
        helion_callables), or of the file's own kernel when none is."""
        lifted = {}
        if passed:
            import torch
            try:
                source, lifted = helion_callables.inline_callables(
                    self.source, self.name, passed,
                    lambda v: isinstance(v, torch.Tensor))
            except helion_callables.NotInlinable as e:
                raise Skip(f"a function passed at run time: {e}")
            digest = hashlib.sha256(source.encode()).hexdigest()[:16]
            folder = os.path.join(tempfile.gettempdir(), "dslc-helion-variants")
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"{self.name}-{digest}.py")
            if not os.path.exists(path):
                with open(path, "w") as f:
                    f.write(source)
        else:
            source, path = self.source, self.path
        host = self.hosts.get(path)
        if host is None:
            ns = dict(self.fn.__globals__)
            exec(compile(host_function_source(source, self.name), path,
                         "exec"), ns)
            host = self.hosts[path] = ns[self.name]
        return path, host, lifted

    def _arguments(self, arguments):
        """(tensor and scalar values, -D defines, {parameter: function
        passed at run time})."""
        import torch
        values, defines, passed = {}, [], {}
        for name, v in arguments.items():
            kind = self.kinds.get(name, "value")
            default = self.signature.parameters[name].default
            if kind == "callable":
                if v is not default:
                    passed[name] = v
                continue
            if kind == "define" or (kind == "optional" and v is None):
                if v is not None or kind == "define":
                    defines += ["-D", f"{name}={define_text(v)}"]
                continue
            if isinstance(v, torch.Tensor):
                # a permutation of a contiguous layout (fp8_gemm's column-
                # major y) is compiled for as stored; other layouts copied
                from dslc._kernel import dim_order
                values[name] = v if dim_order(v.shape, v.stride()) is not \
                    False else v.contiguous()
            elif isinstance(v, (bool, int, float)):
                values[name] = v
            elif v is not None:
                raise Skip(f"'{name}' is a {type(v).__name__}")
        if self.static_shapes:
            defines.append("--specialize-shapes")
        return values, tuple(defines), passed

    def _kernel(self, defines, path=None):
        path = path or self.path
        k = self.instances.get((defines, path))
        if k is None:
            k = _HostKernelFactory.make(path, self.name, defines, self.config)
            self.instances[(defines, path)] = k
        return k


class _HostKernelFactory:
    """dslc.kernel with the outputs the host code made passed by name."""
    cls = None

    @classmethod
    def make(cls, path, name, defines, config=None):
        if cls.cls is None:
            from dslc import _comm, _kernel
            from dslc._source import Source

            class HostKernel(_kernel.Kernel):
                # (cubin, metadata) to launch instead of compiling: a
                # tuner's candidate (DslcKernel.autotune)
                override = None

                def __init__(self, *args, **kwargs):
                    super().__init__(*args, **kwargs)
                    self._metadata = {}     # request key -> metadata
                    # (values, mapped values, request) of the call whose
                    # block sizes were last asked: its launch reuses them
                    self._asked = None

                def use_cubin(self, cubin, metadata=None):
                    self.release_instances()
                    self.override = (cubin, metadata) if cubin else None

                def release_instances(self):
                    for inst in self._instances.values():
                        inst.release()
                    self._instances.clear()
                    self._metadata = {}

                def block_sizes(self, values):
                    # The metadata of the cubin for these arguments, read
                    # once per argument shapes: a call's host cost is then
                    # the package's, not a cache lookup and a JSON parse
                    # (which put ~0.4 ms on every timed call).
                    comm = _comm.default()
                    vals = self._map_args((), values)
                    request = self._request(vals, comm.rank, comm.world_size)
                    self._asked = (values, vals, request)
                    key = request[3]
                    md = self._metadata.get(key)
                    if md is None:
                        if self.override:
                            cubin, metadata = self.override
                        else:
                            cubin, metadata = self.compile(**values), None
                        with open(metadata or cubin + ".json") as f:
                            md = json.load(f)
                        self._metadata[key] = md
                    self.md = md
                    return [t["value"] for t in md.get("tunables", [])
                            if t.get("kind") == "block_size"]

                def launch_with(self, values, outputs):
                    comm = _comm.default()
                    names = [o["name"] for o in self.md.get("outputs", [])]
                    if len(names) != len(outputs):
                        raise Skip(
                            f"the host code made {len(outputs)} tensor(s), "
                            f"dslc's kernel has {len(names)} output(s)")
                    if self._asked and self._asked[0] is values:
                        _, vals, request = self._asked
                    else:
                        vals = self._map_args((), values)
                        request = self._request(vals, comm.rank,
                                                comm.world_size)
                    sig, shapes, defs, key = request
                    outs = dict(zip(names, outputs))
                    key += tuple((n, tuple(t.shape), str(t.dtype))
                                 for n, t in outs.items())
                    inst = self._instances.get(key)
                    all_values = dict(vals, **outs)
                    if inst is None:
                        cubin, metadata = self.override or (self._compile(
                            vals, sig, shapes, defs, comm.rank,
                            comm.world_size), None)
                        all_shapes = dict(shapes, **{
                            n: tuple(t.shape) for n, t in outs.items()})
                        inst = _kernel._Instance(self, comm, cubin,
                                                 all_values, all_shapes,
                                                 metadata=metadata)
                        self._instances[key] = inst
                    inst.launch(all_values)

            cls.cls = (HostKernel, Source)
        kernel_cls, source_cls = cls.cls
        return kernel_cls(source_cls.from_file(path, name), config=config,
                          dslc_args=list(defines))


class _Launcher:
    def __init__(self, kernel, values):
        self.kernel, self.values = kernel, values

    def launch(self, args, outputs):
        for o in outputs:
            if not o.is_contiguous():
                raise Skip("an output made by host code is not contiguous")
        self.kernel.launch_with(self.values, outputs)


def _tensors(x):
    import torch
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for e in x for t in _tensors(e)]
    if isinstance(x, dict):
        return [t for e in x.values() for t in _tensors(e)]
    return []


def run_example(kernel_fn, baseline_fn, args, kernel_name="helion",
                baseline_name="torch", rtol=1e-2, atol=1e-1,
                max_mismatch_pct=None, bwd=False, **_):
    """Helion's run_example, correctness only: every kernel against the
    first baseline, forward and (bwd=True) backward."""
    import torch
    kernels = kernel_fn if isinstance(kernel_fn, dict) else \
        {kernel_name: kernel_fn}
    baselines = baseline_fn if isinstance(baseline_fn, dict) else \
        {baseline_name: baseline_fn}
    base = next(iter(baselines.values()))
    expected = _tensors(base(*args))
    for label, fn in kernels.items():
        REPORT.mark()
        try:
            cloned = [a.clone() if isinstance(a, torch.Tensor) else a
                      for a in args]
            got = _tensors(fn(*cloned))
            torch.cuda.synchronize()
            if len(got) != len(expected):
                raise AssertionError(f"{len(got)} results, the reference "
                                     f"gives {len(expected)}")
            worst = 0.0
            for r, e in zip(got, expected):
                r, e = r.to(torch.float32), e.to(torch.float32)
                if max_mismatch_pct is not None:
                    bad = ~torch.isclose(r, e, rtol=rtol, atol=atol)
                    if bad.float().mean().item() > max_mismatch_pct:
                        raise AssertionError(f"{bad.sum().item()} elements "
                                             f"mismatch")
                else:
                    torch.testing.assert_close(r, e, rtol=rtol, atol=atol)
                if r.numel():
                    worst = max(worst, (r - e).abs().max().item())
            if bwd:
                _check_backward(fn, base, args, rtol, atol)
            REPORT.close_run("PASS", f"{label}: max abs error {worst:.3g}"
                             + (", backward too" if bwd else ""))
        except Skip as s:
            REPORT.close_run("SKIP", f"{label}: {s}")
        except AssertionError as e:
            REPORT.close_run("FAIL", f"{label}: mismatch: {_mismatch(e)}")
        except Exception as e:  # a compile error, a kernel error
            REPORT.close_run("FAIL", f"{label}: {type(e).__name__}: "
                             f"{_reason(e)}")
    return {}


def _reason(e):
    """The first line of exception `e` and, where a later line is a
    diagnostic (a CompileError's first line only names the kernel), the
    first `error:` line: what the one-line report keeps."""
    lines = str(e).strip().splitlines()
    if not lines:
        return ""
    error = next((l.strip() for l in lines[1:] if "error:" in l), "")
    return (lines[0][:300] + (" " + error[:300] if error else ""))


def _mismatch(e):
    """assert_close's finding in one line: how many elements differ and
    the greatest differences with where they are (a few outputs near zero
    off by a rounding of another summation order read differently from a
    wrong kernel)."""
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    keep = [l for l in lines if l.startswith(("Mismatched elements",
                                              "Greatest absolute",
                                              "Greatest relative"))]
    return "; ".join(keep or lines[:1])


def _check_backward(fn, base, args, rtol, atol):
    import torch
    grads = [a for a in args if isinstance(a, torch.Tensor) and
             a.requires_grad]
    out = base(*args)
    g = torch.randn_like(out)
    out.backward(g, retain_graph=True)
    want = [t.grad.clone() if t.grad is not None else None for t in grads]
    for t in grads:
        t.grad = None
    fn(*args).backward(g, retain_graph=True)
    for t, w in zip(grads, want):
        if w is not None:
            torch.testing.assert_close(t.grad.float(), w.float(), rtol=rtol,
                                       atol=atol)
        t.grad = None


# ---------------------------------------------------------------------------
# The stand-in helion package
# ---------------------------------------------------------------------------

class _Anything:
    """A module attribute the examples name but this program never uses
    meaningfully (exception classes, autotuner fragments...)."""

    def __init__(self, name="helion"):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return _Anything(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        return _Anything(self._name)

    def __mro_entries__(self, bases):
        return (object,)


class Fragment:
    """helion.autotuner's PowerOfTwoFragment / IntegerFragment(low, high,
    default): the value dslc compiles for hl.register_tunable is the
    default, low when none, clamped (GenHost.cpp's genRegisterTunable), so
    the host code computes with what the kernel was compiled for
    (matmul_split_k's `helion.cdiv(k, split_k)`)."""

    def __init__(self, low, high, default=None, default_val=None):
        value = default if default is not None else default_val
        self.default = min(max(low if value is None else value, low), high)


def register_tunable(name, fragment):
    """hl.register_tunable in host code: the fragment's default."""
    return fragment.default if isinstance(fragment, Fragment) else fragment


def _stand_in(prefix):
    """A stand-in module's __getattr__: any public name is an _Anything;
    dunder names (__file__, __path__, __spec__ ... that importlib, inspect
    and torch probe) are missing, as on a real module without them."""
    def getattr_(attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return _Anything(prefix + attr)
    return getattr_


def install_helion():
    import torch

    helion = types.ModuleType("helion")

    def kernel(fn=None, **kwargs):
        if fn is not None and callable(fn):
            return DslcKernel(fn, kwargs)
        return lambda f: DslcKernel(f, kwargs)

    helion.kernel = helion.jit = kernel
    helion.Config = lambda **kw: dict(kw)
    helion.next_power_of_2 = lambda n: 1 << max(0, (int(n) - 1).bit_length())
    helion.cdiv = lambda a, b: (a + b - 1) // b
    helion.exc = _Anything("helion.exc")

    hl = types.ModuleType("helion.language")
    hl.specialize = lambda x: x
    hl.constexpr = object
    hl.register_tunable = register_tunable
    hl.__getattr__ = _stand_in("hl.")
    helion.language = hl

    testing = types.ModuleType("helion._testing")
    testing.DEVICE = torch.device("cuda")
    testing.HALF_DTYPE = torch.float16
    testing.LONG_INT_TYPE = torch.int64
    testing.run_example = run_example
    testing.__getattr__ = _stand_in("helion._testing.")
    helion._testing = testing

    settings = types.ModuleType("helion.runtime.settings")
    settings._get_backend = lambda: "triton"
    runtime = types.ModuleType("helion.runtime")
    runtime.settings = settings
    runtime.__getattr__ = _stand_in("helion.runtime.")
    helion.runtime = runtime
    compat = types.ModuleType("helion._compat")
    compat.use_tileir_tunables = lambda: False
    compat.__getattr__ = _stand_in("helion._compat.")
    helion._compat = compat
    autotuner = types.ModuleType("helion.autotuner")
    autotuner.__getattr__ = _stand_in("helion.autotuner.")
    autotuner.PowerOfTwoFragment = autotuner.IntegerFragment = Fragment
    helion.__getattr__ = _stand_in("helion.")
    helion.autotuner = autotuner
    for name, mod in [("helion", helion), ("helion.language", hl),
                      ("helion._testing", testing), ("helion.runtime", runtime),
                      ("helion.runtime.settings", settings),
                      ("helion._compat", compat),
                      ("helion.autotuner", autotuner),
                      ("helion.exc", helion.exc)]:
        sys.modules[name] = mod
    for sub in ("config_fragment", "benchmarking"):
        m = types.ModuleType(f"helion.autotuner.{sub}")
        m.__getattr__ = _stand_in("")
        m.PowerOfTwoFragment = m.IntegerFragment = Fragment
        sys.modules[f"helion.autotuner.{sub}"] = m


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def _environment():
    """None when torch and a GPU are there, else why not."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed (run with /opt/torch/.venv/bin/python)"
    if not torch.cuda.is_available():
        return "no GPU is visible to PyTorch"
    return None


def run_file(path):
    """Imports example `path` with the stand-in helion and runs its main();
    returns the report's lines and whether every kernel that ran passed."""
    install_helion()
    sys.path.insert(0, REPO_PYTHON)
    import torch
    import dslc
    dslc.init()
    torch.manual_seed(0)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(f"helion_example_{name}",
                                                  path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    kernels = [k for k, v in vars(module).items() if isinstance(v, DslcKernel)]
    try:
        REPORT.mark()
        module.main()
        # Kernels main() called outside run_example (low_mem_dropout's
        # check() compares the forward's mask with the backward's; grpo's
        # test asserts against its torch twin): main() returning is the
        # file's own checks holding.
        REPORT.close_run("PASS", "main() ran it and its own checks held")
    except Skip as s:
        REPORT.close_run("SKIP", f"main(): {s}")
    except Exception as e:
        detail = traceback.format_exception_only(type(e), e)[-1].strip()
        REPORT.close_run("FAIL", f"main(): {detail[:300]}")
    ok = True
    lines = []
    for k in kernels:
        status, detail = REPORT.verdict(k)
        ok &= status != "FAIL"
        lines.append(f"{status} {os.path.basename(path)}:{k}  {detail}")
    return lines, ok


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="Helion example files")
    parser.add_argument("--all", metavar="EXAMPLES_DIR",
                        help="every in-scope example of this folder, each in "
                             "its own process")
    parser.add_argument("--timeout", type=int, default=1800,
                        help="seconds per example file with --all")
    args = parser.parse_args(argv)
    why = _environment()
    if why:
        print(f"SKIPPED: {why}")
        return SKIP_EXIT
    if args.all:
        status, lines = 0, []
        for f in IN_SCOPE:
            path = os.path.join(args.all, f)
            if not os.path.isfile(path):
                lines.append(f"SKIP {f}  not in {args.all}")
                print(lines[-1], flush=True)
                continue
            try:
                r = subprocess.run([sys.executable, __file__, path],
                                   capture_output=True, text=True,
                                   timeout=args.timeout)
                out = [l for l in r.stdout.splitlines()
                       if l.startswith(("PASS", "FAIL", "SKIP"))]
                if r.returncode not in (0, 1) or not out:
                    tail = (r.stderr.strip().splitlines() or ["?"])[-1]
                    out.append(f"FAIL {f}  the process ended with status "
                               f"{r.returncode}: {tail[:300]}")
            except subprocess.TimeoutExpired:
                out = [f"FAIL {f}  timed out after {args.timeout} s"]
            for l in out:
                print(l, flush=True)
            lines += out
            status |= any(l.startswith("FAIL") for l in out)
        counts = {s: sum(l.startswith(s) for l in lines)
                  for s in ("PASS", "FAIL", "SKIP")}
        print(f"summary: {counts['PASS']} kernels passed, {counts['FAIL']} "
              f"failed, {counts['SKIP']} skipped")
        return 1 if status else 0
    ok = True
    for f in args.files:
        lines, good = run_file(f)
        for l in lines:
            print(l, flush=True)
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
