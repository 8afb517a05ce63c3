"""All-gather with a multicast (stack) tensor store.

Every rank owns a shard `x` of N elements and a symmetric buffer `gathered`
of [world_size, N] elements. Each CTA stores its tile of `x` into row
`my_rank` of every peer's `gathered` with one store into the stack tensor
(`--multicast=software`: a store per peer; `--multicast=nvls`: one
`multimem.st` through an NVLink multicast address, compiled and checked by
ptxas only), then tells every peer that the tile has landed and waits for
every peer's tile of the same index. A first signal/wait round keeps a rank
from writing into a peer that has not yet entered the same launch (and may
still use the previous result). After the kernel, `gathered` holds every
rank's shard on every rank.

Compile:  dslc examples/all_gather_multicast.py -D my_rank=0 -D world_size=2 --emit=cubin -o ag.cubin
"""

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
        # Round 1: every peer has entered this launch, so its previous use of
        # `gathered` is over and its row may be overwritten.
        hl.signal(
            pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys",
            hasPreviousMemAccess=False,
        )
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(signal_pad, [tile_n.id, world], signal=1, update=0, scope="sys")
        everyone[my_rank, tile_n] = x[tile_n]
        # Round 2: the barrier before the flag (hasPreviousMemAccess) orders
        # every thread's stores before the release; once every peer has
        # signalled, every row of this tile has landed here.
        hl.signal(pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys")
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                signal_pad, [tile_n.id, world], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=False,
            )
