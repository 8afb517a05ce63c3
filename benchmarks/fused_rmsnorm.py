#!/usr/bin/env python3
"""Times the fused all-reduce + residual + RMSNorm kernels against the unfused paths.

Per shape (tokens T x hidden H, every rank holding a partial sum x [T, H],
a residual [T, H] and the norm's weight [H]), every implementation computes

    residual_out = sum over ranks of x + residual
    out          = residual_out * rsqrt(mean(residual_out ** 2) + eps) * weight

on every rank (docs/fused.md):

  fused_one_shot   examples/fused_all_reduce_rmsnorm.py (LL packets, dslc.kernel)
  fused_two_shot   examples/fused_all_reduce_rmsnorm_two_shot.py (symmetric x)
  nccl+torch       dist.all_reduce (NCCL), then PyTorch's add and
                   torch.nn.functional.rms_norm
  dslc_ar+rmsnorm  dslc.all_reduce (the tuned kernel of $DSLC_KERNEL_DIR and
                   the tuning cache, else NCCL: the CSV's config column says
                   which), then examples/rmsnorm.py (dslc.kernel)
  ll_ar+rmsnorm    examples/ll_one_shot_all_reduce.py over the T * H elements
                   (dslc.kernel), then examples/rmsnorm.py

One process per GPU under torchrun (also a world of one without torchrun):

  torchrun --nproc-per-node 2 benchmarks/fused_rmsnorm.py --csv fused.csv
  python3 benchmarks/fused_rmsnorm.py --csv fused1.csv          # one GPU

Every result is checked before it is timed: inputs drawn per rank from
seeds (so every rank computes every rank's x), outputs poisoned (NaN), one
call (eager) or one replay (graph), then out and residual_out compared with
a float64 reference by ||got - ref|| / ||ref|| (bf16 below 1e-2, f16 below
1e-3; NaN fails). Timing as benchmarks/pytorch_symm_mem.py and `tuner
bench`: a warm-up, then --reps samples of --iters back-to-back calls
(eager) and of one replay of a CUDA graph holding --iters calls (graph),
CUDA events on rank 0's stream between barriers, the median per call.
A median below the physical floor (the bytes every implementation moves,
4 T H elements, less what the L2 can hold, at the HBM's 4.8 TB/s) fails
the row: such a time did not cover the work.

CSV (docs/benchmark.md's columns; scripts/plot-bench.py plots it): one row
per shape, implementation and mode; `collective` all_reduce_rmsnorm,
`size` T * H, `impl` NAME_hH (one plot line per hidden size), `config` the
dslc.all_reduce choice, `busbw_gbs` as an all-reduce of T * H elements,
`note` tokens and hidden.

Kernels are compiled by the dslc package on first use (dslc on this
machine), or ahead on the build machine into a carried cache:

  DSLC_CACHE_DIR=$PWD/build/fused-bench-cache \\
      python3 benchmarks/fused_rmsnorm.py --precompile --world-size 2

--precompile and --dry-run need no torch and no GPU (CI runs --help and
--dry-run).
"""

import os

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402

from bench_common import below_floor, parse_sizes, time_calls  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(REPO, "examples")
ONE_SHOT = (os.path.join(EXAMPLES, "fused_all_reduce_rmsnorm.py"),
            "fused_all_reduce_rmsnorm_kernel")
TWO_SHOT = (os.path.join(EXAMPLES, "fused_all_reduce_rmsnorm_two_shot.py"),
            "fused_all_reduce_rmsnorm_two_shot_kernel")
RMSNORM = (os.path.join(EXAMPLES, "rmsnorm.py"), "rmsnorm_kernel")
LL_AR = (os.path.join(EXAMPLES, "ll_one_shot_all_reduce.py"),
         "ll_one_shot_all_reduce_kernel")
IMPLS = ("fused_one_shot", "fused_two_shot", "nccl+torch", "dslc_ar+rmsnorm",
         "ll_ar+rmsnorm")
DTYPES = {"bf16": "bfloat16", "bfloat16": "bfloat16", "f16": "float16",
          "float16": "float16"}
TOL = {"bfloat16": 1e-2, "float16": 1e-3}
EPS = 1e-6  # the examples' default eps
HEADER = ("source,collective,world,size,dtype,impl,config,mode,us,busbw_gbs,"
          "ok,note")


def python_path():
    sys.path.insert(0, os.path.join(REPO, "python"))


def kernels(dslc, hidden):
    """The dslc kernels of one hidden size (H is compiled in)."""
    d = ("-D", f"H={hidden}")
    return {
        "one_shot": dslc.kernel(ONE_SHOT[0], ONE_SHOT[1], dslc_args=d),
        "two_shot": dslc.kernel(TWO_SHOT[0], TWO_SHOT[1], dslc_args=d),
        "rmsnorm": dslc.kernel(RMSNORM[0], RMSNORM[1], dslc_args=d),
        "ll_ar": dslc.kernel(LL_AR[0], LL_AR[1]),
    }


def call_specs(dslc, dtype, t, h):
    """Per kernel: the tensors each call below passes (dtype and shape),
    so --precompile fills the cache with exactly the calls' keys."""
    spec = dslc.TensorSpec
    rows = {n: spec(dtype, (t, h)) for n in
            ("x", "residual", "out", "residual_out")}
    rows["weight"] = spec(dtype, (h,))
    return {"one_shot": rows, "two_shot": rows, "rmsnorm": rows,
            "ll_ar": {"a": spec(dtype, (t * h,))}}


def precompile(args):
    python_path()
    import dslc
    n, cubins = 0, set()
    for h in args.hidden:
        ks = kernels(dslc, h)
        for t in args.tokens:
            for name, kw in call_specs(dslc, args.dtype, t, h).items():
                for r in range(args.world_size):  # the key has the rank
                    try:
                        path = ks[name].compile(
                            rank=r, world_size=args.world_size, **kw)
                    except dslc.DslcError as e:
                        print(f"fused_rmsnorm: {name}, tokens {t}, hidden "
                              f"{h}, rank {r}: {e}", file=sys.stderr)
                        return 1
                    n += 1
                    cubins.add(path)
                    if args.verbose:
                        print(path)
    # The cache keys only the sizes a kernel specializes on (H here), so
    # the token counts share cubins.
    print(f"fused_rmsnorm: {n} call(s) of world {args.world_size}, "
          f"{len(cubins)} cubin(s) in the cache ({dslc.cache_dir()})")
    return 0


def dry_run(args):
    print(f"fused_rmsnorm: {len(args.tokens)} x {len(args.hidden)} shapes, "
          f"{args.dtype}, implementations {', '.join(args.impls)}, "
          f"{args.iters} calls x {args.reps} samples (eager, graph)")
    for h in args.hidden:
        for t in args.tokens:
            print(f"  tokens {t} hidden {h}: size {t * h}")
    return 0


# ---- on the GPUs (torch imported from here on) ----


def inputs(torch, rank, world, t, h, dtype, seed, dev):
    """This rank's x and residual, the weight, and the float64 reference
    of this rank's outputs (every rank's x drawn from its own seed)."""
    def draw(r, what, shape):
        g = torch.Generator(device=dev).manual_seed(
            seed * 1_000_003 + r * 101 + what)
        return torch.randn(shape, generator=g, device=dev).to(dtype)
    xs = [draw(r, 0, (t, h)) for r in range(world)]
    residual = draw(rank, 1, (t, h))
    weight = (1 + 0.1 * draw(0, 2, (h,)).float()).to(dtype)
    total = sum(x.double() for x in xs) + residual.double()
    ref_ro = total.to(dtype).double()
    ref_out = (ref_ro * torch.rsqrt(ref_ro.pow(2).mean(-1, keepdim=True) + EPS)
               * weight.double())
    return xs[rank], residual, weight, ref_out, ref_ro


def rel_error(torch, got, ref):
    got = got.double()
    if torch.isnan(got).any():
        return float("inf")
    return (torch.linalg.vector_norm(got - ref) /
            max(torch.linalg.vector_norm(ref).item(), 1e-30)).item()


class Shape:
    """The buffers and the calls of every implementation at one shape."""

    def __init__(self, torch, dist, dslc, ks, args, t, h, rank, world, dev):
        dt = getattr(torch, args.dtype)
        self.torch, self.t, self.h = torch, t, h
        x, res, w, self.ref_out, self.ref_ro = inputs(
            torch, rank, world, t, h, dt, args.seed + t, dev)
        self.x, self.res, self.w = x, res, w
        # Plain tensors for the one-shot and the unfused paths; symmetric
        # ones (dslc's heap) for the two-shot, which reads its peers' x and
        # writes their outputs.
        self.out = torch.empty_like(x)
        self.ro = torch.empty_like(x)
        self.work = torch.empty_like(x)  # the in-place all-reduce's buffer
        self.t_out = self.out  # PyTorch's RMSNorm output (a new tensor)
        self.sx = dslc.empty((t, h), dt)
        self.sout = dslc.empty((t, h), dt)
        self.sro = dslc.empty((t, h), dt)
        self.sx.copy_(x)
        one, two, norm, ll = ks["one_shot"], ks["two_shot"], ks["rmsnorm"], \
            ks["ll_ar"]
        flat = x.view(-1)

        def rmsnorm_after(summed):
            norm(x=summed, residual=res, weight=w, out=self.out,
                 residual_out=self.ro)

        def torch_norm():  # PyTorch's add, then its RMSNorm (allocates)
            torch.add(self.work, res, out=self.ro)
            self.t_out = torch.nn.functional.rms_norm(self.ro, (h,), w, EPS)

        self.calls = {
            "fused_one_shot": (
                lambda: one(x=x, residual=res, weight=w, out=self.out,
                            residual_out=self.ro),
                lambda: (self.out, self.ro)),
            "fused_two_shot": (
                lambda: two(x=self.sx, residual=res, weight=w, out=self.sout,
                            residual_out=self.sro),
                lambda: (self.sout, self.sro)),
            "nccl+torch": (
                lambda: (dist.all_reduce(self.work), torch_norm()),
                lambda: (self.t_out, self.ro)),
            "dslc_ar+rmsnorm": (
                lambda: (dslc.all_reduce(self.work),
                         rmsnorm_after(self.work)),
                lambda: (self.out, self.ro)),
            "ll_ar+rmsnorm": (
                lambda: rmsnorm_after(ll(a=flat).view(t, h)),
                lambda: (self.out, self.ro)),
        }

    def reset(self):
        """Inputs back, outputs poisoned (NaN)."""
        self.work.copy_(self.x)
        self.sx.copy_(self.x)
        for o in (self.out, self.ro, self.sout, self.sro, self.t_out):
            o.fill_(float("nan"))  # t_out: a captured graph's own tensor

    def check(self, impl, tol):
        out, ro = self.calls[impl][1]()
        e_out = rel_error(self.torch, out, self.ref_out)
        e_ro = rel_error(self.torch, ro, self.ref_ro)
        if e_out < tol and e_ro < tol:
            return ""
        return (f"relative error out {e_out:.3g} residual_out {e_ro:.3g} "
                f"(tolerance {tol:g})")


def measure(torch, dist, s, impl, mode, args, stream):
    """(us, note): checked once, then timed; note is empty when right."""
    call = s.calls[impl][0]
    s.reset()
    torch.cuda.synchronize()
    dist.barrier()
    if mode == "eager":
        call()
    else:
        side = torch.cuda.Stream()
        side.wait_stream(stream)
        with torch.cuda.stream(side):
            call()  # warm-up outside the capture (first calls load kernels)
        stream.wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            call()
        s.reset()
        torch.cuda.synchronize()
        dist.barrier()
        graph.replay()
    torch.cuda.synchronize()
    note = s.check(impl, TOL[args.dtype])
    if note:
        return 0.0, note
    for _ in range(3):
        call()
    if mode == "graph":
        many = torch.cuda.CUDAGraph()
        with torch.cuda.graph(many):
            for _ in range(args.iters):
                call()
        us = time_calls(torch, dist, many.replay, 1, args.reps,
                        stream) / args.iters
        del many, graph
    else:
        us = time_calls(torch, dist, call, args.iters, args.reps, stream)
    # Every implementation reads x and residual and writes out and
    # residual_out (T * H elements each) and reads the weight.
    esize = s.x.element_size()
    moved = (4 * s.t * s.h + s.h) * esize
    l2 = torch.cuda.get_device_properties(s.x.device).L2_cache_size
    return us, below_floor(us, l2, moved, f"{impl} {mode}")


def print_table(rows, impls, mode):
    """Rank 0: per shape, each implementation's us and the speedup of the
    faster fused kernel over NCCL + PyTorch and over the faster of our own
    unfused pairs (the issue's bar: >= 1.5x the former at <= 128 tokens,
    never below 1x the latter)."""
    by = {}
    for r in rows:
        if r["mode"] == mode:
            by.setdefault((r["t"], r["h"]), {})[r["impl"]] = r
    head = ["tokens", "hidden"] + [f"{i} us" for i in impls] + \
        ["nccl+torch/fused", "ours unfused/fused"]
    lines = [head]
    for (t, h), d in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        def us(i):
            r = d.get(i)
            return r["us"] if r and r["ok"] else None
        cells = [str(t), str(h)]
        for i in impls:
            v = us(i)
            cells.append(f"{v:.2f}" if v else ("FAIL" if i in d else "-"))
        fused = [us(i) for i in impls if i.startswith("fused") and us(i)]
        unfused = [us(i) for i in impls  # our own unfused pairs
                   if i.endswith("+rmsnorm") and us(i)]
        nccl = us("nccl+torch")
        best = min(fused) if fused else None
        cells.append(f"{nccl / best:.2f}x" if best and nccl else "-")
        cells.append(f"{min(unfused) / best:.2f}x" if best and unfused
                     else "-")
        lines.append(cells)
    widths = [max(len(r[c]) for r in lines) for c in range(len(head))]
    print(f"\n{mode} (median us per call)")
    for k, r in enumerate(lines):
        print(" | ".join(c.rjust(w) for c, w in zip(r, widths)))
        if k == 0:
            print("-|-".join("-" * w for w in widths))


def run(args):
    import torch
    import torch.distributed as dist
    python_path()
    import dslc

    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if torch.cuda.device_count() < 1:
        print("fused_rmsnorm: no GPU visible", file=sys.stderr)
        return 77
    dev = torch.device("cuda", local % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    if "RANK" not in os.environ:  # a world of one without torchrun
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(args.port))
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=dev)
    dslc.init(heap_bytes=args.heap_gib << 30)
    stream = torch.cuda.current_stream()
    rows, failures = [], 0
    for h in args.hidden:
        ks = kernels(dslc, h)
        for t in args.tokens:
            s = Shape(torch, dist, dslc, ks, args, t, h, rank, world, dev)
            for impl in args.impls:
                for mode in ("eager", "graph"):
                    try:
                        us, note = measure(torch, dist, s, impl, mode, args,
                                           stream)
                    except Exception as e:  # a kernel refusing a shape
                        us = 0.0
                        note = (f"{type(e).__name__}: "
                                f"{str(e).splitlines()[0][:160]}")
                        torch.cuda.synchronize()
                        dist.barrier()
                    # Rank 0 decides; a failure on any rank fails the row.
                    bad = torch.tensor([1 if note else 0], device=dev)
                    dist.all_reduce(bad, op=dist.ReduceOp.MAX)
                    if bad.item() and not note:
                        note = "failed on another rank"
                    failures += bool(note)
                    config = ""
                    if impl == "dslc_ar+rmsnorm":
                        config = dslc.choice("all_reduce", t * h,
                                             getattr(torch, args.dtype))
                        config = config.split(":")[0]
                    rows.append({"t": t, "h": h, "impl": impl, "mode": mode,
                                 "us": us, "ok": not note, "note": note,
                                 "config": config})
                    if rank == 0:
                        print(f"tokens {t:>5} hidden {h:>5} {impl:<16} "
                              f"{mode:<5} {us:9.2f} us  "
                              f"{'ok' if not note else 'FAIL ' + note}",
                              flush=True)
            del s
    if rank == 0:
        esize = 2
        text = HEADER + "\n"
        for r in rows:
            n = r["t"] * r["h"]
            bus = 0.0
            if r["us"] > 0 and world > 1:
                bus = n * esize / (r["us"] * 1e-6) / 1e9 * 2 * (world - 1) \
                    / world
            source = "pytorch" if r["impl"] == "nccl+torch" else "dslc-python"
            text += ",".join(str(c) for c in (
                source, "all_reduce_rmsnorm", world, n, args.dtype,
                f"{r['impl']}_h{r['h']}", r["config"], r["mode"],
                f"{r['us']:.3f}", f"{bus:.2f}", int(r["ok"]),
                f"tokens={r['t']} hidden={r['h']}" +
                (f" {r['note']}".replace(",", ";") if r["note"] else ""))) \
                + "\n"
        if args.csv:
            with open(args.csv, "w") as f:
                f.write(text)
            print(f"fused_rmsnorm: CSV in {args.csv}")
        for mode in ("graph", "eager"):
            print_table(rows, args.impls, mode)
    dist.barrier()
    dslc.shutdown()
    dist.destroy_process_group()
    return 1 if failures else 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Modes: the default runs on the GPUs (torch); --precompile "
        "and --dry-run need neither.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", default="1,8,32,128,512,2048,8192",
                    help="token counts T (list, or A..B: powers of two)")
    ap.add_argument("--hidden", default="4096,8192", help="hidden sizes H")
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    ap.add_argument("--impls", default=",".join(IMPLS),
                    help="implementations to time (comma-separated)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--heap-gib", type=int, default=16,
                    help="dslc's symmetric heap per rank (GiB): the LL "
                    "scratch of the one-shot grows with T * H")
    ap.add_argument("--port", type=int, default=29541,
                    help="rendezvous port without torchrun")
    ap.add_argument("--csv", default="")
    ap.add_argument("--precompile", action="store_true",
                    help="compile every kernel for every shape and rank of "
                    "--world-size into dslc's cache (no GPU, no torch)")
    ap.add_argument("--world-size", type=int, default=2,
                    help="the world size --precompile compiles for")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the shapes and implementations, run nothing")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    args.dtype = DTYPES[args.dtype]
    try:
        args.tokens = parse_sizes(args.tokens)
        args.hidden = parse_sizes(args.hidden)
    except ValueError as e:
        ap.error(f"--tokens/--hidden: {e}")
    args.impls = [i for i in args.impls.split(",") if i]
    for i in args.impls:
        if i not in IMPLS:
            ap.error(f"--impls: unknown '{i}' (known: {', '.join(IMPLS)})")
    if not args.tokens or min(args.tokens) < 1 or not args.hidden or \
            min(args.hidden) < 8 or any(h % 8 for h in args.hidden):
        ap.error("--tokens must be >= 1, --hidden multiples of 8")
    if args.dry_run:
        return dry_run(args)
    if args.precompile:
        return precompile(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
