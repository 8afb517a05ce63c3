"""Helion's reduction_loops: whole rows of D columns computed R columns at a
time (compiler/Conversion/RollReductions.cpp). A row softmax has three
sinks -- the row max, the sum of exponentials, the store -- each a loop
over the chunks that recomputes what it needs; its reference holds whole
rows. `clobbered` writes the tensor it loaded before the store that needs
the load: it cannot be rolled and stays whole, with a warning.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(
    config=helion.Config(block_sizes=[4], num_warps=4, reduction_loops=[64])
)
def softmax_rows(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    T, D = x.size()
    D = hl.specialize(D)
    out = torch.empty_like(x)
    for rows in hl.tile(T):
        v = x[rows, :]
        m = torch.amax(v, dim=-1, keepdim=True)
        e = torch.exp(v - m)
        s = torch.sum(e, dim=-1, keepdim=True)
        out[rows, :] = e / s
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def softmax_rows_ref(x: torch.Tensor[torch.float32, 3]) -> torch.Tensor:
    """Every rank's softmax_rows (x stacked on [world, T, D]), whole rows."""
    W, T, D = x.size()
    D = hl.specialize(D)
    out = torch.empty_like(x)
    for w, rows in hl.tile([W, T]):
        v = x[w, rows, :].to(torch.float64)
        m = torch.amax(v, dim=-1, keepdim=True)
        e = torch.exp(v - m)
        s = torch.sum(e, dim=-1, keepdim=True)
        out[w, rows, :] = (e / s).to(torch.float32)
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[4], num_warps=4, reduction_loops=[64])
)
def clobbered(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    T, D = x.size()
    D = hl.specialize(D)
    out = torch.empty_like(x)
    for rows in hl.tile(T):
        v = x[rows, :]
        x[rows, :] = v * 2.0
        out[rows, :] = v / torch.sum(v, dim=-1, keepdim=True)
    return out
