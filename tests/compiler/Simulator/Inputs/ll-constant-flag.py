"""LL all-reduce with a constant flag (a bug): the second launch finds the
first launch's packets already flagged and sums stale data."""

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
        flag = 1  # BUG: the same flag every launch
        # 16-byte packets carry 8 data bytes: a tile of B bf16 is B / 4 packets.
        packets = tile_n.block_size // 4
        tiles = (N + tile_n.block_size - 1) // tile_n.block_size
        parity = flag % 2
        x = a[tile_n]
        for peer in peers:
            slot = ((parity * world_size + my_rank) * tiles + tile_n.id) * packets
            hl.ll_put(peer, slot, x, flag)
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for r in range(world_size):
            slot = ((parity * world_size + r) * tiles + tile_n.id) * packets
            acc += hl.ll_get(scratch, slot, flag, [tile_n], dtype=torch.bfloat16)
        out[tile_n] = acc
    return out
