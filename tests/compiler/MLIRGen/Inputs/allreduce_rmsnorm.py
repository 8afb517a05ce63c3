# Fused one-shot all-reduce + residual add + RMSNorm over [T, H] bf16
# (tests/compiler/MLIRGen/rmsnorm.test).
from __future__ import annotations

import torch
import helion
import helion.language as hl


def symm_mem_sync(pad_addrs, pad, slot, my_rank, world_size, before=True, after=True):
    """Every rank's CTA `slot` waits for the others' (Helion's symm_mem_sync)."""
    pads = hl.stacktensor_like(pad, pad_addrs[:])
    hl.signal(pads, [slot, my_rank], signal=1, wait_for=0, scope="sys",
              hasPreviousMemAccess=before)
    for peer in hl.tile(world_size, block_size=world_size):
        hl.wait(pad, [slot, peer], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=after)


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=16))
def allreduce_residual_rmsnorm(
    signal_pad_addrs: torch.Tensor[torch.uint64, 1],
    local_signal_pad: torch.Tensor[torch.int32, 2],
    x: tuple[torch.Tensor[torch.bfloat16, 2], ...],  # every rank's partials
    residual: torch.Tensor[torch.bfloat16, 2],
    weight: torch.Tensor[torch.bfloat16, 1],
    my_rank: hl.constexpr,
    eps: hl.constexpr = 1e-6,
) -> torch.Tensor:
    T, H = residual.size()
    H = hl.specialize(H)
    assert x[0].size(1) == H and weight.size(0) == H
    _, world_size = local_signal_pad.size()
    world_size = hl.specialize(world_size)
    out = torch.empty_like(residual)
    for tile_t in hl.tile(T):
        symm_mem_sync(signal_pad_addrs, local_signal_pad, tile_t.id, my_rank,
                      world_size, before=False)
        acc = residual[tile_t, :].to(torch.float32)
        for part in x:
            acc = acc + part[tile_t, :].to(torch.float32)
        variance = torch.mean(acc * acc, dim=-1, keepdim=True)
        normed = acc * torch.rsqrt(variance + eps)
        out[tile_t, :] = (normed * weight[None, :].to(torch.float32)).to(out.dtype)
        symm_mem_sync(signal_pad_addrs, local_signal_pad, tile_t.id, my_rank,
                      world_size, after=False)
    return out
