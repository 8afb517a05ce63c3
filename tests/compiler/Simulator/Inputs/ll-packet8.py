"""The LL all-reduce example with LL8 packets (4 data bytes and the flag in
one 8-byte store)."""

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
        # 8-byte packets carry 4 data bytes: a tile of B bf16 is B / 2 packets.
        packets = tile_n.block_size // 2
        tiles = (N + tile_n.block_size - 1) // tile_n.block_size
        parity = flag % 2
        x = a[tile_n]
        for peer in peers:
            slot = ((parity * world_size + my_rank) * tiles + tile_n.id) * packets
            hl.ll_put(peer, slot, x, flag, packet=8)
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size):
            slot = ((parity * world_size + r) * tiles + tile_n.id) * packets
            acc += hl.ll_get(scratch, slot, flag, [tile_n], dtype=torch.bfloat16, packet=8)
        out[tile_n] = acc
    return out
