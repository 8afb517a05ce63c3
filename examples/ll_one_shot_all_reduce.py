"""One-shot all-reduce over LL packets, for the smallest sizes.

Each rank pushes its tile of the input into every peer's packet scratch as
LL16 packets (8 data bytes and two copies of the flag in one 16-byte store),
then sums what arrives in its own scratch by polling the flags: one one-way
trip, no barrier, no flag reset. The flag is this CTA's launch counter
(`hl.epoch()`), kept in device memory and advanced by the kernel, so
repeated calls and CUDA-graph replays need no host reset; the scratch is
double-buffered by the flag's parity so a fast rank's next call cannot
overwrite packets a slow peer still reads.

Scratch: a symmetric int64 tensor of world_size * ceil(N / 1024) * 1024 *
element_size / 2 elements (two parities x one region per sender x whole
1024-element tiles x 16-byte packets per 8 data bytes, in 8-byte elements). A packet outside the
scratch traps with an error record instead of writing past it.

Compile:  dslc examples/ll_one_shot_all_reduce.py -D my_rank=0 -D world_size=2 --emit=cubin -o ll.cubin
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def ll_one_shot_all_reduce_kernel(
    a: torch.Tensor[torch.bfloat16, 1],
    scratch: torch.Tensor[torch.int64, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
) -> torch.Tensor:
    out = torch.empty_like(a)
    N = a.size(0)
    peers = torch.ops.symm_mem.get_remote_tensors(scratch, "")
    for tile_n in hl.tile(N):
        flag = hl.epoch()
        # 16-byte packets carry 8 data bytes.
        packets = tile_n.block_size * a.element_size() // 8
        tiles = (N + tile_n.block_size - 1) // tile_n.block_size
        parity = flag % 2
        x = a[tile_n]
        for peer in peers:
            slot = ((parity * world_size + my_rank) * tiles + tile_n.id) * packets
            hl.ll_put(peer, slot, x, flag)
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size):
            slot = ((parity * world_size + r) * tiles + tile_n.id) * packets
            acc += hl.ll_get(scratch, slot, flag, [tile_n], dtype=a.dtype)
        out[tile_n] = acc
    return out
