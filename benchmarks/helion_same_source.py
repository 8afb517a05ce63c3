#!/usr/bin/env python3
"""The same Helion source through Helion and through dslc, beside PyTorch
(issue 28, deliverable 3; the memory-bound bar's table).

For each case (a kernel of one of Helion's example files, or a dslc example
with no Helion twin) and shape [T, H], in one run on one GPU:

  helion   the file imported with Helion itself (a snapshot of
           pytorch/helion on PYTHONPATH: v1.4.0 for torch 2.11 / triton
           3.6), autotuned by Helion's own autotuner at --helion-effort
           (its tuning time: the first call's wall time)
  dslc     the same file imported with the stand-in `helion` package of
           python/tests/gpu/helion_examples.py (each kernel a dslc kernel,
           the host code run in Python), tuned at this shape by searching
           the tunables its metadata lists (block sizes, warps; the search
           time is reported); specialized on the shape wherever Helion is
           (its static_shapes, True by default: HELION_STATIC_SHAPES=0
           makes both compilers shape-generic); DSLC_TUNER_TRACE=FILE
           appends every config the tuner measured to FILE (tuner --trace)
  eager    the PyTorch reference (the file's own where it has one)
  compile  torch.compile of the reference
  copy     a device-to-device copy of the case's bytes (read + write)

Every implementation is checked against the eager reference first (the
case's tolerances, Helion's defaults: rtol 1e-2, atol 1e-1), then timed as
Triton's do_bench times: per sample the L2 flushed (a 1 GiB write, long
enough that the host's launch work hides behind it), one call between CUDA
events, the median of --reps samples. Bytes are what the call must move:
every input tensor read once and every output written once. A time below
the physical floor (those bytes beyond the L2 at 4.8 TB/s) fails the row:
the timing did not cover the work. --helion-configs CSV times Helion at
the config an earlier run's autotuning picked (CSV's helion row for the
case and shape), with no tuning: Helion's code timed beside dslc in this
run when device time is short; --dslc-config CASE=JSON times dslc's row at
a config of one's own, untuned (the same config in both compilers tells a
code generation gap from a search gap). Each implementation runs in its own
process (Helion and the stand-in cannot share one); a row that fails says
why and the others go on. --csv appends, and rows already in it are not
re-run (a long run can span several device calls).

  PYTHONPATH=HELION python3 benchmarks/helion_same_source.py HELION \\
      --cases rms_norm,layer_norm,softmax --tokens 2048,8192,32768 \\
      --hidden 4096,8192 --csv docs/bench/DATE-1xh200-same-source.csv

--dry-run lists the cases and shapes and needs no torch or GPU.
"""

import argparse
import ast
import csv
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "python", "tests", "gpu"))

from bench_common import (HBM_PEAK_BYTES_PER_S, below_floor,  # noqa: E402
                          parse_sizes, time_flushed_us)

FLUSH_BYTES = 1 << 30
IMPLS = ("copy", "eager", "compile", "helion", "dslc")


# ---------------------------------------------------------------------------
# Cases: what a kernel takes at [T, H] and what computes it in PyTorch
# ---------------------------------------------------------------------------

class Case:
    """`kernel` of Helion example `file` (or of a dslc example with
    `dslc_only`), its arguments at [T, H] and its PyTorch reference."""

    def __init__(self, name, file, kernel, inputs, reference, first_only=True,
                 dslc_only=False, rtol=1e-2, atol=1e-1, results=None,
                 nbytes=None):
        self.name, self.file, self.kernel = name, file, kernel
        self.inputs, self.reference = inputs, reference
        self.first_only, self.dslc_only = first_only, dslc_only
        self.rtol, self.atol = rtol, atol
        # what a call computed, from its arguments and its return value
        # (a kernel that writes outputs it is passed returns nothing)
        self.results = results or (lambda args, ret: ret)
        # the bytes a call must move, where that is not every argument
        # read once and every result written once (a gather reads the
        # rows it names; a kernel writes more than the reference returns)
        self.nbytes = nbytes


def _randn(torch, *shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def _rms_ref(torch, x, w, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
            * w.float()).to(x.dtype)


def _add_rms_ref(torch, x, residual, weight, out, residual_out):
    s = (x.float() + residual.float()).to(x.dtype)
    return _rms_ref(torch, s, weight, 1e-6), s


def _randf(torch, *shape):
    return torch.randn(*shape, device="cuda", dtype=torch.float32)


def _nbytes(*tensors):
    return sum(x.numel() * x.element_size() for x in tensors)


def _jsd_bytes(torch, log_q, log_p):
    """Bytes jsd_forward moves: both [T, V] inputs read, two [T] f32
    outputs (loss and dX) written."""
    return _nbytes(log_q, log_p) + 2 * log_q.shape[0] * 4


def _jsd_ref(torch, log_q, log_p, beta=0.5):
    """Helion jsd.py's TorchJSDBaseline without labels: the mean over rows
    of beta KL(P || M) + (1 - beta) KL(Q || M), M = lerp(Q, P, beta)."""
    log_m = torch.lerp(log_q.exp(), log_p.exp(), beta).log()
    kl = torch.nn.functional.kl_div
    rows = (beta * kl(log_m, log_p, reduction="none", log_target=True)
            .sum(-1) + (1 - beta) * kl(log_m, log_q, reduction="none",
                                       log_target=True).sum(-1))
    return (rows / log_q.shape[0]).sum()


def _rope_inputs(torch, T, H):
    """rope.py's q [1, H/128 heads, T, 128], k with a quarter of q's heads
    (grouped-query attention), cos and sin [1, T, 128]; bf16."""
    heads = max(H // 128, 1)
    angles = _randn(torch, 1, T, 128)
    return (_randn(torch, 1, heads, T, 128),
            _randn(torch, 1, max(heads // 4, 1), T, 128),
            torch.cos(angles), torch.sin(angles))


def _rope_ref(torch, q, k, cos, sin):
    def rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


EMBEDDINGS = 32768  # rows of embedding.py's table at every shape


def _embedding_bytes(torch, x, weight):
    """The indices, the distinct rows they name, and the output."""
    row = weight.shape[1] * weight.element_size()
    return _nbytes(x) + (x.unique().numel() + x.numel()) * row


def _cases():
    """The cases (no torch needed to list them: each lambda gets it as
    `t`)."""
    return [
        Case("rms_norm", "rms_norm.py", "rms_norm_fwd",
             lambda t, T, H: (_randn(t, T, H), _randn(t, H), 1e-5),
             lambda t, x, w, eps: _rms_ref(t, x, w, eps)),
        Case("layer_norm", "layer_norm.py", "layer_norm_fwd",
             lambda t, T, H: (_randn(t, T, H), [H], _randn(t, H),
                              _randn(t, H), 1e-5),
             lambda t, x, shape, w, b, eps: t.nn.functional.layer_norm(
                 x, shape, w, b, eps)),
        Case("welford", "welford.py", "welford",
             lambda t, T, H: (_randn(t, H), _randn(t, H), _randn(t, T, H),
                              1e-5),
             lambda t, w, b, x, eps: t.nn.functional.layer_norm(
                 x, [x.shape[-1]], w, b, eps)),
        Case("softmax", "softmax.py", "softmax",
             lambda t, T, H: (_randn(t, T, H),),
             lambda t, x: t.softmax(x.float(), dim=-1).to(x.dtype)),
        Case("softmax_two_pass", "softmax.py", "softmax_two_pass",
             lambda t, T, H: (_randn(t, T, H),),
             lambda t, x: t.softmax(x.float(), dim=-1).to(x.dtype)),
        Case("sum", "sum.py", "sum_kernel",
             lambda t, T, H: (_randn(t, T, H),),
             lambda t, x: x.float().sum(-1).to(x.dtype), atol=1.0),
        Case("add", "add.py", "add",
             lambda t, T, H: (_randn(t, T, H), _randn(t, T, H)),
             lambda t, x, y: x + y),
        Case("exp", "exp.py", "exp_fwd",
             lambda t, T, H: (_randn(t, T, H),),
             lambda t, x: t.exp(x)),
        Case("swiglu", "swiglu.py", "_swiglu_fwd",
             lambda t, T, H: (_randn(t, T, H), _randn(t, T, H)),
             lambda t, a, b: (t.nn.functional.silu(a.float())
                              * b.float()).to(a.dtype)),
        Case("geglu", "geglu.py", "_geglu",
             lambda t, T, H: (_randn(t, T, H), _randn(t, T, H)),
             lambda t, a, b: (t.nn.functional.gelu(a.float(),
                                                   approximate="tanh")
                              * b.float()).to(a.dtype)),
        # The examples' own dtypes (float32 where their main() uses it).
        Case("cross_entropy", "cross_entropy.py", "cross_entropy",
             lambda t, T, H: (_randf(t, T, H),
                              t.randint(0, H, (T,), device="cuda")),
             lambda t, logits, labels: t.nn.functional.cross_entropy(
                 logits, labels), rtol=1e-4, atol=1e-4),
        Case("kl_div", "kl_div.py", "kl_div_forward",
             lambda t, T, H: (_randf(t, T, H).log_softmax(-1),
                              _randf(t, T, H).softmax(-1)),
             lambda t, y_pred, y_true: t.nn.functional.kl_div(
                 y_pred, y_true, reduction="batchmean"),
             rtol=1e-4, atol=1e-4),
        # jsd_forward reads both rows and writes two floats a row (its
        # `loss` and `dX` are [T] f32, dX the row's summed gradient)
        Case("jsd", "jsd.py", "jsd_forward",
             lambda t, T, H: (_randf(t, T, H).log_softmax(-1),
                              _randf(t, T, H).log_softmax(-1)),
             lambda t, log_q, log_p: _jsd_ref(t, log_q, log_p),
             rtol=1e-4, atol=1e-4,
             nbytes=_jsd_bytes),
        # Helion ships longsum with a fixed config (no autotuning)
        Case("long_sum", "long_sum.py", "longsum",
             lambda t, T, H: (_randf(t, T, H),),
             lambda t, x: x.sum(-1), rtol=1e-4, atol=1e-3),
        Case("embedding", "embedding.py", "embedding",
             lambda t, T, H: (t.randint(0, EMBEDDINGS, (T,), device="cuda",
                                        dtype=t.int32),
                              _randf(t, EMBEDDINGS, H)),
             lambda t, x, weight: t.nn.functional.embedding(x, weight),
             rtol=0, atol=0, nbytes=_embedding_bytes),
        Case("concat", "concatenate.py", "concat2d_dim1",
             lambda t, T, H: (_randf(t, T, H // 2), _randf(t, T, H - H // 2)),
             lambda t, x, y: t.cat([x, y], dim=1), rtol=0, atol=0),
        Case("rope", "rope.py", "rope_fwd", _rope_inputs, _rope_ref,
             first_only=False),
        # add + RMSNorm, the unfused half of the fused all-reduce: dslc's
        # examples/rmsnorm.py (outputs passed), no Helion twin.
        Case("add_rms_norm", os.path.join(REPO, "examples", "rmsnorm.py"),
             "rmsnorm_kernel",
             lambda t, T, H: (_randn(t, T, H), _randn(t, T, H), _randn(t, H),
                              t.empty(T, H, device="cuda",
                                      dtype=t.bfloat16),
                              t.empty(T, H, device="cuda",
                                      dtype=t.bfloat16)),
             lambda t, *a: _add_rms_ref(t, *a), first_only=False,
             dslc_only=True, results=lambda args, ret: (args[3], args[4])),
    ]


def case_named(name):
    for c in _cases():
        if c.name == name:
            return c
    raise SystemExit(f"unknown case '{name}': "
                     f"{', '.join(c.name for c in _cases())}")


# ---------------------------------------------------------------------------
# Checking and timing (inside a worker)
# ---------------------------------------------------------------------------

def tensors_of(x):
    import torch
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for e in x for t in tensors_of(e)]
    return []


def bytes_moved(args, outputs):
    """Every input tensor read once, every output written once."""
    ins = {id(t): t for t in tensors_of(args)}
    outs = [t for t in tensors_of(outputs) if id(t) not in ins]
    return sum(t.numel() * t.element_size() for t in
               list(ins.values()) + outs)


def check(case, got, want):
    import torch
    got, want = tensors_of(got), tensors_of(want)
    if case.first_only:
        got, want = got[:1], want[:1]
    if len(got) != len(want):
        raise AssertionError(f"{len(got)} results, the reference gives "
                             f"{len(want)}")
    for g, w in zip(got, want):
        torch.testing.assert_close(g.float(), w.float(), rtol=case.rtol,
                                   atol=case.atol)


class Timer:
    def __init__(self, torch):
        self.torch = torch
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8,
                                 device="cuda")
        self.l2 = torch.cuda.get_device_properties(0).L2_cache_size

    def median_us(self, fn, reps):
        """The median GPU time of `fn`; `host_us` then holds the median
        time the host took to issue one call (the package's overhead: a
        GPU time close to it was the host's, not the kernel's)."""
        host = []
        us = time_flushed_us(self.torch, fn, reps, self.flush, host)
        self.host_us = statistics.median(host)
        return us

    def floor_problem(self, us, nbytes, what):
        return below_floor(us, self.l2, nbytes, what)


def fresh(torch, args):
    return tuple(a.clone() if isinstance(a, torch.Tensor) else a
                 for a in args)


# ---------------------------------------------------------------------------
# Workers: one implementation of one case at one shape, a JSON line out
# ---------------------------------------------------------------------------

def load_module(path, name, stand_in):
    import importlib.util
    if stand_in:
        import helion_examples
        helion_examples.install_helion()
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def example_path(case, checkout):
    """The file a case's kernel is in: a dslc example's own path, else the
    Helion snapshot's examples/."""
    if case.dslc_only:
        return case.file
    if not checkout:
        raise SystemExit(f"{case.name}: the Helion snapshot's path is needed "
                         f"(its examples/{case.file})")
    return os.path.join(checkout, "examples", case.file)


def run_dslc(case, args, want, timer, reps, budget_s, checkout, fixed=None):
    """dslc: tuned at this shape by dslc's tuner (the package's tuning
    against a PyTorch reference: the tuner's config space, search and
    cache; each candidate checked against the case's reference in this
    process), then the tuned config timed; with `fixed` (a config dict,
    --dslc-config) that config, untuned. Returns the time, the results,
    the tuning's seconds, the config, the wrong candidates and how many
    were measured."""
    import torch
    import dslc
    dslc.init()
    keep = 1 if case.first_only else None
    wanted = tensors_of(want)[:keep]

    def select(a, ret):
        return tensors_of(case.results(a, ret))[:keep]
    tuner_args = ["--force", "--budget-s", str(budget_s)]
    if os.environ.get("DSLC_TUNER_TRACE"):
        # every point the tuner visits, appended to that file (tuner --trace)
        tuner_args += ["--trace", os.environ["DSLC_TUNER_TRACE"]]
    done = None
    if case.dslc_only:
        kernel = dslc.kernel(case.file, case.kernel, autotune=fixed is None,
                             config=fixed,
                             reference=lambda *a: case.reference(torch, *a),
                             tolerance=(case.rtol, case.atol))
        if fixed is None:
            done = kernel.tune(*fresh(torch, args), force=True,
                               budget_s=budget_s)

        def tuned_config():
            return _config_of(kernel.compile(*args) + ".json")
    else:
        module = load_module(example_path(case, checkout), "same_source_dslc",
                             stand_in=True)
        kernel = getattr(module, case.kernel)
        if fixed is None:
            done = kernel.autotune(fresh(torch, args), wanted, select,
                                   tolerance=(case.rtol, case.atol),
                                   tuner_args=tuner_args)
        else:
            kernel.use_config(fixed)

        def tuned_config():
            inst = next(iter(kernel.instances.values()))
            return _tunables_config(inst.md.get("tunables", []))

    def call(*a):
        return case.results(a, kernel(*a))
    a = fresh(torch, args)
    out = call(*a)
    torch.cuda.synchronize()
    check(case, out, want)
    us = timer.median_us(lambda: call(*a), reps)
    done = done or {}
    return (us, out, done.get("seconds", 0.0), tuned_config(),
            done.get("wrong", []), done.get("measured", 0))


def dslc_configs(items):
    """--dslc-config's CASE=JSON items as {case: config dict}; ValueError
    names an item that is not one."""
    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        try:
            config = json.loads(text) if sep else None
        except json.JSONDecodeError as e:
            raise ValueError(f"--dslc-config {item}: {e}") from None
        if not isinstance(config, dict):
            raise ValueError(f"--dslc-config {item}: give CASE={{...}}, a "
                             f"case and a JSON object (dslc's config)")
        case_named(name)
        out[name] = config
    return out


def _tunables_config(tunables):
    """A metadata's tunables as {kind[index]: value}; a load's cache hint
    is load_eviction[i] (0 none, 1 first, 2 last)."""
    return {t["kind"] + (f"[{t['index']}]" if "index" in t else
                         f"[{t['load']}]" if "load" in t else ""):
            t["value"] for t in tunables}


def _config_of(metadata_path):
    """The config a cubin was compiled with, from its metadata."""
    with open(metadata_path) as f:
        return _tunables_config(json.load(f).get("tunables", []))


def helion_config_kwargs(text):
    """The keyword arguments of the helion.Config in a helion row's config
    column ("EFFORT: Config(block_sizes=[1, 4096], ...)"), or None when
    the column names no Config. Only literals are read (ast), nothing is
    evaluated."""
    start = text.find("Config(")
    if start < 0:
        return None
    call = ast.parse(text[start:].strip(), mode="eval").body
    if not isinstance(call, ast.Call) or call.args:
        raise ValueError(f"not a Config(...) of keywords: {text[:80]}")
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords}


def earlier_helion_config(path, case, T, H):
    """The config of `path`'s last helion row at (case, T, H) that has
    one, as helion.Config's keyword arguments; None if it has none."""
    found = None
    with open(path) as f:
        for r in csv.DictReader(f):
            if (r["impl"] == "helion" and r["case"] == case and
                    int(r["T"]) == T and int(r["H"]) == H and
                    not r.get("error")):
                kwargs = helion_config_kwargs(r.get("config") or "")
                if kwargs is not None:
                    found = kwargs
    return found


def run_helion(case, args, want, timer, reps, checkout, effort,
               fixed=None):
    """Helion: autotuned at `effort`, or, with `fixed` (helion.Config's
    keyword arguments, an earlier run's pick), at that config with no
    tuning. Returns the time, the results, the seconds of the first call
    (the tuning) and the config."""
    import torch
    os.environ.setdefault("HELION_AUTOTUNE_EFFORT",
                          "none" if fixed else effort)
    sys.path.insert(0, checkout)
    import helion
    module = load_module(example_path(case, checkout), "same_source_helion",
                         stand_in=False)
    helion_kernel = getattr(module, case.kernel)
    run = helion_kernel
    if fixed is not None:
        run = helion_kernel.bind(fresh(torch, args))
        run.set_config(helion.Config(**fixed))

    def kernel(*a):
        return case.results(a, run(*a))
    start = time.perf_counter()
    out = kernel(*fresh(torch, args))
    torch.cuda.synchronize()
    tune_s = time.perf_counter() - start
    check(case, out, want)
    a = fresh(torch, args)
    us = timer.median_us(lambda: kernel(*a), reps)
    # the config Helion chose (its autotuner's, or its cache's: a tuning
    # read from HELION_CACHE_DIR takes a second, not a minute)
    config = getattr(helion_kernel.bind(a), "_config", None)
    label = "fixed" if fixed else effort
    return us, out, tune_s, f"{label}: {config}" if config else label


def worker(opts):
    import torch
    case = case_named(opts.case)
    T, H = opts.shape
    torch.manual_seed(0)
    args = case.inputs(torch, T, H)
    ref = lambda *a: case.reference(torch, *a)
    want = ref(*fresh(torch, args))
    timer = Timer(torch)
    row = {"case": case.name, "T": T, "H": H, "impl": opts.worker}
    # the same bytes for every implementation: the arguments and the
    # results the kernel writes (outputs it is passed are arguments)
    nbytes = (case.nbytes(torch, *args) if case.nbytes else
              bytes_moved(args, case.results(args, want)))
    if opts.worker == "copy":
        x = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
        y = torch.empty_like(x)
        us = timer.median_us(lambda: y.copy_(x), opts.reps)
        nbytes = 2 * x.numel()
    elif opts.worker in ("eager", "compile"):
        fn = ref if opts.worker == "eager" else torch.compile(ref)
        # the reference returns what the kernel computes: no results()
        a = fresh(torch, args)
        start = time.perf_counter()
        out = fn(*a)
        torch.cuda.synchronize()
        row["tune_s"] = time.perf_counter() - start
        check(case, out, want)
        us = timer.median_us(lambda: fn(*a), opts.reps)
    elif opts.worker == "helion":
        fixed = (earlier_helion_config(opts.helion_configs, case.name, T, H)
                 if opts.helion_configs else None)
        us, out, row["tune_s"], row["config"] = run_helion(
            case, args, want, timer, opts.reps, opts.checkout,
            opts.helion_effort, fixed)
    else:
        fixed = dslc_configs(opts.dslc_config).get(case.name)
        us, out, row["tune_s"], cfg, wrong, n = run_dslc(
            case, args, want, timer, opts.reps, opts.budget_s, opts.checkout,
            fixed)
        row["config"] = ("fixed: " if fixed else "") + json.dumps(cfg)
        row["searched"] = n
        if wrong:
            row["wrong_configs"] = json.dumps(wrong)
    problem = timer.floor_problem(us, nbytes, f"{case.name} {opts.worker}")
    if problem:
        raise AssertionError(problem)
    row.update(us=us, host_us=round(timer.host_us, 1), bytes=nbytes)
    print("ROW " + json.dumps(row), flush=True)


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

FIELDS = ["date", "case", "T", "H", "impl", "us", "host_us", "bytes", "GB/s",
          "pct_hbm", "pct_copy", "vs_helion", "vs_eager", "tune_s",
          "config", "searched", "wrong_configs", "error"]


def derive(rows, earlier=()):
    """GB/s, % of 4.8 TB/s and of the copy, ratios to Helion and eager
    (>1: faster than it), per (case, T, H), for `rows`; `earlier` rows (of
    the CSV a run appends to) count as the others of their group."""
    by = {}
    for r in list(earlier) + list(rows):
        by.setdefault((r["case"], int(r["T"]), int(r["H"])),
                      {})[r["impl"]] = r
    mine = {id(r) for r in rows}
    for group in by.values():
        copy = group.get("copy")
        for r in group.values():
            if id(r) not in mine or not r.get("us"):
                continue
            us = float(r["us"])
            gbs = float(r["bytes"]) / us / 1e3
            r["GB/s"] = f"{gbs:.0f}"
            r["pct_hbm"] = f"{100 * gbs * 1e9 / HBM_PEAK_BYTES_PER_S:.1f}"
            if copy and copy.get("us"):
                cgbs = float(copy["bytes"]) / float(copy["us"]) / 1e3
                r["pct_copy"] = f"{100 * gbs / cgbs:.1f}"
            for other, col in (("helion", "vs_helion"), ("eager", "vs_eager")):
                o = group.get(other)
                if o and o.get("us") and r["impl"] != other:
                    r[col] = f"{float(o['us']) / us:.3f}"
    return rows


def write_csv(path, rows):
    """`rows` (the CSV's earlier rows, then this run's) as the CSV at
    `path`, replaced whole."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)


def worker_args(opts, case, T, H, impl):
    """The arguments of the worker process that runs one row (main's)."""
    argv = ["--worker", impl, "--case", case, "--shape", f"{T}x{H}",
            "--reps", str(opts.reps), "--budget-s", str(opts.budget_s),
            "--helion-effort", opts.helion_effort]
    if opts.helion_configs:
        argv += ["--helion-configs", os.path.abspath(opts.helion_configs)]
    for item in opts.dslc_config:
        argv += ["--dslc-config", item]
    if opts.checkout:
        argv.append(opts.checkout)
    return argv


def failure_text(stderr):
    """What a failed worker said: its first compiler error ("file:line:col:
    error: ..."), else its first line naming an error, and its last line,
    at most 600 characters."""
    lines = [l.strip() for l in stderr.strip().splitlines() if l.strip()]
    if not lines:
        return "?"
    first = next((l for l in lines if ": error:" in l),
                 next((l for l in lines if "error" in l.lower()), lines[-1]))
    text = first if first == lines[-1] else f"{first} ... {lines[-1]}"
    return text[:600]


def run_one(opts, case, T, H, impl):
    argv = [sys.executable, "-u", __file__] + worker_args(opts, case, T, H,
                                                          impl)
    row = {"case": case, "T": T, "H": H, "impl": impl}
    try:
        r = subprocess.run(argv, capture_output=True, text=True,
                           timeout=opts.timeout)
        got = [l[4:] for l in r.stdout.splitlines() if l.startswith("ROW ")]
        if got:
            row.update(json.loads(got[-1]))
        else:
            row["error"] = f"status {r.returncode}: {failure_text(r.stderr)}"
    except subprocess.TimeoutExpired:
        row["error"] = f"timed out after {opts.timeout} s"
    return row


def parser():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkout", nargs="?", help="the Helion snapshot (its "
                   "examples/ are read; it must also be on PYTHONPATH)")
    p.add_argument("--cases", default="rms_norm,layer_norm,softmax,"
                   "add_rms_norm")
    p.add_argument("--tokens", default="1,128,2048,8192,32768")
    p.add_argument("--hidden", default="4096,8192")
    p.add_argument("--impls", default=",".join(IMPLS))
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--budget-s", type=float, default=30,
                   help="dslc's tuning time per shape (the tuner's "
                        "--budget-s)")
    p.add_argument("--helion-effort", default="quick",
                   help="HELION_AUTOTUNE_EFFORT (none, quick, full)")
    p.add_argument("--helion-configs", metavar="CSV",
                   help="time Helion at the config of CSV's helion row for "
                        "the same case and shape (an earlier run's tuning "
                        "on the same kind of GPU), untuned; a shape with "
                        "no such row is autotuned")
    p.add_argument("--dslc-config", action="append", default=[],
                   metavar="CASE=JSON",
                   help="time dslc's row of CASE at this config (dslc's "
                        "JSON, e.g. '{\"block_sizes\": [1, 256], "
                        "\"num_warps\": 2}'), untuned: with "
                        "--helion-configs, the same config in both "
                        "compilers (repeatable, one per case)")
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--csv", help="append rows here (rows in it are skipped)")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--worker", choices=IMPLS, help=argparse.SUPPRESS)
    p.add_argument("--case", help=argparse.SUPPRESS)
    p.add_argument("--shape", help=argparse.SUPPRESS)
    return p


def main(argv=None):
    p = parser()
    opts = p.parse_args(argv)
    if opts.worker:
        opts.shape = tuple(int(v) for v in opts.shape.split("x"))
        worker(opts)
        return 0
    try:
        dslc_configs(opts.dslc_config)
    except (ValueError, SystemExit) as e:
        p.error(str(e))
    cases = [case_named(c) for c in opts.cases.split(",") if c]
    impls = [i for i in opts.impls.split(",") if i]
    unknown = set(impls) - set(IMPLS)
    if unknown:
        p.error(f"unknown --impls {', '.join(sorted(unknown))}: "
                f"{', '.join(IMPLS)}")
    plan = [(c.name, T, H, i) for c in cases for T in parse_sizes(opts.tokens)
            for H in parse_sizes(opts.hidden) for i in impls
            if not (i == "helion" and c.dslc_only)]
    if opts.dry_run:
        for step in plan:
            print(*step)
        return 0
    if "helion" in impls and not opts.checkout:
        p.error("the Helion column needs the snapshot's path")
    done, earlier = set(), []
    if opts.csv and os.path.exists(opts.csv):
        with open(opts.csv) as f:
            for r in csv.DictReader(f):
                done.add((r["case"], int(r["T"]), int(r["H"]), r["impl"]))
                earlier.append(r)
    rows = []
    date = time.strftime("%Y-%m-%d")
    for case, T, H, impl in plan:
        if (case, T, H, impl) in done:
            continue
        row = run_one(opts, case, T, H, impl)
        row["date"] = date
        rows.append(row)
        print(json.dumps(row), flush=True)
        # Row by row: a run cut short (a device call's time limit) keeps
        # what it measured.
        derive(rows, earlier)
        if opts.csv:
            write_csv(opts.csv, earlier + rows)
    print(f"{'case':18} {'T':>6} {'H':>5} {'impl':8} {'us':>9} {'GB/s':>6} "
          f"{'%hbm':>5} {'%copy':>6} {'vs helion':>9} {'vs eager':>8} "
          f"{'tune s':>7}")
    for r in rows:
        print(f"{r['case']:18} {r['T']:>6} {r['H']:>5} {r['impl']:8} "
              f"{r.get('us', 0):9.2f} {r.get('GB/s', ''):>6} "
              f"{r.get('pct_hbm', ''):>5} {r.get('pct_copy', ''):>6} "
              f"{r.get('vs_helion', ''):>9} {r.get('vs_eager', ''):>8} "
              f"{r.get('tune_s', 0):7.1f} {r.get('error', '')}")
    return 1 if any(r.get("error") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
