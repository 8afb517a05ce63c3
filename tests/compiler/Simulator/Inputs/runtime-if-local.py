"""A run-time if with no communication (world size 1, so the device machine
runs it with dslrun): a row mean (a reduction) in one branch, a scale in
the elif, the loaded tile on the third path; its reference computes every
path and selects with torch.where.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[4, 256], num_warps=4))
def branchy(x: torch.Tensor[torch.bfloat16, 2], n: int):
    out = torch.empty_like(x)
    T, H = x.size()
    for t, h in hl.tile([T, H]):
        v = x[t, h].to(torch.float32)
        if t.id < n:
            v = v - torch.mean(v, dim=1, keepdim=True)
        elif h.begin >= H // 2:
            v = v * 2.0
        out[t, h] = v.to(x.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4, 256], num_warps=4))
def branchy_ref(x: torch.Tensor[torch.bfloat16, 3], n: int):
    """Every rank's `branchy` (x stacked on [world, T, H])."""
    out = torch.empty_like(x)
    W, T, H = x.size()
    for t, h in hl.tile([T, H]):
        for r in range(W):
            v = x[r, t, h].to(torch.float32)
            centered = v - torch.mean(v, dim=1, keepdim=True)
            first = (t.index // 4) < n
            right = (h.index // 256) * 256 >= H // 2
            v = torch.where(first[:, None], centered,
                            torch.where(right[None, :], v * 2.0, v))
            out[r, t, h] = v.to(x.dtype)
    return out
