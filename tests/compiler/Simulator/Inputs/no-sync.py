"""Broken: no synchronization at all.

Every rank copies its input into its symmetric staging buffer and, in the
same pass, sums every peer's staging buffer: nothing orders a peer's store
before this rank's load (or this rank's load before the peer's next
store). On the GPU the sum reads whatever the staging buffers hold.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def no_sync_all_reduce_kernel(
    a: torch.Tensor[torch.bfloat16, 1],
    staging: torch.Tensor[torch.bfloat16, 1],
    world_size: hl.constexpr,
) -> torch.Tensor:
    out = torch.empty_like(a)
    N = a.size(0)
    peers = torch.ops.symm_mem.get_remote_tensors(staging, "")
    for tile_n in hl.tile(N):
        staging[tile_n] = a[tile_n]
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for peer in peers:
            acc += peer[tile_n]
        out[tile_n] = acc
    return out
