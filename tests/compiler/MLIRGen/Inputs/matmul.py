"""Matrix multiplications of 2-d tiles: each spelling, and each mistake."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[8, 64, 32], num_warps=8))
def addmm_kernel(
    a: torch.Tensor[torch.bfloat16, 2],
    b: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    M, K = a.size()
    K2, N = b.size()
    out = torch.empty([M, N], dtype=a.dtype, device=a.device)
    for tile_m, tile_n in hl.tile([M, N]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(K):
            acc = torch.addmm(acc, a[tile_m, tile_k], b[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(a.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[8, 64, 16], num_warps=4))
def dot_kernel(
    a: torch.Tensor[torch.float8_e4m3fn, 2],
    b: torch.Tensor[torch.float8_e4m3fn, 2],
    scale_a: torch.Tensor[torch.float32, 2],
    scale_b: torch.Tensor[torch.float32, 2],
) -> torch.Tensor:
    M, K = a.size()
    K2, N = b.size()
    out = torch.empty([M, N], dtype=torch.bfloat16, device=a.device)
    for tile_m, tile_n in hl.tile([M, N]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(K):
            acc = hl.dot(a[tile_m, tile_k], b[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = (acc * scale_a[tile_m, :] * scale_b[:, tile_n]).to(
            torch.bfloat16
        )
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 32, 16], num_warps=4))
def spellings(
    a: torch.Tensor[torch.float16, 2],
    b: torch.Tensor[torch.float16, 2],
    bias: torch.Tensor[torch.float32, 1],
) -> torch.Tensor:
    M, K = a.size()
    K2, N = b.size()
    out = torch.empty([M, N], dtype=torch.float32, device=a.device)
    for tile_m, tile_n in hl.tile([M, N]):
        for tile_k in hl.tile(K):
            x = a[tile_m, tile_k]
            y = b[tile_k, tile_n]
            p = torch.mm(x, y)
            q = torch.matmul(x, y)
            r = x @ y
            d = hl.dot(x, y)
            h = hl.dot(x, y, out_dtype=torch.float16)
            s = torch.addmm(bias[tile_n], x, y, beta=0.5, alpha=2.0)
            out[tile_m, tile_n] = p.float() + q.float() + r.float() + d + h.float() + s
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 32, 16], num_warps=4))
def mistakes(
    a: torch.Tensor[torch.float16, 2],
    b: torch.Tensor[torch.float16, 2],
    c: torch.Tensor[torch.float32, 2],
    v: torch.Tensor[torch.float16, 1],
    i: torch.Tensor[torch.int8, 2],
) -> torch.Tensor:
    M, K = a.size()
    K2, N = b.size()
    out = torch.empty([M, N], dtype=torch.float32, device=a.device)
    for tile_m, tile_n in hl.tile([M, N]):
        for tile_k in hl.tile(K):
            x = a[tile_m, tile_k]
            y = b[tile_k, tile_n]
            e1 = y @ x
            e2 = hl.dot(x, c[tile_k, tile_n])
            e3 = torch.mm(v[tile_k], y)
            e4 = torch.bmm(x, y)
            e5 = torch.addmm(c[tile_m, tile_m], x, y)
            e6 = torch.addmm(c[tile_m, tile_n], x, y, beta=tile_m.begin)
            e7 = hl.dot(i[tile_m, tile_k], i[tile_k, tile_n])
            e8 = hl.dot(x, y, out_dtype=torch.int32)
            e9 = hl.dot_scaled(x, y)
            out[tile_m, tile_n] = c[tile_m, tile_n]
    return out
