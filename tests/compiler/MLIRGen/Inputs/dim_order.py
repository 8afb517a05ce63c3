"""Tensors seen through a permutation of their dimensions: arguments given
with --dim-order (stored row-major, seen transposed) and x.T of a
tensor."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[64, 128, 64], num_warps=4))
def matmul_kn(
    x: torch.Tensor[torch.bfloat16, 2],
    y: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    m, k = x.size()
    k2, n = y.size()
    assert k == k2
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], y[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64, 128, 64], num_warps=4))
def linear_t(
    x: torch.Tensor[torch.bfloat16, 2],
    w: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    wt = w.T
    m, k = x.size()
    k2, n = wt.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], wt[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = acc.to(x.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 16, 32], num_warps=4))
def batched(x: torch.Tensor[torch.float32, 3]) -> torch.Tensor:
    b, m, n = x.shape
    out = torch.empty([b, m, n], dtype=x.dtype, device=x.device)
    for tb, tm, tn in hl.tile([b, m, n]):
        out[tb, tm, tn] = x[tb, tm, tn] * 2.0
    return out


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def row_of(y: torch.Tensor[torch.float32, 2], r: int) -> torch.Tensor:
    n = y.size(1)
    assert y.numel() == 32 * n  # a compile-time check under --shape
    out = torch.empty([n], dtype=y.dtype, device=y.device)
    for tn in hl.tile(n):
        out[tn] = y[r, tn]
    return out


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def store_into(y: torch.Tensor[torch.float32, 2]) -> None:
    for tn in hl.tile(y.size(1)):
        y[0, tn] = y[0, tn] + 1.0


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def extra_index(y: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    n = y.size(1)
    out = torch.empty([n], dtype=y.dtype, device=y.device)
    for tn in hl.tile(n):
        out[tn] = y[0, tn, None].sum(-1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def transpose_vector(v: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    vt = v.mT
    out = torch.empty_like(v)
    for tn in hl.tile(v.size(0)):
        out[tn] = vt[tn]
    return out
