#!/usr/bin/env python3
"""GPU checks of tensor-core matrix products (issue 27) at world 1:

  python3 python/tests/gpu/matmul_tests.py            (one GPU)
  python3 python/tests/gpu/matmul_tests.py --precompile   (no GPU needed)

The kernels of examples/matmul.py, each compiled
with dot_engine "mma_sync" (tensor cores) and "fma" (CUDA cores), run on
ragged shapes (M, N, K not multiples of the blocks; K = 1; one element;
large) and are checked against a float64 PyTorch reference: a relative
error per element within what the output dtype's rounding and an f32 sum
of K products allow. Prints PASS/FAIL per case and "N passed, N failed";
exit 0 only when all passed. --precompile fills $DSLC_CACHE_DIR for a
machine without the compiler.
"""

import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "python"))

import dslc  # noqa: E402

EXAMPLE = os.path.join(REPO, "examples", "matmul.py")
# The example's kernels with the output as a parameter: an output whose
# [M, N] comes from two tensors' sizes cannot be allocated by the package
# (the metadata has no "like" for it) and cannot be passed by name either.
SOURCE = os.path.join(os.environ.get("TMPDIR", "/tmp"), "dslc_matmul_out.py")


def _with_out_parameters():
    import re
    text = open(EXAMPLE).read()
    out = []
    for block in re.split(r"(?=@helion\.kernel)", text):
        m = re.search(r"out = torch\.empty\(\[m, n\], dtype=([\w.]+)", block)
        if m:
            dtype = {"x.dtype": None}.get(m.group(1), m.group(1))
            if dtype is None:
                dtype = re.search(r"x: torch\.Tensor\[([\w.]+), 2\]",
                                  block).group(1)
            block = block.replace(
                "\n) -> torch.Tensor:",
                f"\n    out: torch.Tensor[{dtype}, 2],\n):")
            block = re.sub(r"\n    out = torch\.empty\([^\n]*\n", "\n", block)
            block = block.replace("    return out\n", "")
        out.append(block)
        if "\ndef linear(" in block:
            # linear_tf32: F.linear's layout in f32, tf32 (an rhs staged
            # transposed and read by ldmatrix; matmul_tf32's is not)
            out.append(block.replace("def linear(", "def linear_tf32(")
                       .replace("torch.bfloat16", "torch.float32")
                       .replace("@helion.kernel(",
                                '@helion.kernel(dot_precision="tf32", ', 1))
    with open(SOURCE, "w") as f:
        f.write("".join(out))


_with_out_parameters()
# kernel, its block sizes and warps, the shapes (M, N, K) it runs
KERNELS = {
    "matmul": ([128, 128, 64], 8,
                    [(1, 1, 1), (37, 61, 1), (100, 200, 300),
                     (128, 128, 32), (257, 129, 1000), (2048, 2048, 2048)]),
    "matmul_bias_silu": ([64, 64, 24], 4,
                             [(1, 1, 1), (65, 63, 23), (300, 500, 700)]),
    "matmul_fp8": ([64, 128, 64], 4,
                   [(16, 16, 16), (70, 130, 200), (1024, 1024, 1024)]),
    # w [N, K]: fp8 on wgmma (K-major operands; K blocks of 32 fp8 steps)
    # w [N, K] in bf16 (F.linear's layout): the rhs read K-major
    "linear": ([128, 128, 64], 8,
               [(1, 1, 1), (70, 130, 200), (257, 129, 1000),
                (1024, 1024, 1024)]),
    "linear_fp8": ([128, 128, 128], 8,
                   [(16, 16, 32), (70, 130, 200), (257, 129, 1000),
                    (1024, 1024, 1024)]),
    # f32 in tf32 (dot_precision="tf32"): mma.sync m16n8k8, unpipelined
    "matmul_tf32": ([64, 128, 32], 4,
                    [(1, 1, 1), (37, 61, 100), (257, 129, 1000),
                     (1024, 1024, 1024)]),
    "linear_tf32": ([64, 128, 32], 4,
                    [(1, 1, 1), (70, 130, 200), (257, 129, 1000)]),
    # Tiles too small for all the warps (Helion's default 16 x 16 blocks):
    # one warp's fragments, repeated by the other three; two warps' blocks,
    # each repeated four times.
    "matmul@16x16": ([16, 16, 16], 4,
                     [(1, 1, 1), (37, 61, 100), (300, 200, 500)]),
    "matmul@16x32": ([16, 32, 32], 8, [(37, 61, 100), (300, 200, 500)]),
    # y [K, N] passed column-major (y.T.contiguous().T, as Helion's
    # fp8_gemm passes it): compiled with --dim-order y=1x0, read K-major as
    # stored (fp8 on wgmma as linear_fp8)
    "matmul@y_col_major": ([128, 128, 64], 8,
                           [(1, 1, 1), (37, 61, 100), (257, 129, 1000),
                            (1024, 1024, 1024)]),
    "matmul_fp8@y_col_major": ([128, 128, 128], 8,
                               [(16, 16, 32), (70, 130, 200),
                                (257, 129, 1000), (1024, 1024, 1024)]),
}
COL_MAJOR = "@y_col_major"
# How the products run: tensor cores with the K loop software pipelined
# over the default 3 stages, over 2 and 4, not pipelined (1); Hopper's
# wgmma (2 stages: each product waited for; 3, 4 and 5: each product left
# in flight while the next iteration copies and issues); CUDA cores. (matmul_bias_silu's K block of 24 is
# not a multiple of 16 and matmul_fp8 widens its inputs in registers:
# their loops stay unpipelined, on mma.sync, whatever the config;
# linear_fp8's K-major fp8 operands are staged for wgmma's fp8 products,
# and widened for mma.sync's.)
ENGINES = {
    # no dot_engine: dslc's choice for the GPU (wgmma on sm_90)
    "default": {},
    "mma_sync": {"dot_engine": "mma_sync"},
    "mma_sync/stages=2": {"dot_engine": "mma_sync", "num_stages": 2},
    "mma_sync/stages=4": {"dot_engine": "mma_sync", "num_stages": 4},
    "mma_sync/stages=1": {"dot_engine": "mma_sync", "num_stages": 1},
    "wgmma": {"dot_engine": "wgmma"},
    "wgmma/stages=2": {"dot_engine": "wgmma", "num_stages": 2},
    "wgmma/stages=4": {"dot_engine": "wgmma", "num_stages": 4},
    "wgmma/stages=5": {"dot_engine": "wgmma", "num_stages": 5},
    # the grid's tiles in groups of 8 rows (every ragged shape's tiles,
    # each once: the grouping is a permutation)
    "wgmma/stages=4/l2g=8": {"dot_engine": "wgmma", "num_stages": 4,
                             "l2_groupings": [8]},
    "fma": {"dot_engine": "fma"},
}


def kernel(label, engine):
    blocks, warps, _ = KERNELS[label]
    name = label.split("@")[0]  # "kernel@config" runs kernel
    return dslc.kernel(SOURCE, name, config={
        "block_sizes": blocks, "num_warps": warps, **ENGINES[engine]},
        dslc_args={"matmul_fp8": ("-D", "scale_x.size(1)=1",
                                  "-D", "scale_y.size(0)=1"),
                   "linear_fp8": ("-D", "scale_x.size(1)=1",
                                  "-D", "scale_w.size(0)=1")}.get(name, ()))


def specs(name, m, n, k):
    S = dslc.TensorSpec
    if name.endswith(COL_MAJOR):
        s = list(specs(name.split("@")[0], m, n, k))
        s[1] = S(s[1].dtype_name, s[1].shape, (1, 0))
        return tuple(s)
    name = name.split("@")[0]
    if name == "matmul":
        return (S("bfloat16", (m, k)), S("bfloat16", (k, n)),
                S("bfloat16", (m, n)))
    if name == "matmul_bias_silu":
        return (S("float16", (m, k)), S("float16", (k, n)),
                S("float16", (n,)), S("float16", (m, n)))
    if name == "linear":
        return (S("bfloat16", (m, k)), S("bfloat16", (n, k)),
                S("bfloat16", (m, n)))
    if name in ("matmul_tf32", "linear_tf32"):
        return (S("float32", (m, k)),
                S("float32", (n, k) if name == "linear_tf32" else (k, n)),
                S("float32", (m, n)))
    return (S("float8_e4m3fn", (m, k)),
            S("float8_e4m3fn", (n, k) if name == "linear_fp8" else (k, n)),
            S("float32", (m, 1)), S("float32", (1, n)),
            S("bfloat16", (m, n)))


def precompile():
    # MATMUL_ONLY=linear,matmul@16x16 runs those kernels only
    only = [v for v in os.environ.get("MATMUL_ONLY", "").split(",") if v]
    for name, (_, _, shapes) in KERNELS.items():
        if only and name not in only:
            continue
        for engine in ENGINES:
            for m, n, k in shapes:
                print(kernel(name, engine).compile(*specs(name, m, n, k),
                                                  rank=0, world_size=1))


def inputs(name, m, n, k, seed):
    import torch
    if name.endswith(COL_MAJOR):
        args, ref = inputs(name.split("@")[0], m, n, k, seed)
        y = args[1]
        if y.dtype == torch.float8_e4m3fn:   # wgmma's fp8 sums (as linear)
            x, sx, sy = args[0].double(), args[2].double(), args[3].double()
            ref.extra_tol = 2 ** -13 * -(-k // 32) * (
                (x.abs() @ y.double().abs()) * sx * sy)
        return (args[0], y.t().contiguous().t(), *args[2:]), ref
    g = torch.Generator(device="cuda").manual_seed(seed)
    name = name.split("@")[0]

    def r(*shape, scale=1.0):
        return torch.randn(*shape, generator=g, device="cuda") * scale

    if name == "matmul":
        x, y = r(m, k).bfloat16(), r(k, n).bfloat16()
        return (x, y), x.double() @ y.double()
    if name == "matmul_bias_silu":
        x, y, b = r(m, k).half(), r(k, n).half(), r(n).half()
        v = x.double() @ y.double() + b.double()
        return (x, y, b), v * torch.sigmoid(v)
    if name == "linear":
        x, w = r(m, k).bfloat16(), r(n, k).bfloat16()
        return (x, w), x.double() @ w.double().t()
    if name in ("matmul_tf32", "linear_tf32"):
        x = r(m, k)
        if name == "linear_tf32":
            w = r(n, k)
            y = w.t()
        else:
            y = w = r(k, n)
        ref = x.double() @ y.double()
        # each operand rounded to tf32 (10 bits: 2^-11 relative), so each
        # term to about 2^-10 of its magnitude
        ref.extra_tol = 2 ** -10 * (x.double().abs() @ y.double().abs())
        return (x, w), ref
    x = r(m, k, scale=4).to(torch.float8_e4m3fn)
    sx, sy = r(m, 1).abs() + 0.5, r(1, n).abs() + 0.5
    if name == "linear_fp8":
        w = r(n, k, scale=4).to(torch.float8_e4m3fn)
        xd, wd = x.double(), w.double().t()
        ref = (xd @ wd) * sx.double() * sy.double()
        # wgmma keeps fp8 sums to about 2^-13 of their magnitude per k-step
        # of 32 (DeepSeek-V3's report: ~14 bits on Hopper): a bound from
        # the terms' absolute sum
        ref.extra_tol = 2 ** -13 * -(-k // 32) * (
            (xd.abs() @ wd.abs()) * sx.double() * sy.double())
        return (x, w, sx, sy), ref
    y = r(k, n, scale=4).to(torch.float8_e4m3fn)
    ref = (x.double() @ y.double()) * sx.double() * sy.double()
    return (x, y, sx, sy), ref


def check(got, ref, k, what):
    """Each element within the output's rounding (2^-8 relative for bf16
    and f16 outputs, doubled) plus an f32 sum's error over K terms of the
    magnitudes' sum (bounded here by the reference's scale)."""
    g = got.double()
    if g.shape != ref.shape:
        raise AssertionError(f"{what}: shape {tuple(g.shape)}, want "
                             f"{tuple(ref.shape)}")
    scale = ref.abs().max().item() + 1e-30
    tol = 2 ** -7 * ref.abs() + 2 ** -20 * k * scale
    extra = getattr(ref, "extra_tol", None)   # tf32 / wgmma fp8 sums
    if extra is not None:
        tol = tol + extra
    bad = (g - ref).abs() > tol
    if bool(bad.any()) or not bool(g.isfinite().all()):
        i = int(bad.flatten().nonzero()[0]) if bool(bad.any()) else 0
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {g.numel()} elements off, first at "
            f"{i}: got {g.flatten()[i].item()}, want {ref.flatten()[i].item()}")


def main():
    if "--precompile" in sys.argv:
        precompile()
        return 0
    import torch
    dslc.init()
    passed = failed = 0
    for name, (_, _, shapes) in KERNELS.items():
        for engine in ENGINES:
            k = kernel(name, engine)
            for m, n, kk in shapes:
                what = f"{name} {engine} M={m} N={n} K={kk}"
                t0 = time.time()
                try:
                    args, ref = inputs(name, m, n, kk, m * 7 + n + kk)
                    # [M, N] comes from two tensors' sizes: the metadata
                    # cannot give it, so the caller passes the output.
                    out = torch.full((m, n), float("nan"), device="cuda",
                                     dtype={"matmul_bias_silu": torch.float16,
                                            "matmul_tf32": torch.float32,
                                            "linear_tf32": torch.float32}.get(
                                         name, torch.bfloat16))
                    k(*args, out)
                    torch.cuda.synchronize()
                    check(out, ref, kk, what)
                    passed += 1
                    print(f"PASS {what} ({time.time() - t0:.1f}s)",
                          flush=True)
                except Exception as e:
                    failed += 1
                    print(f"FAIL {what}: {type(e).__name__}: {e}", flush=True)
                    traceback.print_exc()
                    if isinstance(e, dslc.KernelError):
                        break
    print(f"{passed} passed, {failed} failed")
    dslc.shutdown()
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
