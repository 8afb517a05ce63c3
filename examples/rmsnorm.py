"""Residual add + RMSNorm on one GPU: the second half of the unfused path.

    residual_out = x + residual
    out          = residual_out * rsqrt(mean(residual_out ** 2) + eps) * weight

vLLM's fused_add_rms_norm, as a plain tile kernel (no communication). After
an all-reduce of x (examples/ll_one_shot_all_reduce.py or
examples/two_shot_all_reduce.py over the T * H elements) it computes what
examples/fused_all_reduce_rmsnorm.py computes in one kernel; the benchmark
(benchmarks/fused_rmsnorm.py) times the pair against the fused kernels.

A CTA normalizes a tile of rows [rows, H] (block size: rows per tile),
in fp32; residual_out is rounded to x's dtype and the norm taken of the
rounded value, as in the fused kernels. H is compiled in (-D H=8192).

Reference: rmsnorm_ref below (float64; every rank's rows stacked on a
leading [world_size, ...] dimension, the convention of dslc --simulate,
dslrun and tuner references).

Compile:  dslc examples/rmsnorm.py -k rmsnorm_kernel -D H=8192 --emit=cubin -o rmsnorm.cubin
"""

# Checked against its reference by tests/examples/ (it needs sizes and -D H;
# tests/compiler/Simulator/examples.test skips files with this line).
from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=16))
def rmsnorm_kernel(
    x: torch.Tensor[torch.bfloat16, 2],  # [T, H]
    residual: torch.Tensor[torch.bfloat16, 2],  # [T, H]
    weight: torch.Tensor[torch.bfloat16, 1],  # [H]
    out: torch.Tensor[torch.bfloat16, 2],  # written
    residual_out: torch.Tensor[torch.bfloat16, 2],  # written: x + residual
    eps: hl.constexpr = 1e-6,
):
    T, H = x.size()
    H = hl.specialize(H)
    assert residual.size(1) == H
    assert weight.size(0) == H
    assert out.size(1) == H
    assert residual_out.size(1) == H
    for rows in hl.tile(T):
        summed = (x[rows, :].to(torch.float32) + residual[rows, :].to(torch.float32)).to(
            residual_out.dtype)
        residual_out[rows, :] = summed
        v = summed.to(torch.float32)
        variance = torch.mean(v * v, dim=-1, keepdim=True)
        normed = v * torch.rsqrt(variance + eps) * weight[None, :].to(torch.float32)
        out[rows, :] = normed.to(out.dtype)


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=16))
def rmsnorm_ref(
    x: torch.Tensor[torch.bfloat16, 3],  # [world_size, T, H]
    residual: torch.Tensor[torch.bfloat16, 3],
    weight: torch.Tensor[torch.bfloat16, 2],  # [world_size, H]
    out: torch.Tensor[torch.bfloat16, 3],
    residual_out: torch.Tensor[torch.bfloat16, 3],
    world_size: hl.constexpr,
    eps: hl.constexpr = 1e-6,
):
    """Every rank's outputs from its own inputs, in float64."""
    _, T, H = x.size()
    H = hl.specialize(H)
    assert residual.size(2) == H
    assert weight.size(1) == H
    assert out.size(2) == H
    assert residual_out.size(2) == H
    for t in hl.grid(T):
        for p in range(world_size):
            total = x[p, t, :].to(torch.float64) + residual[p, t, :].to(torch.float64)
            summed = total.to(residual_out.dtype)
            residual_out[p, t, :] = summed
            v = summed.to(torch.float64)
            variance = torch.mean(v * v, dim=-1)
            normed = v * torch.rsqrt(variance + eps) * weight[p, :].to(torch.float64)
            out[p, t, :] = normed.to(out.dtype)
