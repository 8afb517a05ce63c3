"""Kernels whose parameters take every role (docs/kernel-abi.md, "Roles"),
and kernels that give one tensor two roles."""

from __future__ import annotations

import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def by_access(
    x: torch.Tensor[torch.float32, 1],
    stage: torch.Tensor[torch.float32, 1],
    res: torch.Tensor[torch.float32, 1],
    shape_only: torch.Tensor[torch.float32, 1],
    n: int,
    alpha: float,
):
    for t in hl.tile(shape_only.size(0)):
        stage[t] = x[t]
        res[t] = stage[t]


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def pad_as_scratch(
    pad: torch.Tensor[torch.int32, 2],
    x: torch.Tensor[torch.bfloat16, 1],
):
    for t in hl.tile(x.size(0)):
        hl.wait(pad, [t.id, 0], signal=1)
        y = hl.ll_get(pad, 0, 1, [t], dtype=torch.bfloat16)
        x[t] = y


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def returned_pad(x: torch.Tensor[torch.int32, 2]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        hl.signal(out, [t.id, 0], signal=1)
    return out
