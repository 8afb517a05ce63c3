#!/usr/bin/env python3
"""Times dslc's matrix products (examples/matmul.py) against PyTorch's
(cuBLAS) on one GPU, issue 27's shapes:

  square   M = N = K in {1024, 2048, 4096, 8192}, bf16
  skinny   M in {16, 128}, N = K in {4096, 8192, 16384}, bf16
  fp8      8192^3 e4m3 with row/column scales (torch._scaled_mm); y [K, N]
           passed row-major (widened, mma.sync) and column-major (y.T
           .contiguous().T, as Helion's fp8_gemm passes it: read K-major
           as stored, on wgmma)
  epilogue matmul + bias + SiLU, f16, 4096^3 (torch: x @ y, then F.silu)

Per shape every implementation is checked first (a relative Frobenius
error against a float64 reference below 1e-2), then timed as Triton's
do_bench times: per sample the L2 flushed (a 256 MiB write), one call
between CUDA events; the median over --reps samples. dslc runs each config
of its list (tensor cores, dot_engine "mma_sync"; CUDA cores "fma" at the
small shapes) and reports each; `best` is the fastest checked one. A time
below the physical floor (2 M N K FLOPs at the H200's dense peak, or the
operands' bytes at 4.8 TB/s) fails the row: the timing did not cover the
work.

With --tune S, each case also runs dslc's tuner at its shape (S seconds of
search, the matmul space compiled as the search visits it; docs/tuner.md)
against torch's result and times the tuned config: the row "tuned (T s:
CONFIG)" is what `dslc.kernel(..., autotune=True)` gives a user.

  python3 benchmarks/matmul.py --csv docs/bench/DATE-1xh200-matmul.csv
  DSLC_CACHE_DIR=$PWD/build/matmul-bench-cache \\
      python3 benchmarks/matmul.py --precompile     # on the build machine

--precompile and --dry-run need no torch and no GPU.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, HERE)

from bench_common import HBM_PEAK_BYTES_PER_S, time_flushed_us  # noqa: E402

SOURCE = os.path.join(REPO, "examples", "matmul.py")
# The H200's dense tensor-core peaks (FLOP/s), NVIDIA's datasheet.
PEAK = {"bf16": 989e12, "f16": 989e12, "fp8": 1979e12, "tf32": 494e12}

SQUARE = [(n, n, n) for n in (1024, 2048, 4096, 8192)]
SKINNY = [(m, n, n) for m in (16, 128) for n in (4096, 8192, 16384)]
# (block_sizes, warps, engine[, num_stages[, l2_groupings]]) tried per
# case: what dslc chooses ("default": wgmma at 4 stages on sm_90 in groups
# of 16 rows of tiles, contract::defaultNumStages / defaultL2Grouping), then
# the others, the fastest on the H200 so far (2026-12-05,
# docs/measurements.md) first
BIG = [([128, 256, 64], 8, "default"), ([128, 256, 64], 8, "wgmma", 4, 1),
       ([128, 256, 64], 8, "wgmma", 4, 8),
       ([128, 256, 64], 8, "wgmma", 3),
       ([128, 128, 64], 8, "wgmma", 5), ([128, 128, 64], 8, "wgmma", 4),
       ([128, 256, 32], 8, "wgmma", 5), ([128, 128, 64], 8, "mma_sync"),
       ([128, 256, 32], 8, "mma_sync"), ([64, 64, 32], 4, "mma_sync")]
# M = 16: a 16-row block on mma.sync; B streams through N / BN CTAs, so
# narrower N tiles and deeper K stages keep more of it in flight (each
# spill-free, ptxas -v); 64 rows on wgmma (48 of them masked) as well
SMALL_M = [([16, 128, 64], 4, "mma_sync"), ([16, 64, 64], 4, "mma_sync"),
           ([16, 256, 64], 8, "mma_sync"), ([16, 64, 128], 4, "mma_sync", 4),
           ([16, 32, 128], 4, "mma_sync", 4), ([16, 64, 64], 4, "mma_sync", 6),
           ([16, 32, 128], 4, "mma_sync", 8), ([16, 64, 128], 4, "mma_sync", 8),
           ([64, 32, 128], 4, "wgmma", 8),
           ([64, 32, 128], 4, "wgmma", 4)]
# M = 128: the square default gives N / 256 CTAs (16 at N = 4096 for 132
# SMs: 0.44x of cuBLAS on the H100, 2026-12-06); narrower N tiles on wgmma
# give 2-8x the CTAs (each spill-free, ptxas -v)
MID_M = [([128, 256, 64], 8, "default"), ([128, 64, 64], 8, "wgmma", 4),
         ([64, 64, 64], 4, "wgmma", 4), ([128, 128, 64], 8, "wgmma", 4),
         ([64, 64, 128], 4, "wgmma", 4), ([64, 32, 128], 4, "wgmma", 4),
         ([128, 64, 128], 8, "wgmma", 3), ([128, 64, 64], 8, "wgmma", 8),
         ([64, 64, 64], 4, "wgmma", 8), ([64, 64, 128], 4, "wgmma", 6)]
FMA = [([128, 256, 64], 8, "fma")]


def cases():
    """(label, kernel, dtype, M, N, K, configs)."""
    out = []
    for m, n, k in SQUARE:
        cfgs = BIG + (FMA if m <= 2048 else [])
        out.append(("square", "matmul", "bf16", m, n, k, cfgs))
    for m, n, k in SKINNY:
        out.append(("skinny", "matmul", "bf16", m, n, k,
                    SMALL_M if m == 16 else MID_M))
    out.append(("fp8", "matmul_fp8", "fp8", 8192, 8192, 8192,
                [([64, 128, 64], 4, "mma_sync"),
                 ([128, 128, 64], 8, "mma_sync")]))
    out.append(("fp8", COLUMN_MAJOR_FP8, "fp8", 8192, 8192, 8192,
                [([128, 256, 128], 8, "default"),
                 ([128, 256, 128], 8, "wgmma", 3)]))
    # w [N, K] (K-major, torch._scaled_mm's layout): fp8 on wgmma
    for m, n, k in [(8192, 8192, 8192), (4096, 4096, 4096)]:
        out.append(("fp8", "linear_fp8", "fp8", m, n, k,
                    [([128, 256, 128], 8, "default"),
                     ([128, 256, 128], 8, "wgmma", 3),
                     ([128, 128, 128], 8, "wgmma", 4),
                     ([128, 256, 64], 8, "wgmma", 4)]))
    # bf16 w [N, K] (F.linear's layout, the rhs read K-major)
    for m, n, k in [(4096, 4096, 4096), (8192, 8192, 8192)]:
        out.append(("linear", "linear", "bf16", m, n, k,
                    [([128, 256, 64], 8, "default"),
                     ([128, 256, 64], 8, "mma_sync")]))
    # f32 in tf32 (dot_precision="tf32") beside torch with allow_tf32
    for m, n, k in [(4096, 4096, 4096)]:
        out.append(("tf32", "matmul_tf32", "tf32", m, n, k,
                    [([64, 128, 32], 4, "default"),
                     ([128, 128, 32], 8, "default")]))
    # the same tiles as the plain product (wgmma by default), the bias
    # and SiLU applied to the accumulator in registers before the store
    out.append(("epilogue", "matmul_bias_silu", "f16", 4096, 4096, 4096,
                [([128, 256, 64], 8, "default"),
                 ([128, 256, 64], 8, "wgmma", 3),
                 ([128, 128, 64], 8, "wgmma", 4),
                 ([128, 128, 64], 8, "mma_sync")]))
    return out


# matmul_fp8 called with y column-major (--dim-order y=1x0)
COLUMN_MAJOR_FP8 = "matmul_fp8 (y column-major)"


def kernel(dslc, name, cfg):
    blocks, warps, engine = cfg[:3]
    if name == COLUMN_MAJOR_FP8:
        name = "matmul_fp8"
    extra = {"matmul_fp8": ("-D", "scale_x.size(1)=1",
                            "-D", "scale_y.size(0)=1"),
             "linear_fp8": ("-D", "scale_x.size(1)=1",
                            "-D", "scale_w.size(0)=1")}.get(name, ())
    config = {"block_sizes": blocks, "num_warps": warps}
    if engine != "default":  # else dslc chooses (wgmma on sm_90)
        config["dot_engine"] = engine
    if len(cfg) > 3:
        config["num_stages"] = cfg[3]
    if len(cfg) > 4:
        config["l2_groupings"] = [cfg[4]]
    return dslc.kernel(SOURCE, name, dslc_args=extra, config=config)


def specs(dslc, name, m, n, k):
    S = dslc.TensorSpec
    if name == "matmul":
        return (S("bfloat16", (m, k)), S("bfloat16", (k, n)))
    if name == "matmul_bias_silu":
        return (S("float16", (m, k)), S("float16", (k, n)),
                S("float16", (n,)))
    if name == "linear":
        return (S("bfloat16", (m, k)), S("bfloat16", (n, k)))
    if name == "matmul_tf32":
        return (S("float32", (m, k)), S("float32", (k, n)))
    y = {"linear_fp8": S("float8_e4m3fn", (n, k)),
         COLUMN_MAJOR_FP8: S("float8_e4m3fn", (k, n), (1, 0))}.get(
             name, S("float8_e4m3fn", (k, n)))
    return (S("float8_e4m3fn", (m, k)), y, S("float32", (m, 1)),
            S("float32", (1, n)))


def config_name(cfg):
    blocks, warps, engine = cfg[:3]
    stages = f" st={cfg[3]}" if len(cfg) > 3 else ""
    stages += f" l2g={cfg[4]}" if len(cfg) > 4 else ""
    return f"{engine} bs={'x'.join(map(str, blocks))} w={warps}{stages}"


def precompile(dslc):
    for _, name, _, m, n, k, cfgs in cases():
        for cfg in cfgs:
            print(kernel(dslc, name, cfg).compile(
                *specs(dslc, name, m, n, k), rank=0, world_size=1))


def inputs(torch, name, m, n, k):
    g = torch.Generator(device="cuda").manual_seed(m * 31 + n * 7 + k)

    def r(*shape, scale=1.0):
        return torch.randn(*shape, generator=g, device="cuda") * scale

    if name == "matmul":
        x, y = r(m, k).bfloat16(), r(k, n).bfloat16()
        return (x, y), (lambda: x @ y), (lambda: x.double() @ y.double())
    if name == "matmul_tf32":
        x, y = r(m, k), r(k, n)

        def tf32_torch():
            saved = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = True
            try:
                return x @ y
            finally:
                torch.backends.cuda.matmul.allow_tf32 = saved
        return (x, y), tf32_torch, lambda: x.double() @ y.double()
    if name == "linear":
        x, w = r(m, k).bfloat16(), r(n, k).bfloat16()
        return ((x, w), (lambda: torch.nn.functional.linear(x, w)),
                lambda: x.double() @ w.double().t())
    if name == "matmul_bias_silu":
        x, y, b = r(m, k).half(), r(k, n).half(), r(n).half()

        def ref():
            v = x.double() @ y.double() + b.double()
            return v * torch.sigmoid(v)
        return (x, y, b), (lambda: torch.nn.functional.silu(x @ y + b)), ref
    x = r(m, k, scale=4).to(torch.float8_e4m3fn)
    sx, sy = r(m, 1).abs() + 0.5, r(1, n).abs() + 0.5
    if name == "linear_fp8":
        w = r(n, k, scale=4).to(torch.float8_e4m3fn)

        def linear_torch():     # w.t() is column-major, as _scaled_mm wants
            return torch._scaled_mm(x, w.t(), scale_a=sx, scale_b=sy,
                                    out_dtype=torch.bfloat16)
        return ((x, w, sx, sy), linear_torch,
                lambda: (x.double() @ w.double().t()) * sx.double()
                * sy.double())
    y = r(k, n, scale=4).to(torch.float8_e4m3fn)
    yt = y.t().contiguous().t()      # _scaled_mm wants B column-major

    def ours_torch():
        return torch._scaled_mm(x, yt, scale_a=sx, scale_b=sy,
                                out_dtype=torch.bfloat16)
    return ((x, yt if name == COLUMN_MAJOR_FP8 else y, sx, sy), ours_torch,
            lambda: (x.double() @ y.double()) * sx.double() * sy.double())


def tuned(dslc, torch, name, call_args, torch_fn, budget_s):
    """(label, call) of the kernel tuned at these arguments by dslc's tuner
    against torch's result (bf16 tolerances), its config and search time in
    the label."""
    import json
    import time
    extra = {"matmul_fp8": ("-D", "scale_x.size(1)=1",
                            "-D", "scale_y.size(0)=1"),
             "linear_fp8": ("-D", "scale_x.size(1)=1",
                            "-D", "scale_w.size(0)=1")}.get(name, ())
    k = dslc.kernel(SOURCE, name, dslc_args=extra, autotune=True,
                    reference=lambda *a: torch_fn(), tolerance=(2e-2, 2e-2))
    start = time.perf_counter()
    k.tune(*call_args, force=True, budget_s=budget_s)
    secs = time.perf_counter() - start
    with open(k.compile(*call_args) + ".json") as f:
        tunables = json.load(f).get("tunables", [])
    brief = " ".join(f"{t['kind'][:5]}{t.get('index', '')}={t['value']}"
                     for t in tunables)
    return f"tuned ({secs:.0f} s: {brief})", lambda: k(*call_args)


def rel_error(got, ref):
    g = got.double()
    return float((g - ref).norm() / (ref.norm() + 1e-30))


def floor_us(dtype, m, n, k):
    elt = {"bf16": 2, "f16": 2, "fp8": 1, "tf32": 4}[dtype]
    flops = 2 * m * n * k / PEAK[dtype]
    bytes_ = (m * k + k * n) * elt + m * n * 2
    return max(flops, bytes_ / HBM_PEAK_BYTES_PER_S) * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", help="write the rows to this file")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--only", type=lambda t: t.split(","),
                    help="run the cases whose label has one of these "
                         "(comma-separated: skinny,epilogue)")
    ap.add_argument("--m", type=lambda t: {int(v) for v in t.split(",")},
                    help="run the cases of these M only (e.g. 4096,8192)")
    ap.add_argument("--configs", type=int, default=0,
                    help="time the first N configs of each case only")
    ap.add_argument("--tune", type=float, default=0, metavar="S",
                    help="also tune each case (S seconds of search) and "
                         "time the tuned config")
    ap.add_argument("--precompile", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    if args.dry_run:
        for label, name, dtype, m, n, k, cfgs in cases():
            print(label, name, dtype, m, n, k,
                  "; ".join(config_name(c) for c in cfgs))
        return 0
    import dslc
    if args.precompile:
        precompile(dslc)
        return 0
    import torch
    dslc.init()
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    rows, failed = [], 0
    print(f"{'case':9} {'M':>6} {'N':>6} {'K':>6} {'impl':34} {'us':>10} "
          f"{'TFLOP/s':>8} {'%peak':>6} {'vs torch':>8}")
    for label, name, dtype, m, n, k, cfgs in cases():
        if args.only and not any(o in label for o in args.only):
            continue
        if args.m and m not in args.m:
            continue
        cfgs = cfgs[:args.configs] if args.configs else cfgs
        call_args, torch_fn, ref_fn = inputs(torch, name, m, n, k)
        ref = ref_fn()
        impls = [("torch", torch_fn)] + [
            (config_name(c), (lambda kk: lambda: kk(*call_args))(
                kernel(dslc, name, c))) for c in cfgs]
        if args.tune > 0:
            try:
                impls.append(tuned(dslc, torch, name, call_args, torch_fn,
                                   args.tune))
            except Exception as e:  # the tuning failed: reported
                failed += 1
                print(f"{label:9} {m:6} {n:6} {k:6} {'tuned':34} FAIL: {e}",
                      flush=True)
        floor = floor_us(dtype, m, n, k)
        results = {}
        for impl, fn in impls:
            try:
                err = rel_error(fn(), ref)
                if not err < 1e-2:
                    raise AssertionError(f"relative error {err:.3g}")
                us = time_flushed_us(torch, fn, args.reps, flush)
                if us < floor:
                    raise AssertionError(f"{us:.2f} us is below the floor "
                                         f"{floor:.2f} us")
                results[impl] = us
            except Exception as e:  # a failed row, reported, not timed
                failed += 1
                print(f"{label:9} {m:6} {n:6} {k:6} {impl:34} FAIL: {e}",
                      flush=True)
        base = results.get("torch")
        for impl, us in results.items():
            tf = 2 * m * n * k / us / 1e6
            ratio = base / us if base else float("nan")
            print(f"{label:9} {m:6} {n:6} {k:6} {impl:34} {us:10.1f} "
                  f"{tf:8.1f} {100 * tf * 1e12 / PEAK[dtype]:6.1f} "
                  f"{ratio:8.3f}", flush=True)
            rows.append((label, dtype, m, n, k, impl, us, tf, ratio))
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("case,dtype,m,n,k,impl,us,tflops,ratio_to_torch\n")
            for r in rows:
                f.write(",".join(str(v) for v in r) + "\n")
    dslc.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
