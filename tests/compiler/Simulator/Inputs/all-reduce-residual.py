"""The one-shot all-reduce fused with a residual add: out = sum + residual.

Not a plain collective (it reads 'residual' too), so `--reference auto`
checks nothing but the written outputs; references.py's
all_reduce_residual_ref checks it.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(
    config=helion.Config(
        block_sizes=[8192],
        num_warps=32,
    ),
    static_shapes=True,
)
def all_reduce_residual_kernel(
    signal_pad_addrs: torch.Tensor[torch.uint64, 1],
    local_signal_pad: torch.Tensor[torch.int32, 2],
    a_shared: torch.Tensor[torch.bfloat16, 1],
    residual: torch.Tensor[torch.bfloat16, 1],
    my_rank: hl.constexpr,
    group_name: hl.constexpr,
) -> torch.Tensor:
    _, world_size = local_signal_pad.size()
    world_size = hl.specialize(world_size)
    out = torch.empty_like(a_shared)
    N = out.size(0)
    a_shared_tuple = torch.ops.symm_mem.get_remote_tensors(a_shared, group_name)

    for tile_n in hl.tile(N):
        # Sync all devices through signal_pad to make sure
        # all previous writes to the shared tensor are visible
        ptr_tile = signal_pad_addrs[:]
        stack_signalpad = hl.stacktensor_like(local_signal_pad, ptr_tile)
        hl.signal(
            stack_signalpad,
            [tile_n.id, my_rank],
            signal=1,
            wait_for=0,
            scope="sys",
            hasPreviousMemAccess=False,
        )

        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                local_signal_pad,
                [tile_n.id, world],
                signal=1,
                update=0,
                scope="sys",
            )

        acc = hl.zeros([tile_n], dtype=a_shared.dtype, device=local_signal_pad.device)

        for a in a_shared_tuple:
            acc += a[tile_n]

        out[tile_n] = acc + residual[tile_n]

        # Sync all devices through signal_pad to make sure our writes to shared
        # tensor are visible to subsequent kernels.
        hl.signal(
            stack_signalpad, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys"
        )

        for world in hl.tile(world_size, block_size=world_size):
            hl.wait(
                local_signal_pad,
                [tile_n.id, world],
                signal=1,
                update=0,
                scope="sys",
                hasSubsequentMemAccess=False,
            )
    return out
