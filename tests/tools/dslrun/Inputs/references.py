"""DSL references for dslrun --reference / tuner --reference.

A reference takes every rank's inputs stacked on a leading [world_size, ...]
dimension and writes every rank's expected outputs stacked the same way
(docs/simulator.md, "User references"; docs/runtime.md, "Any kernel").
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
    """Every rank's result is the float32 sum of every rank's input."""
    out = torch.empty_like(a_shared)
    for tile_n in hl.tile(a_shared.size(1)):
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
    """Wrong on purpose (the GPU tests' negative case): one rank short."""
    out = torch.empty_like(a_shared)
    for tile_n in hl.tile(a_shared.size(1)):
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size - 1):
            acc += a_shared[r, tile_n]
        for r in range(world_size):
            out[r, tile_n] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def misnamed(
    x: torch.Tensor[torch.bfloat16, 2],
) -> torch.Tensor:
    """Its input is named like nothing of the checked kernel."""
    out = torch.empty_like(x)
    for tile_n in hl.tile(x.size(1)):
        out[0, tile_n] = x[0, tile_n]
    return out
