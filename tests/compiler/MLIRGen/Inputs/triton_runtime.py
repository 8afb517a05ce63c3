# Helion's runtime device function triton_wait_signal, called from
# @triton.jit helpers as Helion's all_gather_matmul.py does
# (triton_runtime.test).
from __future__ import annotations

import torch
import triton
import triton.language as tl

import helion
import helion.language as hl
from helion.runtime.triton.helpers import triton_wait_signal


@triton.jit
def _wait_progress_at_idx(progress: tl.tensor, idx: int) -> None:
    triton_wait_signal(progress + idx, 1, 0, "acquire", "gpu", "ld", False)


@triton.jit
def _take_flag(flags, idx):
    triton_wait_signal(idx + flags, 1, 0, "relaxed", "sys", "atomic_cas", True)


@triton.jit
def _triton_code(flags, idx):
    tl.store(flags + idx, 1)


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4),
               static_shapes=True)
def copy_when_ready(a: torch.Tensor, progress: torch.Tensor,
                    SPLITS: int) -> torch.Tensor:
    out = torch.empty_like(a)
    M = a.size(0)
    for tile_m in hl.tile(M):
        hl.triton_kernel(_wait_progress_at_idx,
                         args=(progress, tile_m.begin // (M // SPLITS)),
                         output_like=None)
        out[tile_m] = a[tile_m]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def take_flags(a: torch.Tensor, flags: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    for t in hl.tile(a.size(0)):
        hl.triton_kernel(_take_flag, args=(flags, t.id), output_like=None)
        triton_wait_signal(flags, 1, 0, "acquire", "gpu", "ld", True)
        out[t] = a[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def uses_triton(a: torch.Tensor, flags: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    for t in hl.tile(a.size(0)):
        hl.triton_kernel(_triton_code, args=(flags, t.id), output_like=None)
        out[t] = a[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def flat_2d(a: torch.Tensor, flags: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    for t in hl.tile(a.size(0)):
        triton_wait_signal(flags + t.id, 1, 0, "acquire", "gpu", "ld", False)
        out[t] = a[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def bad_wait(a: torch.Tensor, flags: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    for t in hl.tile(a.size(0)):
        triton_wait_signal(flags + t.id, 1, 0, "release", "gpu", "ld", False)
        triton_wait_signal(flags + t.id, 1, 0, "acquire", "cta", "ld", False)
        triton_wait_signal(flags + t.id, 1, 0, "acquire", "gpu", "xchg", False)
        triton_wait_signal(flags + t.id, 1, 0, "acquire", "gpu", "ld", False,
                           True)
        triton_wait_signal(flags + t.id, 1)
        out[t] = a[t]
    return out
