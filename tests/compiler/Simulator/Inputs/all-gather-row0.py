"""Broken all-gather: every rank stores its shard into row 0 of every peer's
`gathered` instead of row my_rank (rows 1.. are never written, row 0 holds
whichever rank stored last)."""

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
        everyone[0, tile_n] = x[tile_n]  # broken: row 0, not my_rank
        # The barrier before the flag (hasPreviousMemAccess) orders every
        # thread's stores before the release.
        hl.signal(pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys")
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(signal_pad, [tile_n.id, world], signal=1, update=0, scope="sys")
