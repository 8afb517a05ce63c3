"""Helion's matmul + reduce-scatter (examples/distributed/
matmul_reduce_scatter.py) without the matmul: every rank stores its tile
of `a` into its symmetric buffer, the CTAs of all ranks meet, and the
ranks whose scatter rows hold the tile (a run-time `if` on tile_m.begin)
sum it over the peers into their output at tile_m.index - scatter_start.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


def pad_barrier(pad_addrs, pad, slot, rank, world, before, after):
    """CTA `slot` of every rank meets the others' (Helion's symm_mem_sync)."""
    pads = hl.stacktensor_like(pad, pad_addrs)
    hl.signal(pads, [slot, rank], signal=1, wait_for=0, scope="sys",
              hasPreviousMemAccess=before)
    for peer in hl.tile(world, block_size=world):
        hl.wait(pad, [slot, peer], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=after)


@helion.kernel(config=helion.Config(block_sizes=[4, 64], num_warps=4))
def reduce_scatter_if(
    a: torch.Tensor[torch.bfloat16, 2],
    symm_mem_buffer: torch.Tensor[torch.bfloat16, 2],
    signal_pad_ptrs: torch.Tensor[torch.uint64, 1],
    pad: torch.Tensor[torch.int32, 2],
    RANK: hl.constexpr,
    WORLD_SIZE: hl.constexpr,
) -> torch.Tensor:
    M, N = a.size()
    M_scatter = M // WORLD_SIZE
    output = torch.empty([M_scatter, N], dtype=a.dtype, device=a.device)
    buffer_tuple = torch.ops.symm_mem.get_remote_tensors(symm_mem_buffer, "")
    scatter_start = RANK * M_scatter
    scatter_end = scatter_start + M_scatter
    for tile_m, tile_n in hl.tile([M, N]):
        symm_mem_buffer[tile_m, tile_n] = a[tile_m, tile_n]
        slot = tile_m.id * ((N + 63) // 64) + tile_n.id
        pad_barrier(signal_pad_ptrs, pad, slot, RANK, WORLD_SIZE, True, True)
        if tile_m.begin >= scatter_start and tile_m.begin < scatter_end:
            acc_reduce = hl.zeros([tile_m, tile_n], dtype=torch.float32)
            for remote_buffer in buffer_tuple:
                acc_reduce = acc_reduce + remote_buffer[tile_m, tile_n].to(
                    torch.float32
                )
            output[tile_m.index - scatter_start, tile_n] = acc_reduce.to(a.dtype)
        pad_barrier(signal_pad_ptrs, pad, slot, RANK, WORLD_SIZE, True, False)
    return output


@helion.kernel(config=helion.Config(block_sizes=[4, 64], num_warps=4))
def reduce_scatter_ref(
    a: torch.Tensor[torch.bfloat16, 3],
    WORLD_SIZE: hl.constexpr,
) -> torch.Tensor:
    """Rank r's output: rows [r * M / W, (r + 1) * M / W) of the sum of
    every rank's `a`."""
    W, M, N = a.size()
    M_scatter = M // WORLD_SIZE
    output = torch.empty([WORLD_SIZE, M_scatter, N], dtype=a.dtype)
    for tile_m, tile_n in hl.tile([M_scatter, N]):
        for r in hl.static_range(WORLD_SIZE):
            acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
            for p in hl.static_range(WORLD_SIZE):
                acc = acc + a[p, r * M_scatter + tile_m, tile_n].to(torch.float32)
            output[r, tile_m, tile_n] = acc.to(a.dtype)
    return output
