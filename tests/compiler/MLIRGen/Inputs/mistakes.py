from __future__ import annotations

import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def unknown_name(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * scale
    return out


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def bad_scope(pad: torch.Tensor[torch.int32, 2], x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        hl.signal(pad, [t.id, 0], signal=1, scope="cluster")


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def wrong_arity(pad: torch.Tensor[torch.int32, 2], x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        hl.wait(pad, [t.id, 0], 1, 0)
        hl.signal(pad, [t.id])


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def type_mismatch(pad: torch.Tensor[torch.float32, 2], x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        hl.wait(pad, [t.id, 0], signal=1)
        y = x[t] + "two"


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def needs_value(x: torch.Tensor[torch.float32, 1], k: hl.constexpr):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        for i in range(k):
            out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def untyped(x: torch.Tensor):
    for t in hl.tile(x.size(0)):
        pass
