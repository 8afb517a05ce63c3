"""Tensors indexed by one tile (issue 25): gate[tm, tn] runs over x's
sizes, so gate must have them; a call where it does not is refused, in the
simulator and at launch (metadata same_sizes), instead of reading masked
tails without a word."""

import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[2, 512], num_warps=4))
def silu_gate(
    x: torch.Tensor[torch.float32, 2],
    gate: torch.Tensor[torch.float32, 2],
) -> torch.Tensor:
    out = torch.empty_like(x)
    for tm, tn in hl.tile([x.size(0), x.size(1)]):
        g = gate[tm, tn]
        out[tm, tn] = x[tm, tn] * (g * torch.sigmoid(g))
    return out


@helion.kernel(config=helion.Config(block_sizes=[2, 512], num_warps=4))
def silu_gate_prefix(
    x: torch.Tensor[torch.float32, 2],
    gate: torch.Tensor[torch.float32, 2],
) -> torch.Tensor:
    """The kernel says otherwise: gate may be wider than x (its first
    x.size(1) columns are used), and has x's rows."""
    assert gate.size(1) >= x.size(1)
    assert x.size(0) == gate.size(0)
    out = torch.empty_like(x)
    for tm, tn in hl.tile([x.size(0), x.size(1)]):
        g = gate[tm, tn]
        out[tm, tn] = x[tm, tn] * (g * torch.sigmoid(g))
    return out
