"""A matmul whose rhs is passed transposed (--dim-order b=1x0: b is the
[K, N] operand, stored as [N, K] row-major, as torch's b.T.contiguous().T),
and its float64 reference over b as stored ([world, N, K])."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[16, 32, 32], num_warps=4))
def matmul_kn(
    a: torch.Tensor[torch.bfloat16, 2],
    b: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    M, K = a.size()
    K2, N = b.size()
    assert K == K2
    out = torch.empty([M, N], dtype=torch.float32, device=a.device)
    for tile_m, tile_n in hl.tile([M, N]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(K):
            acc = hl.dot(a[tile_m, tile_k], b[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1, 64], num_warps=4))
def matmul_nk_ref(
    a: torch.Tensor[torch.bfloat16, 3],
    b: torch.Tensor[torch.bfloat16, 3],
) -> torch.Tensor:
    # b as stored: [world, N, K].
    W, M, K = a.size()
    N = b.size(1)
    out = torch.empty([W, M, N], dtype=torch.float32, device=a.device)
    for tile_w, tile_m, tile_n in hl.tile([W, M, N]):
        acc = hl.zeros([tile_w, tile_m, tile_n], dtype=torch.float64)
        for k in range(K):
            x = a[tile_w, tile_m, k].to(torch.float64)  # [1, 1]
            y = b[tile_w, tile_n, k].to(torch.float64)  # [1, 64]
            acc = acc + x[:, :, None] * y[:, None, :]
        out[tile_w, tile_m, tile_n] = acc.to(torch.float32)
    return out
