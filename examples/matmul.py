"""Matrix products on one GPU, written as Helion writes them:

    matmul            out = x @ y                        (bf16 or f16)
    matmul_bias_silu  out = silu(x @ y + bias)           (fused epilogue)
    matmul_fp8        out = (x @ y) * scale_x * scale_y  (fp8 e4m3, row and
                                                          column scales)
    linear_fp8        out = (x @ w.T) * scale_x * scale_w (fp8 e4m3, w [N, K]
                                                          as a Linear weight)
    linear            out = x @ w.T                      (bf16, w [N, K])
    matmul_tf32       out = x @ y                        (f32 in tf32:
                                                          dot_precision)

each a grid of [block_m, block_n] output tiles with a loop over K that
accumulates in f32. No `dot_engine` in a config: dslc's choice (wgmma on
sm_90, mma.sync on sm_80+, CUDA cores for f32; docs/compiler.md "Tensor
cores"). The compute half of all_gather + matmul and matmul + reduce-scatter.

Reference: matmul_ref below (float64; every rank's operands stacked on a
leading [world_size, ...] dimension, the convention of dslc --simulate,
dslrun and tuner references).

Compile:  dslc examples/matmul.py -k matmul --emit=cubin -o matmul.cubin
GPU check and benchmark: python/tests/gpu/matmul_tests.py,
benchmarks/matmul.py.
"""

# Checked against its reference by tests/examples/ (it needs sizes;
# tests/compiler/Simulator/examples.test skips files with this line).
from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(
    config=helion.Config(block_sizes=[128, 256, 64], num_warps=8)
)
def matmul(
    x: torch.Tensor[torch.bfloat16, 2],  # [M, K]
    y: torch.Tensor[torch.bfloat16, 2],  # [K, N]
) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    assert k == k2
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[64, 64, 32], num_warps=4)
)
def matmul_bias_silu(
    x: torch.Tensor[torch.float16, 2],  # [M, K]
    y: torch.Tensor[torch.float16, 2],  # [K, N]
    bias: torch.Tensor[torch.float16, 1],  # [N]
) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    assert k == k2
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], y[tile_k, tile_n], acc=acc)
        v = acc + bias[tile_n].to(torch.float32)
        out[tile_m, tile_n] = (v * torch.sigmoid(v)).to(x.dtype)
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[64, 128, 64], num_warps=4)
)
def matmul_fp8(
    x: torch.Tensor[torch.float8_e4m3fn, 2],  # [M, K]
    y: torch.Tensor[torch.float8_e4m3fn, 2],  # [K, N]
    scale_x: torch.Tensor[torch.float32, 2],  # [M, 1]
    scale_y: torch.Tensor[torch.float32, 2],  # [1, N]
) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    assert k == k2
    out = torch.empty([m, n], dtype=torch.bfloat16, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], y[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = (acc * scale_x[tile_m, :] * scale_y[:, tile_n]).to(
            torch.bfloat16
        )
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[128, 256, 128], num_warps=8)
)
def linear_fp8(
    x: torch.Tensor[torch.float8_e4m3fn, 2],  # [M, K]
    w: torch.Tensor[torch.float8_e4m3fn, 2],  # [N, K]
    scale_x: torch.Tensor[torch.float32, 2],  # [M, 1]
    scale_w: torch.Tensor[torch.float32, 2],  # [1, N]
) -> torch.Tensor:
    """x times the transpose of w, the weight of a Linear layer, K-major as
    torch._scaled_mm takes its second operand: on sm_90 the product runs
    on wgmma's fp8 tensor cores, which read both operands K-major
    (matmul_fp8's [K, N] y is widened to f16 for mma.sync instead)."""
    m, k = x.size()
    n, k2 = w.size()
    assert k == k2
    out = torch.empty([m, n], dtype=torch.bfloat16, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], w[tile_n, tile_k].T, acc=acc)
        out[tile_m, tile_n] = (acc * scale_x[tile_m, :] * scale_w[:, tile_n]).to(
            torch.bfloat16
        )
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[128, 256, 64], num_warps=8)
)
def linear(
    x: torch.Tensor[torch.bfloat16, 2],  # [M, K]
    w: torch.Tensor[torch.bfloat16, 2],  # [N, K]
) -> torch.Tensor:
    """x times the transpose of w, a Linear layer's weight (torch's
    F.linear without bias): the rhs tile is read K-major as loaded (on
    wgmma its K loop is pipelined with w's tiles staged [N, K], as
    linear_fp8's; docs/compiler.md, "Tensor cores")."""
    m, k = x.size()
    n, k2 = w.size()
    assert k == k2
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], w[tile_n, tile_k].T, acc=acc)
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[64, 128, 32], num_warps=4),
    dot_precision="tf32",
)
def matmul_tf32(
    x: torch.Tensor[torch.float32, 2],  # [M, K]
    y: torch.Tensor[torch.float32, 2],  # [K, N]
) -> torch.Tensor:
    """An f32 product on tensor cores in tf32 (10 bits of mantissa, f32
    accumulate), as Helion's default dot_precision and torch's
    allow_tf32=True compute it; without dot_precision="tf32" dslc keeps f32
    products exact on CUDA cores (torch's default)."""
    m, k = x.size()
    k2, n = y.size()
    assert k == k2
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=4))
def matmul_ref(
    x: torch.Tensor[torch.bfloat16, 3],  # [world_size, M, K]
    y: torch.Tensor[torch.bfloat16, 3],  # [world_size, K, N]
    world_size: hl.constexpr,
) -> torch.Tensor:
    """Every rank's product from its own operands, in float64: row i of the
    result is the sum over k of x[i, k] times row k of y."""
    _, m, k = x.size()
    _, k2, n = y.size()
    k = hl.specialize(k)
    n = hl.specialize(n)
    out = torch.empty([world_size, m, n], dtype=x.dtype, device=x.device)
    for i in hl.grid(m):
        for p in range(world_size):
            row = x[p, i, :].to(torch.float64)
            products = row[:, None] * y[p, :, :].to(torch.float64)
            out[p, i, :] = products.sum(0).to(out.dtype)
    return out
