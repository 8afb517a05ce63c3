"""Autotuning against a PyTorch reference (`dslc.kernel(..., autotune=True,
reference=callable)`): the tuner searches the kernel's config space and
writes the tuning cache (tooling/tuner, docs/tuner.md); this process
measures each candidate it asks for on the call's own tensors, checked
against the reference first. The tuner runs as `tuner --reference caller
--measurer-fds R,W` and speaks its worker protocol (tooling/tuner/Worker.h:
one JSON object a line) over two pipes, so the search, the config space
and the cache stay the tuner's one rule.

What a candidate's call is comes from a runner: runner(cubin, metadata)
returns (call, check, release): call() runs the candidate once and returns
its results (a list of tensors, compared with the reference's), check()
raises the KernelError of an error record the candidate left, release()
frees it. dslc.kernel's runner launches the cubin on the call's tensors;
a caller that wraps the kernel in host code (Helion's files, the stand-in
of python/tests/gpu/helion_examples.py) runs its host code around it."""

import json
import os
import subprocess
import tempfile
import time

from . import _capi, _compile, _roles, _timing, _torch
from .errors import CompileError, DslcError, InvalidArgumentError

# rtol, atol of a candidate's results against the reference, by result
# dtype, unless the caller gives tolerance=(rtol, atol): a kernel may sum in
# another order than PyTorch (bf16 and f16 results may then differ by an
# ulp or two).
DEFAULT_TOLERANCE = {"bfloat16": (2e-2, 2e-2), "float16": (5e-3, 5e-3),
                     "float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12)}


def results(out):
    """A call's results as a list of tensors (None: none)."""
    if out is None:
        return []
    return list(out) if isinstance(out, (tuple, list)) else [out]


def fresh(torch, values):
    """`values` (a dict) with every tensor cloned: a candidate that writes
    an input must not change what the next one reads."""
    return {k: v.clone() if torch.is_tensor(v) else v
            for k, v in values.items()}


def tuner_argv(source, tools, fds, problem, extra_args, tuner_args=()):
    """The one-shot tuner command of the kernel of `source` at one call's
    problem (a dict of shapes, scalars, defines, signature), measured by
    this process through the pipes `fds` (the tuner's read and write
    ends)."""
    return _compile.reference_tuner_argv(
        tools, source, "caller", 1, shapes=problem["shapes"],
        scalars=problem.get("scalars", {}),
        defines=problem.get("defines", {}),
        signature=problem.get("signature", {}), extra_args=extra_args,
        tuner_args=("--measurer-fds", f"{fds[0]},{fds[1]}", *tuner_args))


def serve(requests, replies, handle):
    """Answers the tuner's requests (lines of `requests`) with handle(req)'s
    replies on `replies` until the tuner closes its end. A fatal reply ends
    the service (the tuner cannot ask this process again)."""
    for line in requests:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError:
            rep = {"ok": False, "reason": f"bad request: {line[:200]}"}
        else:
            op = req.get("op")
            if op == "quit":
                rep = {"ok": True}
            elif op in ("info", "measure"):
                rep = handle(req)
            else:
                rep = {"ok": False, "reason": f"unknown op '{op}'"}
        replies.write(json.dumps(rep) + "\n")
        replies.flush()
        if rep.get("fatal"):
            return


def run_tuner(argv, fds, handle, source, what="at its call's shapes"):
    """Starts the tuner (`fds`: its read end, its write end, ours to read,
    ours to write), serves it, and raises CompileError with its output
    when it fails."""
    tuner_in, tuner_out, ours_in, ours_out = fds
    with tempfile.TemporaryFile("w+") as log:
        try:
            p = subprocess.Popen(argv, pass_fds=(tuner_in, tuner_out),
                                 stdout=log, stderr=subprocess.STDOUT)
        finally:
            os.close(tuner_in)
            os.close(tuner_out)
        with os.fdopen(ours_in) as requests, \
                os.fdopen(ours_out, "w") as replies:
            try:
                serve(requests, replies, handle)
            except BaseException:
                p.kill()
                p.wait()
                raise
        rc = p.wait()
        if rc != 0:
            log.seek(0)
            raise CompileError(
                f"dslc: tuning {source.name} {what} failed (exit {rc}):\n"
                f"{source.map_paths(log.read().strip())}")


def tune_calls(source, problem, *, dtype, n, device, want, runner,
               tolerance=None, extra_args=(), tuner_args=(), log=None):
    """Tunes the kernel of `source` at `problem` (shapes, scalars, defines,
    signature: one call's, world size 1), each candidate's call (runner)
    checked against `want` (the reference's results) and timed here, unless
    the cache has the size's bucket. Returns what it did ({"seconds",
    "measured", "wrong": [(cubin, reason)]}), None when the cache had it.
    `tuner_args`: more of the tuner's options (--budget-s S, --force)."""
    if "--force" not in tuner_args and _compile.is_tuned(
            source, 1, dtype, n, problem["shapes"]):
        return None
    if source.path is None:
        raise InvalidArgumentError(
            f"dslc.kernel({source.name}): autotune=True needs a kernel from "
            f"a file (the tuner reads it)")
    tools = _compile.tuning_tools()
    tuner_in, ours_out = os.pipe()     # our replies -> the tuner
    ours_in, tuner_out = os.pipe()     # the tuner's requests -> us
    # The objective is this process's eager time: each call L2-cold with
    # its host part covered (Measurer.measure), as the benchmarks time.
    argv = tuner_argv(source, tools, (tuner_in, tuner_out), problem,
                      extra_args, ("--objective", "eager", *tuner_args))
    if log:
        log(" ".join(argv))
    start = time.perf_counter()
    with Measurer(device, want, runner, tolerance) as m:
        run_tuner(argv, (tuner_in, tuner_out, ours_in, ours_out), m.handle,
                  source)
    return {"seconds": time.perf_counter() - start, "measured": m.measured,
            "wrong": m.wrong}


def tune(kernel, values, *, shapes, signature, defines, scalars, world,
         dtype, n, tuner_args=(), log=None, extra_args=None):
    """dslc.kernel's autotune with a callable reference: the reference
    called with the kernel's arguments (its parameters in order), each
    candidate launched on the call's tensors."""
    if world != 1:
        raise InvalidArgumentError(
            f"dslc.kernel({kernel.name}): autotune=True with a callable "
            f"reference measures in this process, at world size 1 (this job "
            f"has {world} ranks); give a DSL reference ('FILE.py:NAME') to "
            f"tune across ranks")
    if "--force" not in tuner_args and _compile.is_tuned(
            kernel.source, world, dtype, n, shapes):
        return
    torch = _torch.torch("autotune=True with a callable reference")
    device = next((v.device.index or 0 for v in values.values()
                   if torch.is_tensor(v) and v.is_cuda), None)
    if device is None:
        raise InvalidArgumentError(
            f"kernel {kernel.name}: autotune=True with a callable reference "
            f"measures on the call's CUDA tensors; none given")
    args, kwargs = reference_args(kernel.params, fresh(torch, values))
    want = [t.detach() for t in results(kernel.reference(*args, **kwargs))]

    def runner(cubin, metadata):
        from ._comm import default
        from ._kernel import _Instance
        inst = _Instance(kernel, default(), cubin, values, shapes,
                         metadata=metadata)
        vals = fresh(torch, values)

        def call():
            return compared_results(inst.md, inst.launch(vals, made=True),
                                    vals)
        return call, inst.check, inst.release

    problem = dict(shapes=shapes, scalars=scalars, defines=defines,
                   signature=signature)
    kernel.last_tuning = tune_calls(
        kernel.source, problem, dtype=dtype, n=n, device=device, want=want,
        runner=runner, tolerance=kernel.tolerance,
        extra_args=kernel.dslc_args if extra_args is None else extra_args,
        tuner_args=tuner_args, log=log)


def compared_results(md, made, values):
    """A call's results as a PyTorch reference returns them: the tensors the
    kernel's `return` gives (_roles.returned; host values, None there, left
    out), then the output parameters (role "output") the call passed that
    it does not return, in the kernel's order (their values after the
    call). `made`: name -> tensor the call made; `values`: the call's."""
    got = [t for t in results(_roles.returned(md, made, values))
           if t is not None]
    if md.get("returns") is None:
        named = {o["name"] for o in md.get("outputs", [])}
    else:
        named = {n for n in md["returns"]["values"] if n}
    return got + [values[p["name"]] for p in md.get("params", [])
                  if p.get("role") == "output" and p["name"] in values and
                  p["name"] not in named]


def reference_args(params, values):
    """A reference's arguments: the kernel's parameters in order,
    positionally up to the first one not passed, the rest by name."""
    args, kwargs, positional = [], {}, True
    for p in params:
        if p.name not in values:
            positional = False
        elif positional:
            args.append(values[p.name])
        else:
            kwargs[p.name] = values[p.name]
    return args, kwargs


def mismatches(got, want, tolerance=None):
    """(count, first difference) of `got` against `want` (lists of
    tensors) within the tolerance of each result's dtype; (-1, why) when
    they differ in number or shape."""
    torch = _torch.torch("autotune")
    if len(got) != len(want):
        return -1, (f"the candidate returned {len(got)} tensor(s), the "
                    f"reference {len(want)}")
    total, first = 0, ""
    for i, (g, w) in enumerate(zip(got, want)):
        if not torch.is_tensor(w) or not torch.is_tensor(g):
            return -1, f"result {i} is no tensor"
        if tuple(g.shape) != tuple(w.shape):
            return -1, (f"result {i}: shape {tuple(g.shape)}, the reference's "
                        f"{tuple(w.shape)}")
        w = w.to(g.device)
        if g.dtype.is_floating_point or w.dtype.is_floating_point:
            rtol, atol = tolerance or DEFAULT_TOLERANCE.get(
                _torch.dtype_name(g.dtype), (1e-4, 1e-5))
            bad = ~torch.isclose(g.double(), w.double(), rtol=rtol,
                                 atol=atol, equal_nan=True)
        else:
            bad = g != w
        count = int(bad.sum())
        if count and not first:
            at = tuple(int(j) for j in bad.nonzero()[0])
            first = (f"result {i}{list(at)}: {g[at].item()} (reference "
                     f"{w[at].item()})")
        total += count
    return total, first


def median(xs):
    s = sorted(xs)
    k = len(s)
    return s[k // 2] if k % 2 else 0.5 * (s[k // 2 - 1] + s[k // 2])


class Measurer:
    """Answers the tuner: checks and times candidates on GPU `device`."""

    def __init__(self, device, want, runner, tolerance=None):
        self.torch = _torch.torch("autotune=True with a callable reference")
        self.device, self.want = device, want
        self.runner, self.tolerance = runner, tolerance
        self.measured, self.wrong = 0, []
        self.flush = None  # twice the L2, allocated at the first measure
        self.l2_bytes = 0  # the tuner's "info" says (asked before measures)

    def __enter__(self):
        self.temp = tempfile.TemporaryDirectory(prefix="dslc-tune-")
        return self

    def __exit__(self, *exc):
        self.temp.cleanup()

    def handle(self, req):
        if req.get("op") == "info":
            info = _capi.tuner_device_info(self.device)
            self.l2_bytes = int(info.get("l2_bytes", 0))
            info.update(ok=True, world_size=1, num_local=1, rank=0)
            return info
        try:
            return self.measure(req)
        except (InvalidArgumentError, CompileError) as e:
            return {"ok": False, "reason": str(e).splitlines()[0][:400]}
        except (DslcError, RuntimeError) as e:
            # A kernel's fault ends this process's CUDA context: nothing
            # measured after it could be trusted.
            return {"ok": False, "fatal": True,
                    "reason": (str(e).splitlines() or [""])[0][:400]}

    def capped_metadata(self, cubin, max_ctas):
        """A copy of the cubin's metadata with the tuner's grid cap, or
        None without a cap."""
        if max_ctas <= 0:
            return None
        with open(cubin + ".json") as f:
            md = json.load(f)
        grid = md.setdefault("grid", {})
        grid["max_ctas"] = min(grid.get("max_ctas") or max_ctas, max_ctas)
        path = os.path.join(self.temp.name, "capped.json")
        with open(path, "w") as f:
            json.dump(md, f)
        return path

    def measure(self, req):
        torch = self.torch
        cubin = req["cubin"].replace("{rank}", "0")
        self.measured += 1
        call, check, release = self.runner(
            cubin, self.capped_metadata(cubin, int(req.get("max_ctas", 0))))
        try:
            got = call()
            torch.cuda.synchronize(self.device)
            check()
            count, first = mismatches(got, self.want, self.tolerance)
            if count:
                why = first if count < 0 else \
                    f"{count} mismatches against the reference; first: {first}"
                self.wrong.append((cubin, why))
                return {"ok": False, "mismatches": max(count, 0),
                        "reason": f"wrong result: {why}"}
            nbytes = sum(t.numel() * t.element_size() for t in got)
            reps = max(1, int(req.get("repetitions", 5)))
            # one call timed first: past the tuner's cutoff (a multiple of
            # its best so far) the candidate cannot win, and that call is
            # its time (a slow one takes longer than the rest of a search)
            first = self._cold(call, 1)
            cut = 0 < float(req.get("cutoff_us", 0)) < first[0]
            note = ""
            if cut:
                eager = graph = first
            else:
                # one call a sample: as many samples as the eager phase
                # had calls (`iters`), at least `repetitions`, for a median
                # as steady as its average of iters calls was
                eager = self._cold(call, max(reps, int(req.get("iters", 20))))
                try:
                    graph = self._graph(
                        call, int(req.get("graph_replays", 20)), reps)
                except RuntimeError as e:
                    # host code that cannot be captured (a sync, a
                    # .item()): the graph phase is the eager one then, for
                    # every candidate alike; a fault shows at the next sync
                    graph = eager
                    note = f"not captured in a CUDA graph: {str(e)[:200]}"
            torch.cuda.synchronize(self.device)
            check()
        finally:
            release()
        reply = {"ok": True, "mismatches": 0, "note": note, "cut_off": cut,
                 "eager_us": median(eager), "eager_min_us": min(eager),
                 "graph_us": median(graph), "graph_min_us": min(graph)}
        why = _capi.times_below_floor(self.device, reply["eager_us"],
                                      reply["graph_us"], nbytes)
        return {"ok": False, "reason": why} if why else reply

    def _timed(self, fn, reps, per):
        """`reps` samples of fn() on the current stream, in us per call
        (fn makes `per` calls)."""
        torch = self.torch
        out = []
        for _ in range(reps):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            out.append(a.elapsed_time(b) * 1e3 / max(per, 1))
        return out

    def _cold(self, call, reps):
        """`reps` samples of one call's GPU time in us, each L2-cold with
        its host part covered (_timing.py: the benchmarks' way; Helion's
        autotuner times L2-cold too): a kernel whose operands fit the L2
        is ranked as it runs beside other work, not as it runs back to
        back on its own (where a skinny product's weights stay in the
        L2 and a config that is slow cold can win)."""
        torch = self.torch
        if self.flush is None:
            l2 = self.l2_bytes or (64 << 20)
            self.flush = torch.empty(2 * l2, dtype=torch.uint8,
                                     device=f"cuda:{self.device}")
        return _timing.cold_samples_us(torch, call, reps, self.flush)

    def _graph(self, call, replays, reps):
        """Every replay of a sample in one graph (as the tuner's worker
        times): a short kernel is timed on the GPU, not at the host's
        graph-launch rate."""
        torch = self.torch
        side = torch.cuda.Stream(self.device)
        side.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(side):
            call()
        torch.cuda.current_stream(self.device).wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(max(replays, 1)):
                call()
        graph.replay()
        try:
            return self._timed(graph.replay, reps, max(replays, 1))
        finally:
            del graph
