"""Reduce-scatter: rank r gets the sum over ranks of slice r of the input.

The input holds world_size * S elements on every rank (symmetric); the
output holds S. Each CTA takes one chunk of the output (block_sizes[0]) and
walks it tile by tile (block_sizes[1]): it reads the matching tile of slice
my_rank from every peer, sums in fp32 and stores it. A signal/wait round
before the chunk makes sure every peer's input is ready; one after it keeps
a peer from overwriting its input (in its next call) while this rank still
reads it. One round per chunk, not per tile, keeps the SM streaming.

Compile:  dslc examples/reduce_scatter.py -D my_rank=0 -D world_size=2 --emit=cubin -o rs.cubin
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[65536, 4096], num_warps=8))
def reduce_scatter_kernel(
    signal_pad_addrs: torch.Tensor[torch.uint64, 1],
    local_signal_pad: torch.Tensor[torch.int32, 2],
    a_shared: torch.Tensor[torch.bfloat16, 1],
    out: torch.Tensor[torch.bfloat16, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
):
    S = out.size(0)
    inputs = torch.ops.symm_mem.get_remote_tensors(a_shared, "")
    pads = hl.stacktensor_like(local_signal_pad, signal_pad_addrs)
    for chunk in hl.tile(S):
        hl.signal(
            pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys",
            hasPreviousMemAccess=False,
        )
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(local_signal_pad, [chunk.id, world], signal=1, update=0, scope="sys")

        for tile_n in hl.tile(chunk.begin, chunk.end):
            acc = hl.zeros([tile_n], dtype=torch.float32)
            for a in inputs:
                acc += a[my_rank * S + tile_n]
            out[tile_n] = acc

        hl.signal(pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys")
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                local_signal_pad, [chunk.id, world], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=False,
            )
