"""Byte layout of LL packets: rank 0 writes a tile of int32 5s with flag 7
into its own scratch, then copies the scratch (int64) into an output that
--dump-dir writes out (-D packet=16 or 8). LL16: {5, 7, 5, 7} = two int64 of 5 | 7 << 32;
LL8: {5, 7} = one int64 of 5 | 7 << 32."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=1))
def ll_layout_kernel(
    a: torch.Tensor[torch.int64, 1],
    scratch: torch.Tensor[torch.int64, 1],
    packet: hl.constexpr,
) -> torch.Tensor:
    out = torch.empty_like(a)
    N = a.size(0)
    for tile_n in hl.tile(N):
        five = hl.zeros([tile_n], dtype=torch.int32) + 5
        hl.ll_put(scratch, tile_n.id * 4, five, 7, packet=packet)
        got = hl.ll_get(scratch, tile_n.id * 4, 7, [tile_n], dtype=torch.int32, packet=packet)
        out[tile_n] = scratch[tile_n]
    return out
