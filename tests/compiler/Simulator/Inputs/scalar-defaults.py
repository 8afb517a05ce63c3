"""Run-time scalars with defaults in the source (issue 25): a caller that
leaves them out binds the default; the references use the literal values,
so a simulator that bound anything else would fail them."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def scale_shift(
    x: torch.Tensor[torch.float32, 1],
    alpha: float = 0.5,
    shift: int = 3,
) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * alpha + shift
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def defaults_ref(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    """alpha = 0.5, shift = 3: the source's defaults."""
    out = torch.empty_like(x)
    for t in hl.tile(x.size(1)):
        for r in range(x.size(0)):
            out[r, t] = x[r, t] * 0.5 + 3
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def given_ref(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    """alpha = 1e-5, shift = -2: given with --scalar."""
    out = torch.empty_like(x)
    for t in hl.tile(x.size(1)):
        for r in range(x.size(0)):
            out[r, t] = x[r, t] * 1e-5 - 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def no_default(x: torch.Tensor[torch.float32, 1], alpha: float) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * alpha
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def bad_default(
    x: torch.Tensor[torch.float32, 1], n: int = 2.5
) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * n
    return out
