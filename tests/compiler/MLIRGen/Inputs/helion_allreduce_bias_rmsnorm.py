"""All-reduce, bias and RMSNorm fused, written in Helion's spelling.

Written for helion_symm_mem_sync.test, in the way Helion's
examples/distributed/allreduce_bias_rmsnorm.py is written: `@helion.jit`
with a config that carries a Triton-only key (`reduction_loops`, which
dslc ignores with a warning), a process-group-name parameter, EPS / RANK /
WORLD_SIZE constexprs, peers from torch.ops.symm_mem.get_remote_tensors
and Helion's own symm_mem_sync barrier called through hl.triton_kernel.
scripts/helion-examples.sh compiles Helion's own file from a checkout.

Each rank holds a partial sum x [N, D]; every rank ends with

    y = s * rsqrt(mean(s * s) + EPS) * weight,    s = sum over ranks of x + bias

where bias and weight are the rank's own.

- one_shot_...: each rank stages its rows in symm_mem_buffer, and after a
  barrier every rank adds up all ranks' rows itself.
- two_shot_...: each rank adds up only its D // WORLD_SIZE columns, stores
  the sum into that column range of every peer's buffer, and after a second
  barrier normalizes the full rows now in its own buffer.

one_shot_allreduce_bias_rmsnorm_ref is the one-shot kernel's reference for
`dslc --simulate --reference FILE.py:NAME`: a plain tile kernel over every
rank's inputs stacked on a leading [world_size, ...] dimension, in float64.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl
from helion.runtime.triton.dist_utils import symm_mem_sync


@helion.jit(
    config=helion.Config(block_sizes=[8], num_warps=8, reduction_loops=[1024]),
    static_shapes=True,
    ignore_warnings=[helion.exc.TensorOperationInWrapper],
)
def one_shot_allreduce_bias_rmsnorm_kernel(
    symm_mem_buffer: torch.Tensor,
    x: torch.Tensor,
    bias: torch.Tensor,
    weight: torch.Tensor,
    signal_pad_ptrs: torch.Tensor,
    EPS: hl.constexpr,
    RANK: hl.constexpr,
    WORLD_SIZE: hl.constexpr,
    GROUP_NAME: hl.ProcessGroupName,
) -> torch.Tensor:
    """Every rank reduces every row itself (few rows: one trip each way)."""
    rows, hidden = x.size()
    out = torch.empty_like(x)
    peers = torch.ops.symm_mem.get_remote_tensors(symm_mem_buffer, GROUP_NAME)
    for rt in hl.tile(rows):
        # Publish this rank's rows, then wait until every peer has too:
        # the barrier releases our stores and acquires theirs.
        symm_mem_buffer[rt, :] = x[rt, :]
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, True),
            output_like=None,
        )
        # Sum in fp32, ranks in order, so every rank gets the same bits.
        total = hl.zeros([rt, hidden], dtype=torch.float32)
        for peer in peers:
            total = total + peer[rt, :].to(torch.float32)
        total = total + bias[None, :].to(torch.float32)
        mean_sq = torch.mean(total * total, dim=-1, keepdim=True)
        scale = torch.rsqrt(mean_sq + EPS)
        out[rt, :] = (total * scale * weight[None, :].to(torch.float32)).to(out.dtype)
        # Before the tile ends, every peer must be done reading our buffer,
        # so that the next call may restage it.
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, False),
            output_like=None,
        )
    return out


@helion.jit(
    config=helion.Config(block_sizes=[4], num_warps=32),
    ignore_warnings=[helion.exc.TensorOperationInWrapper],
)
def two_shot_allreduce_bias_rmsnorm_kernel(
    symm_mem_buffer: torch.Tensor,
    x: torch.Tensor,
    bias: torch.Tensor,
    weight: torch.Tensor,
    signal_pad_ptrs: torch.Tensor,
    EPS: hl.constexpr,
    RANK: hl.constexpr,
    WORLD_SIZE: hl.constexpr,
    GROUP_NAME: hl.ProcessGroupName,
) -> torch.Tensor:
    """Reduce-scatter by columns, all-gather the sums, normalize locally."""
    rows, hidden = x.size()
    out = torch.empty_like(x)
    peers = torch.ops.symm_mem.get_remote_tensors(symm_mem_buffer, GROUP_NAME)
    width = hidden // WORLD_SIZE
    first = RANK * width
    last = first + width
    for rt in hl.tile(rows):
        symm_mem_buffer[rt, :] = x[rt, :]
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, True),
            output_like=None,
        )
        # This rank's columns: the sum over ranks, plus this rank's bias.
        part = hl.zeros([rt, width], dtype=torch.float32)
        for peer in peers:
            part = part + peer[rt, first:last].to(torch.float32)
        part = part + bias[None, first:last].to(torch.float32)
        # Hand the finished columns to every rank (ourselves included).
        for peer in peers:
            peer[rt, first:last] = part.to(x.dtype)
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, True),
            output_like=None,
        )
        # Our buffer now holds whole reduced rows.
        full = symm_mem_buffer[rt, :].to(torch.float32)
        inv_rms = torch.rsqrt(torch.mean(full * full, dim=-1, keepdim=True) + EPS)
        out[rt, :] = (full * inv_rms * weight[None, :].to(torch.float32)).to(out.dtype)
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, False),
            output_like=None,
        )
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=8), static_shapes=True)
def one_shot_allreduce_bias_rmsnorm_ref(
    x: torch.Tensor[torch.bfloat16, 3],  # [world_size, N, D]: every rank's x
    bias: torch.Tensor[torch.bfloat16, 2],  # [world_size, D]: every rank's bias
    weight: torch.Tensor[torch.bfloat16, 2],  # [world_size, D]
    EPS: hl.constexpr,
    world_size: hl.constexpr,
) -> torch.Tensor:
    """Rank p's output from every rank's inputs, in float64."""
    _, rows, hidden = x.size()
    hidden = hl.specialize(hidden)
    assert bias.size(1) == hidden
    assert weight.size(1) == hidden
    out = torch.empty_like(x)
    for rt in hl.tile(rows):
        s = hl.zeros([rt, hidden], dtype=torch.float64)
        for r in range(world_size):
            s = s + x[r, rt, :].to(torch.float64)
        for p in range(world_size):
            v = s + bias[p, None, :].to(torch.float64)
            inv_rms = torch.rsqrt(torch.mean(v * v, dim=-1, keepdim=True) + EPS)
            out[p, rt, :] = (v * inv_rms * weight[p, None, :].to(torch.float64)).to(out.dtype)
    return out
