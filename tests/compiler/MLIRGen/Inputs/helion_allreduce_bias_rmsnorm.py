# The one-shot and two-shot all-reduce + bias + RMSNorm kernels of Helion's
# examples/distributed/allreduce_bias_rmsnorm.py as written there
# (pytorch/helion at commit ef091f4, BSD-3-Clause), with its imports; the
# host code around them is left out. dslc compiles them with --signature,
# --shape, -D EPS=... and --world-size/--rank only
# (helion_symm_mem_sync.test).
from __future__ import annotations

import functools
import os
import random

import torch
from torch._C._distributed_c10d import _SymmetricMemory
import torch.distributed as dist
import torch.distributed._symmetric_memory as symm_mem

import helion
from helion._testing import DEVICE
from helion._testing import run_example
import helion.language as hl
from helion.runtime.triton.dist_utils import symm_mem_sync


@helion.jit(
    config=helion.Config(
        block_sizes=[8],
        num_warps=8,
        reduction_loops=[1024],
    ),
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
    """
    Fused one-shot all-reduce + bias addition + RMS normalization.
    """
    N, D = x.size()
    output = torch.empty_like(x)

    # Get remote buffers from all ranks (views into each rank's symm_mem_buffer)
    buffer_tuple = torch.ops.symm_mem.get_remote_tensors(symm_mem_buffer, GROUP_NAME)

    for tile_n in hl.tile(N):
        # Step 1: Copy input x to our symmetric memory buffer
        symm_mem_buffer[tile_n, :] = x[tile_n, :]

        # Step 2: Sync with hasPreviousMemAccess=True hasSubsequentMemAccess=True
        # - release fence: ensures our write to symm_mem_buffer is visible to other ranks
        # - acquire fence: ensures we see other ranks' writes to their buffers
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, True),
            output_like=None,
        )

        # Step 3: All-reduce + bias: acc = bias + sum(buffer from all ranks)
        # Initialize acc with the right shape by broadcasting bias
        acc = symm_mem_buffer[tile_n, :].to(torch.float32) * 0.0 + bias[None, :].to(
            torch.float32
        )
        for remote_buffer in buffer_tuple:
            acc = acc + remote_buffer[tile_n, :].to(torch.float32)

        # Step 4: RMS Norm: y = acc * rsqrt(mean(acc^2) + eps) * weight
        variance = torch.mean(acc * acc, dim=-1, keepdim=True)
        rstd = torch.rsqrt(variance + EPS)  # type: ignore[unsupported-operation]
        normalized = acc * rstd
        output[tile_n, :] = (normalized * weight[None, :].to(torch.float32)).to(x.dtype)

        # Step 5: Final sync (release only)
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, False),
            output_like=None,
        )

    return output


@helion.jit(
    config=helion.Config(
        block_sizes=[4],
        num_warps=32,
    ),
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
    N, D = x.size()
    output = torch.empty_like(x)

    buffer_tuple = torch.ops.symm_mem.get_remote_tensors(symm_mem_buffer, GROUP_NAME)

    cols_per_rank = D // WORLD_SIZE  # pyrefly: ignore[unsupported-operation]
    col_start = RANK * cols_per_rank
    col_end = col_start + cols_per_rank  # pyrefly: ignore[unsupported-operation]

    for tile_n in hl.tile(N):
        # Copy x to symmetric memory
        symm_mem_buffer[tile_n, :] = x[tile_n, :]

        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, True),
            output_like=None,
        )

        # reduce scatter
        # TODO(shunting): get rid of the reshape workaround
        acc = (
            bias[None, col_start:col_end].to(torch.float32)
            + symm_mem_buffer[tile_n, col_start:col_end] * 0
        )
        for remote_buffer in buffer_tuple:
            acc = acc + remote_buffer[tile_n, col_start:col_end].to(torch.float32)

        # all gather
        for remote_buffer in buffer_tuple:
            remote_buffer[tile_n, col_start:col_end] = acc.to(x.dtype)

        # sync again
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, True),
            output_like=None,
        )

        # rmsnorm
        row = symm_mem_buffer[tile_n, :].to(torch.float32)
        variance = torch.mean(row * row, dim=-1, keepdim=True)
        rstd = torch.rsqrt(variance + EPS)  # pyrefly: ignore[unsupported-operation]
        normalized = row * rstd
        output[tile_n, :] = (normalized * weight[None, :].to(torch.float32)).to(x.dtype)

        # sync one more time
        hl.triton_kernel(
            symm_mem_sync,
            args=(signal_pad_ptrs, None, RANK, WORLD_SIZE, True, False),
            output_like=None,
        )

    return output
