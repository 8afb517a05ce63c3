# Kernels built like Helion's distributed examples (examples/distributed/ in
# pytorch/helion), in a file that also holds host code, as Helion's do
# (tests/compiler/MLIRGen/helion_distributed.test).
from __future__ import annotations

import os

import torch
import torch.distributed as dist
import helion
import helion.language as hl
from helion.runtime.triton.dist_utils import symm_mem_sync


def pad_barrier(pad_addrs, pad, slot, rank, world, before, after):
    """CTA `slot` of every rank meets the others' (Helion's symm_mem_sync)."""
    pads = hl.stacktensor_like(pad, pad_addrs[:])
    hl.signal(pads, [slot, rank], signal=1, wait_for=0, scope="sys",
              hasPreviousMemAccess=before)
    for peer in hl.tile(world, block_size=world):
        hl.wait(pad, [slot, peer], signal=1, update=0, scope="sys",
                hasSubsequentMemAccess=after)


@helion.kernel(config=helion.Config(block_sizes=[4096], num_warps=16),
               static_shapes=True)
def sum_peers(
    pad_addrs: torch.Tensor,
    pad: torch.Tensor,
    src: torch.Tensor,
    rank: hl.constexpr,
    group: hl.constexpr,
    world_size: hl.constexpr,
) -> torch.Tensor:
    out = torch.empty_like(src)
    copies = torch.ops.symm_mem.get_remote_tensors(src, group)
    for tile in hl.tile(out.size(0)):
        hl.triton_kernel(pad_barrier,
                         args=(pad_addrs, pad, tile.id, rank, world_size, False, True),
                         output_like=None)
        total = hl.zeros([tile], dtype=src.dtype, device=src.device)
        for c in copies:
            total += c[tile]
        out[tile] = total
        hl.triton_kernel(pad_barrier,
                         args={"pad_addrs": pad_addrs, "pad": pad, "slot": tile.id,
                               "rank": rank, "world": world_size,
                               "before": True, "after": False},
                         output_like=None)
    return out


@helion.jit(
    config=helion.Config(block_sizes=[2], num_warps=8, reduction_loops=[1024]),
    static_shapes=True,
    ignore_warnings=[helion.exc.TensorOperationInWrapper],
)
def norm_one_shot(
    staging: torch.Tensor,
    inp: torch.Tensor,
    shift: torch.Tensor,
    scale: torch.Tensor,
    pad_addrs: torch.Tensor,
    pad: torch.Tensor,
    EPS: hl.constexpr,
    RANK: hl.constexpr,
    WORLD_SIZE: hl.constexpr,
    GROUP: hl.ProcessGroupName,
) -> torch.Tensor:
    rows, cols = inp.size()
    result = torch.empty_like(inp)
    peers = torch.ops.symm_mem.get_remote_tensors(staging, GROUP)
    for r in hl.tile(rows):
        staging[r, :] = inp[r, :]
        hl.triton_kernel(pad_barrier, args=(pad_addrs, pad, r.id, RANK, WORLD_SIZE, True, True),
                         output_like=None)
        s = staging[r, :].to(torch.float32) * 0.0 + shift[None, :].to(torch.float32)
        for p in peers:
            s = s + p[r, :].to(torch.float32)
        ms = torch.mean(s * s, dim=-1, keepdim=True)
        result[r, :] = (s * torch.rsqrt(ms + EPS) * scale[None, :].to(torch.float32)).to(inp.dtype)
        hl.triton_kernel(pad_barrier, args=(pad_addrs, pad, r.id, RANK, WORLD_SIZE, True, False),
                         output_like=None)
    return result


@helion.jit(config=helion.Config(block_sizes=[2], num_warps=8))
def norm_two_shot(
    staging: torch.Tensor,
    inp: torch.Tensor,
    shift: torch.Tensor,
    pad_addrs: torch.Tensor,
    pad: torch.Tensor,
    RANK: hl.constexpr,
    WORLD_SIZE: hl.constexpr,
    GROUP: hl.ProcessGroupName,
) -> torch.Tensor:
    rows, cols = inp.size()
    result = torch.empty_like(inp)
    peers = torch.ops.symm_mem.get_remote_tensors(staging, GROUP)
    share = cols // WORLD_SIZE
    lo = RANK * share
    hi = lo + share
    for r in hl.tile(rows):
        staging[r, :] = inp[r, :]
        hl.triton_kernel(pad_barrier, args=(pad_addrs, pad, r.id, RANK, WORLD_SIZE, True, True),
                         output_like=None)
        s = shift[None, lo:hi].to(torch.float32) + staging[r, lo:hi] * 0
        for p in peers:
            s = s + p[r, lo:hi].to(torch.float32)
        for p in peers:
            p[r, lo:hi] = s.to(inp.dtype)
        hl.triton_kernel(pad_barrier, args=(pad_addrs, pad, r.id, RANK, WORLD_SIZE, True, False),
                         output_like=None)
        result[r, :] = staging[r, :]
    return result


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def imported_sync(pad_addrs: torch.Tensor, src: torch.Tensor, rank: hl.constexpr,
                  world_size: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(src)
    for tile in hl.tile(src.size(0)):
        hl.triton_kernel(symm_mem_sync, args=(pad_addrs, None, rank, world_size, True, True),
                         output_like=None)
        out[tile] = src[tile]
        hl.triton_kernel(symm_mem_sync, args=(pad_addrs, None, rank, world_size, True, False),
                         output_like=None)
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16], num_warps=4),
               static_shapes=True)
def tile_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, k = a.size()
    _, n = b.size()
    out = torch.empty([m, n], dtype=torch.promote_types(a.dtype, b.dtype), device=a.device)
    for tm, tn in hl.tile([m, n]):
        acc = hl.zeros([tm, tn], dtype=torch.float32)
        for tk in hl.tile(k):
            acc = torch.addmm(acc, a[tm, tk], b[tk, tn])
        out[tm, tn] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def promoted_sum(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.empty(a.size(), dtype=torch.promote_types(a.dtype, b.dtype), device=a.device)
    for t in hl.tile(a.size(0)):
        out[t] = a[t] + b[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def calls_host_code(a: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(a)
    for t in hl.tile(a.size(0)):
        out[t] = launch_all(a[t])
    return out


# Host code: what a Helion file does around its kernels. None of it is DSL
# code; dslc leaves it out.
def launch_all(a_shared):
    if dist.group.WORLD is None:
        raise RuntimeError("no process group")
    try:
        sizes = [n * 1024 for n in range(4)]
    except ValueError:
        sizes = []
    with torch.no_grad():
        return [sum_peers(a_shared, s) for s in sizes]


class Runner:
    pass


if __name__ == "__main__":
    launch_all(torch.zeros(int(os.environ.get("N", "1024"))))


@helion.kernel(config=helion.Config(block_sizes=[2], num_warps=4))
def left_half(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.size()
    out = torch.empty_like(x)
    for r in hl.tile(rows):
        out[r, 0:cols // 2] = x[r, 0:cols // 2]
    return out
