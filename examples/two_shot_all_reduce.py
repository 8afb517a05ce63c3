"""Two-shot all-reduce: reduce-scatter, then all-gather by direct stores.

The input is cut into world_size shards of ceil(N / world_size) elements.
Rank r owns shard r, cut into chunks, one per CTA (the grid); a CTA walks
its chunk tile by tile: it reads the tile from every peer's input, sums it
in fp32, and stores the sum straight into the same place of every peer's
output (the all-gather half: one store per peer, no second read). Every
element crosses NVLink once each way, as in the one-shot at two ranks, but
each rank adds only 1/world_size of the elements and half the remote
traffic is fire-and-forget stores.

Two signal/wait rounds per chunk, on the same slot [chunk, rank] of every
peer's pad: the first says "my input is ready and my output is free" (every
peer has entered this launch), the second "my stores into your output have
landed and I am done reading your input" (the barrier before a signal orders
them). Synchronizing per chunk rather than per tile keeps the SM streaming:
with one barrier pair per tile, the barriers' round trips left a third of
the link time idle at 16M elements (120 us against 105 us, 2xH200). The last
shard and the last chunk may be short; their tails are masked, so any N
works.

Block sizes: [chunk, tile]. Both tensors are symmetric (allocated on every
rank at the same offset of a symmetric heap; get_remote_tensors gives the
peers' copies).

Compile:  dslc examples/two_shot_all_reduce.py -D my_rank=0 -D world_size=2 --emit=cubin -o ts.cubin
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[65536, 16384], num_warps=16))
def two_shot_all_reduce_kernel(
    signal_pad_addrs: torch.Tensor[torch.uint64, 1],
    local_signal_pad: torch.Tensor[torch.int32, 2],
    a_shared: torch.Tensor[torch.bfloat16, 1],
    out: torch.Tensor[torch.bfloat16, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
):
    N = a_shared.size(0)
    shard = (N + world_size - 1) // world_size
    inputs = torch.ops.symm_mem.get_remote_tensors(a_shared, "")
    outputs = torch.ops.symm_mem.get_remote_tensors(out, "")
    pads = hl.stacktensor_like(local_signal_pad, signal_pad_addrs)
    for chunk in hl.tile(shard):
        # Every peer has entered this call: its input is ready and its
        # output free.
        hl.signal(
            pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys",
            hasPreviousMemAccess=False,
        )
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(local_signal_pad, [chunk.id, world], signal=1, update=0, scope="sys")

        for tile_n in hl.tile(chunk.begin, chunk.end):
            mine = my_rank * shard + tile_n
            acc = hl.zeros([tile_n], dtype=torch.float32)
            for a in inputs:
                acc += a[mine]
            result = acc.to(a_shared.dtype)
            for o in outputs:
                o[mine] = result

        # My stores of this chunk have landed in every peer's output (the
        # barrier before the flag orders them), and I am done reading.
        hl.signal(pads, [chunk.id, my_rank], signal=1, wait_for=0, scope="sys")
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                local_signal_pad, [chunk.id, world], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=False,
            )
