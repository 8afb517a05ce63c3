# The one-shot all-reduce kernel of Helion's examples/distributed/all_reduce.py
# as written there (pytorch/helion at commit ef091f4, BSD-3-Clause), with
# its imports; the host code around it is left out. dslc compiles it with
# --signature and --world-size/--rank only (helion_symm_mem_sync.test).
from __future__ import annotations

import os

import torch
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem
from torch.utils.cpp_extension import load_inline

import helion
from helion._testing import DEVICE
from helion._testing import run_example
import helion.language as hl
from helion.runtime.triton.dist_utils import symm_mem_sync


@helion.kernel(
    config=helion.Config(
        block_sizes=[8192],
        num_warps=32,
    ),
    static_shapes=True,
)
def one_shot_all_reduce_kernel(
    signal_pad_ptrs_dev: torch.Tensor,
    a_shared: torch.Tensor,
    my_rank: hl.constexpr,
    group_name: hl.constexpr,
    world_size: hl.constexpr,
) -> torch.Tensor:
    """
    Helion JIT-compiled kernel for one-shot all-reduce operation.

    This kernel implements a distributed all-reduce using symmetric memory and signal pads
    for cross-device synchronization. It performs element-wise summation across all devices
    in the distributed group using tiled computation for memory efficiency.

    Args:
        signal_pad_addrs: Tensor containing addresses of signal pads for all devices
        local_signal_pad: Local signal pad for synchronization
        a_shared_tuple: Tuple of shared tensors from all devices in the group
        my_rank: Current device's rank in the distributed group

    Returns:
        Tensor containing the all-reduced result (sum across all devices)
    """
    out = torch.empty_like(a_shared)
    N = out.size(0)
    a_shared_tuple = torch.ops.symm_mem.get_remote_tensors(a_shared, group_name)

    for tile_n in hl.tile(N):
        # Sync all devices through signal_pad to make sure
        # all previous writes to the shared tensor are visible
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs_dev, None, my_rank, world_size, False, True),
            output_like=None,
        )

        acc = hl.zeros([tile_n], dtype=a_shared.dtype, device=a_shared.device)

        for a in a_shared_tuple:
            acc += a[tile_n]

        out[tile_n] = acc

        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs_dev, None, my_rank, world_size, True, False),
            output_like=None,
        )

    return out
