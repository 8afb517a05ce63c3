"""Broken all-gather: signals but never waits, so a rank's kernel can finish
before its peers have stored their rows into its `gathered`."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[4096], num_warps=16))
def all_gather_kernel(
    x: torch.Tensor[torch.bfloat16, 1],
    gathered: torch.Tensor[torch.bfloat16, 2],
    gathered_ptrs: torch.Tensor[torch.uint64, 1],
    signal_pad: torch.Tensor[torch.int32, 2],
    signal_pad_ptrs: torch.Tensor[torch.uint64, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
):
    N = x.size(0)
    everyone = hl.multicast_like(gathered, gathered_ptrs)
    pads = hl.stacktensor_like(signal_pad, signal_pad_ptrs)
    for tile_n in hl.tile(N):
        everyone[my_rank, tile_n] = x[tile_n]
        # The barrier before the flag (hasPreviousMemAccess) orders every
        # thread's stores before the release.
        hl.signal(pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys")
