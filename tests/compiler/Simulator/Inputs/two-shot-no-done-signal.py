"""Two-shot all-reduce without its second ("done") signal: deadlock."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[4096], num_warps=16))
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
    for tile_n in hl.tile(shard):
        hl.signal(
            pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys",
            hasPreviousMemAccess=False,
        )
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(local_signal_pad, [tile_n.id, world], signal=1, update=0, scope="sys")

        mine = my_rank * shard + tile_n
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for a in inputs:
            acc += a[mine]
        result = acc.to(a_shared.dtype)
        for o in outputs:
            o[mine] = result

        # Broken: no "done" signal; the wait below never completes.
        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                local_signal_pad, [tile_n.id, world], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=False,
            )
