"""One-shot all-reduce written with a multicast (stack) tensor store.

Every rank has a symmetric staging buffer of [world_size, N] elements. Each
CTA stores its tile of the input into row my_rank of every peer's staging
buffer with one store into the stack tensor (`--multicast=software`: one
store per peer; `--multicast=nvls`: one `multimem.st` through the NVLink
multicast address, compiled and checked by ptxas only, never run here),
then waits until every peer's tile has landed and sums the world_size rows
locally. Remote traffic is stores only.

The first signal/wait round keeps a rank from writing into a peer that has
not yet entered this call (and may still read the previous call's rows);
the second says "my row of this tile has landed in your buffer".

Compile:  dslc examples/multicast_one_shot_all_reduce.py -D my_rank=0 -D world_size=2 --emit=cubin -o mc1.cubin
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[4096], num_warps=16))
def multicast_one_shot_all_reduce_kernel(
    a: torch.Tensor[torch.bfloat16, 1],
    staging: torch.Tensor[torch.bfloat16, 2],
    staging_ptrs: torch.Tensor[torch.uint64, 1],
    signal_pad: torch.Tensor[torch.int32, 2],
    signal_pad_ptrs: torch.Tensor[torch.uint64, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
) -> torch.Tensor:
    out = torch.empty_like(a)
    N = a.size(0)
    everyone = hl.multicast_like(staging, staging_ptrs)
    pads = hl.stacktensor_like(signal_pad, signal_pad_ptrs)
    for tile_n in hl.tile(N):
        hl.signal(
            pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys",
            hasPreviousMemAccess=False,
        )
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(signal_pad, [tile_n.id, world], signal=1, update=0, scope="sys")

        everyone[my_rank, tile_n] = a[tile_n]

        hl.signal(pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys")
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(signal_pad, [tile_n.id, world], signal=1, update=0, scope="sys")

        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size):
            acc += staging[r, tile_n]
        out[tile_n] = acc
    return out
