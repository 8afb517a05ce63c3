"""User references (dslc --simulate --reference FILE.py:NAME).

Each takes every rank's inputs stacked on a leading [world_size, ...]
dimension and writes every rank's expected outputs stacked the same way.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def all_reduce_ref(
    a_shared: torch.Tensor[torch.bfloat16, 2],
    world_size: hl.constexpr,
) -> torch.Tensor:
    """The all-reduce: every rank's row is the f32 sum of all rows."""
    out = torch.empty_like(a_shared)
    N = a_shared.size(1)
    for tile_n in hl.tile(N):
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size):
            acc += a_shared[r, tile_n]
        for r in range(world_size):
            out[r, tile_n] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def forgets_last_rank(
    a_shared: torch.Tensor[torch.bfloat16, 2],
    world_size: hl.constexpr,
) -> torch.Tensor:
    """Wrong on purpose: the sum leaves out the last rank."""
    out = torch.empty_like(a_shared)
    N = a_shared.size(1)
    for tile_n in hl.tile(N):
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size - 1):
            acc += a_shared[r, tile_n]
        for r in range(world_size):
            out[r, tile_n] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def wrong_name(
    x: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_n in hl.tile(x.size(1)):
        out[0, tile_n] = x[0, tile_n]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def communicates(
    a_shared: torch.Tensor[torch.bfloat16, 2],
    local_signal_pad: torch.Tensor[torch.int32, 2],
) -> torch.Tensor:
    out = torch.empty_like(a_shared)
    for tile_n in hl.tile(a_shared.size(1)):
        hl.signal(local_signal_pad, [tile_n.id, 0], signal=1)
        out[0, tile_n] = a_shared[0, tile_n]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def all_reduce_residual_ref(
    a_shared: torch.Tensor[torch.bfloat16, 2],
    residual: torch.Tensor[torch.bfloat16, 2],
    world_size: hl.constexpr,
) -> torch.Tensor:
    """all-reduce-residual.py: every rank's sum of a_shared plus its residual."""
    out = torch.empty_like(residual)
    N = a_shared.size(1)
    for tile_n in hl.tile(N):
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size):
            acc += a_shared[r, tile_n]
        for r in range(world_size):
            out[r, tile_n] = acc + residual[r, tile_n]
    return out
