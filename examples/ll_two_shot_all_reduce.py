"""Fused LL-packet all-reduce: scatter, reduce, broadcast in one kernel.

The idea of ARK's / MSCCL++'s `allreducePacket`, with no barrier at all:
every transfer is an LL packet whose flag travels in the same 16-byte store
as its data, so a receiver knows the data has arrived when it sees the flag.

The input is cut into world_size shards of ceil(N / world_size) elements;
rank r reduces shard r. For one tile of the shard, a CTA
  1. scatters: sends the tile of shard s of its input to peer s (packets
     into region "in" of s's scratch, at its own rank's slot);
  2. reduces: polls the world_size packet tiles of shard my_rank that
     arrived in its "in" region and sums them in fp32;
  3. broadcasts: sends the reduced tile to every peer (region "out");
  4. gathers: polls the world_size reduced tiles in its own "out" region and
     stores them into the output.

The flag is this CTA's launch counter (`hl.epoch()`), kept in device memory
and advanced by the kernel: repeated calls and CUDA-graph replays need no
host reset (ARK hardcodes Flag = 1). The scratch is double-buffered by the
flag's parity, so a fast rank's next call cannot overwrite packets that a
slow peer still polls. The grid is a grid-stride loop over tiles: it works
with any number of CTAs, fewer than peers included (the "compact regime"
ARK left out), because no CTA is tied to a peer.

Scratch (symmetric, int64, zeroed once): 2 parities x 2 regions x
world_size senders x ceil(shard / block) tiles x block * element_size / 8
packets of 16 bytes; at most 8 * world_size * roundup(N, block) *
element_size bytes.

Compile:  dslc examples/ll_two_shot_all_reduce.py -D my_rank=0 -D world_size=2 --emit=cubin -o ll2.cubin
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def ll_two_shot_all_reduce_kernel(
    a: torch.Tensor[torch.bfloat16, 1],
    scratch: torch.Tensor[torch.int64, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
) -> torch.Tensor:
    out = torch.empty_like(a)
    N = a.size(0)
    shard = (N + world_size - 1) // world_size
    peers = torch.ops.symm_mem.get_remote_tensors(scratch, "")
    for tile_n in hl.tile(shard):
        flag = hl.epoch()
        parity = flag % 2
        # 16-byte packets carry 8 data bytes.
        packets = tile_n.block_size * a.element_size() // 8
        tiles = (shard + tile_n.block_size - 1) // tile_n.block_size
        region_in = parity * 2
        region_out = parity * 2 + 1

        # 1. Scatter: the tile of shard s goes to peer s.
        for s in range(world_size):
            slot = ((region_in * world_size + my_rank) * tiles + tile_n.id) * packets
            hl.ll_put(peers[s], slot, a[s * shard + tile_n], flag)

        # 2. Reduce this rank's shard.
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size):
            slot = ((region_in * world_size + r) * tiles + tile_n.id) * packets
            acc += hl.ll_get(scratch, slot, flag, [tile_n], dtype=a.dtype)

        # 3. Broadcast the reduced tile.
        result = acc.to(a.dtype)
        for s in range(world_size):
            slot = ((region_out * world_size + my_rank) * tiles + tile_n.id) * packets
            hl.ll_put(peers[s], slot, result, flag)

        # 4. Gather every shard's reduced tile.
        for r in range(world_size):
            slot = ((region_out * world_size + r) * tiles + tile_n.id) * packets
            out[r * shard + tile_n] = hl.ll_get(scratch, slot, flag, [tile_n], dtype=a.dtype)
    return out
