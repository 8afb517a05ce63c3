"""Broken: the all-gather with a relaxed "done" signal (no release).

A peer that sees the flag may not see the shards stored before it.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[65536, 4096], num_warps=8))
def all_gather_kernel(
    signal_pad_addrs: torch.Tensor[torch.uint64, 1],
    local_signal_pad: torch.Tensor[torch.int32, 2],
    x: torch.Tensor[torch.bfloat16, 1],
    out: torch.Tensor[torch.bfloat16, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
):
    S = x.size(0)
    outputs = torch.ops.symm_mem.get_remote_tensors(out, "")
    pads = hl.stacktensor_like(local_signal_pad, signal_pad_addrs)
    for chunk in hl.tile(S):
        hl.signal(
            pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys",
            hasPreviousMemAccess=False,
        )
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(local_signal_pad, [chunk.id, world], signal=1, update=0, scope="sys")

        for tile_n in hl.tile(chunk.begin, chunk.end):
            v = x[tile_n]
            for o in outputs:
                o[my_rank * S + tile_n] = v

        # Broken: relaxed, so the flag does not publish the stores above.
        hl.signal(
            pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys",
            sem="relaxed",
        )
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                local_signal_pad, [chunk.id, world], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=False,
            )
