"""Matrix products on tensor cores (config dot_engine="mma_sync")."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(
    config=helion.Config(
        block_sizes=[128, 128, 64], num_warps=8, dot_engine="mma_sync"
    )
)
def matmul_bf16(
    x: torch.Tensor[torch.bfloat16, 2],
    y: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[64, 64, 24], num_warps=4, dot_engine="mma_sync")
)
def matmul_f16_bias_silu(
    x: torch.Tensor[torch.float16, 2],
    y: torch.Tensor[torch.float16, 2],
    bias: torch.Tensor[torch.float16, 1],
) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], y[tile_k, tile_n], acc=acc)
        v = acc + bias[tile_n].to(torch.float32)
        out[tile_m, tile_n] = (v * torch.sigmoid(v)).to(x.dtype)
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[64, 128, 64], num_warps=4, dot_engine="mma_sync")
)
def matmul_fp8(
    x: torch.Tensor[torch.float8_e4m3fn, 2],
    y: torch.Tensor[torch.float8_e4m3fn, 2],
    scale_x: torch.Tensor[torch.float32, 2],
    scale_y: torch.Tensor[torch.float32, 2],
) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    out = torch.empty([m, n], dtype=torch.bfloat16, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], y[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = (acc * scale_x[tile_m, :] * scale_y[:, tile_n]).to(
            torch.bfloat16
        )
    return out
