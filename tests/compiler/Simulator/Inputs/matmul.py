"""A plain matmul (Helion's core of the fused matmul examples) and its
float64 reference (a sum over k of broadcast products), written in the DSL.

Sizes that leave a tail in every dimension of [8, 64, 32] blocks, e.g.
--size a=43x50 --size b=50x72 (the simulator: --shape a=43x50 --shape
b=50x72).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[8, 64, 32], num_warps=8))
def matmul_kernel(
    a: torch.Tensor[torch.bfloat16, 2],
    b: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    M, K = a.size()
    K2, N = b.size()
    out = torch.empty([M, N], dtype=torch.float32, device=a.device)
    for tile_m, tile_n in hl.tile([M, N]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(K):
            acc = torch.addmm(acc, a[tile_m, tile_k], b[tile_k, tile_n])
        out[tile_m, tile_n] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1, 64], num_warps=4))
def matmul_ref(
    a: torch.Tensor[torch.bfloat16, 3],
    b: torch.Tensor[torch.bfloat16, 3],
) -> torch.Tensor:
    # Every rank's a and b stacked on a leading [world] dimension; a
    # float64 sum over k of broadcast products (no matmul).
    W, M, K = a.size()
    N = b.size(2)
    out = torch.empty([W, M, N], dtype=torch.float32, device=a.device)
    for tile_w, tile_m, tile_n in hl.tile([W, M, N]):
        acc = hl.zeros([tile_w, tile_m, tile_n], dtype=torch.float64)
        for k in range(K):
            x = a[tile_w, tile_m, k].to(torch.float64)  # [1, 1]
            y = b[tile_w, k, tile_n].to(torch.float64)  # [1, 64]
            acc = acc + x[:, :, None] * y[:, None, :]
        out[tile_w, tile_m, tile_n] = acc.to(torch.float32)
    return out
