"""All-gather by direct stores: every rank's S elements land in every
rank's output at offset rank * S.

The output (world_size * S elements) is symmetric; the input is any tensor.
Each CTA takes one chunk of the input (block_sizes[0]) and, tile by tile
(block_sizes[1]), stores it into every peer's output (one store per peer,
the rank's own included). The first signal/wait round makes sure every peer
has entered this call (so its output is no longer in use by whatever came
before); the second, after the stores, tells every peer that this chunk of
its output has landed.

Compile:  dslc examples/all_gather.py -D my_rank=0 -D world_size=2 --emit=cubin -o ag.cubin
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

        hl.signal(pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys")
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                local_signal_pad, [chunk.id, world], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=False,
            )
