"""Kernels whose 2-d tiles deal their rows over groups of lanes (narrow
rows: the kernel's rows are spread over fewer threads than the CTA,
TileLayout.h), with no communication: world size 1, so the device machine
runs them with dslrun against the simulator's dump (--inputs-from). Every
layout change is exercised: 2-d loads and stores with tails in both
dimensions, broadcasts of [M, 1] and [1, N], reductions along the last
dimension (keepdim and not), along the dealt first dimension (keepdim and
not), reshapes across rank 2, a rank-1 weight against a 2-d tile, and a
matmul at Helion's block sizes.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[32, 64], num_warps=4))
def row_col_stats(
    x: torch.Tensor[torch.bfloat16, 2],
    w: torch.Tensor[torch.bfloat16, 1],
) -> torch.Tensor:
    M, N = x.size()
    out = torch.empty([M, N], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([M, N]):
        v = x[tile_m, tile_n].to(torch.float32)
        rows = torch.sum(v, dim=-1, keepdim=True)  # [BM, 1]
        flat = v.amax(-1)  # [BM]: a rank-1 result
        cols = torch.amax(v, dim=0)  # [BN]: the dealt dimension
        mean = v.mean(0, keepdim=True)  # [1, BN]
        scaled = v * w[tile_n].to(torch.float32)[None, :]
        out[tile_m, tile_n] = (
            scaled - rows * 0.01 + flat[:, None] + cols[None, :] - mean
        )
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 32], num_warps=8))
def masked_rows(
    x: torch.Tensor[torch.float32, 2],
    y: torch.Tensor[torch.float32, 2],
) -> torch.Tensor:
    M, N = x.size()
    out = torch.empty([M, N], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([M, N]):
        a = x[tile_m, tile_n]
        b = y[tile_m, tile_n]
        keep = a > b
        picked = torch.where(keep, a, b * 0.5)
        lo = torch.amin(picked, dim=0, keepdim=True)  # [1, BN]
        hi = torch.amax(picked, dim=1)  # [BM]
        out[tile_m, tile_n] = picked - lo + hi[:, None] * 0.25
    return out


@helion.kernel(config=helion.Config(block_sizes=[64, 64, 32], num_warps=8))
def matmul_helion_blocks(
    a: torch.Tensor[torch.bfloat16, 2],
    b: torch.Tensor[torch.bfloat16, 2],
    bias: torch.Tensor[torch.bfloat16, 1],
) -> torch.Tensor:
    M, K = a.size()
    K2, N = b.size()
    out = torch.empty([M, N], dtype=torch.float32, device=a.device)
    for tile_m, tile_n in hl.tile([M, N]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(K):
            acc = torch.addmm(acc, a[tile_m, tile_k], b[tile_k, tile_n])
        out[tile_m, tile_n] = acc + bias[tile_n].to(torch.float32)[None, :]
    return out


@helion.kernel(config=helion.Config(block_sizes=[24, 32], num_warps=4))
def ragged_groups(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    # 24 rows over 16 groups of 8 lanes: group g holds rows g and g + 16,
    # and the second row of groups 8..15 is padding.
    M, N = x.size()
    out = torch.empty([M, N], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([M, N]):
        v = x[tile_m, tile_n]
        total = torch.sum(v, dim=0, keepdim=True)  # [1, BN]
        peak = torch.amax(v, dim=1, keepdim=True)  # [BM, 1]
        out[tile_m, tile_n] = v * 2.0 - total * 0.125 + peak
    return out


@helion.kernel(config=helion.Config(block_sizes=[128, 256, 64], num_warps=8))
def matmul_big_blocks(
    a: torch.Tensor[torch.bfloat16, 2],
    b: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    M, K = a.size()
    K2, N = b.size()
    out = torch.empty([M, N], dtype=torch.bfloat16, device=a.device)
    for tile_m, tile_n in hl.tile([M, N]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(K):
            acc = torch.addmm(acc, a[tile_m, tile_k], b[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(torch.bfloat16)
    return out
