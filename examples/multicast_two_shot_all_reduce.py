"""Two-shot all-reduce written with multicast (stack) tensors.

The same algorithm as two_shot_all_reduce.py (one CTA per chunk of the
shard, walked tile by tile, one signal/wait pair per chunk), with both
halves expressed
on stack tensors: the reduce-scatter half is one load-reduce over the
peers' inputs (`inputs[:, idx].sum(0)`), the all-gather half one store into
every peer's output (`outputs[idx] = result`). With `--multicast=software`
these are a load and a store per peer; with `--multicast=nvls` they become
`multimem.ld_reduce.add` and `multimem.st` on NVLink multicast addresses
(the table then holds world_size + 1 entries; compiled and checked by
ptxas only, never run on the shared machines).

Compile:  dslc examples/multicast_two_shot_all_reduce.py -D my_rank=0 -D world_size=2 --emit=cubin -o mc2.cubin
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[65536, 16384], num_warps=16))
def multicast_two_shot_all_reduce_kernel(
    a: torch.Tensor[torch.bfloat16, 1],
    a_ptrs: torch.Tensor[torch.uint64, 1],
    out: torch.Tensor[torch.bfloat16, 1],
    out_ptrs: torch.Tensor[torch.uint64, 1],
    signal_pad: torch.Tensor[torch.int32, 2],
    signal_pad_ptrs: torch.Tensor[torch.uint64, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
):
    N = a.size(0)
    shard = (N + world_size - 1) // world_size
    inputs = hl.multicast_like(a, a_ptrs)
    outputs = hl.multicast_like(out, out_ptrs)
    pads = hl.stacktensor_like(signal_pad, signal_pad_ptrs)
    for chunk in hl.tile(shard):
        hl.signal(
            pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys",
            hasPreviousMemAccess=False,
        )
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(signal_pad, [chunk.id, world], signal=1, update=0, scope="sys")

        for tile_n in hl.tile(chunk.begin, chunk.end):
            mine = my_rank * shard + tile_n
            outputs[mine] = inputs[:, mine].sum(0)

        hl.signal(pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys")
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                signal_pad, [chunk.id, world], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=False,
            )
