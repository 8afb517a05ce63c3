# Kernels spelled as Helion's examples spell them: unannotated tensors
# (typed with --signature), a tuple of the peers' tensors, torch.* creation
# with dtype=/device=, x[tile, :], hl.grid, hl.register_block_size,
# enumerate/zip, constexpr defaults (tests/compiler/MLIRGen/helion.test).
from __future__ import annotations

import torch
import helion
import helion.language as hl


@helion.jit(config=helion.Config(block_sizes=[1024], num_warps=8), static_shapes=True)
def tuple_all_reduce(
    pad_ptrs: torch.Tensor,
    pad: torch.Tensor,
    shared: tuple[torch.Tensor, ...],
    my_rank: hl.constexpr,
) -> torch.Tensor:
    _, world_size = pad.size()
    world_size = hl.specialize(world_size)
    out = torch.empty_like(shared[0])
    for tile_n in hl.tile(out.size(0)):
        pads = hl.multicast_like(pad, pad_ptrs[:])
        hl.signal(pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys",
                  hasPreviousMemAccess=False)
        for peer in hl.tile(world_size, block_size=world_size):
            hl.wait(pad, [tile_n.id, peer], signal=1, update=0, scope="sys")
        acc = torch.zeros([tile_n], dtype=torch.float32, device=pad.device)
        for i, buf in enumerate(shared):
            acc += buf[tile_n] * (1 if i < len(shared) else 0)
        out[tile_n] = acc.to(shared[0].dtype)
        hl.signal(pads, [tile_n.id, my_rank], signal=1, wait_for=0, scope="sys")
        for peer in hl.tile(world_size, block_size=world_size):
            hl.wait(pad, [tile_n.id, peer], signal=1, update=0, scope="sys",
                    hasSubsequentMemAccess=False)
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def row_norm(x: torch.Tensor, w: torch.Tensor, eps: hl.constexpr = 1e-5):
    m, n = x.size()
    assert w.size(0) == n, "one weight per column"
    out = torch.empty_like(x)
    rms = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        inv = torch.rsqrt(torch.mean(row * row, dim=-1) + eps)
        out[tile_m, :] = (row * inv[:, None] * w[:].to(torch.float32)).to(out.dtype)
        rms[tile_m] = inv
    return out, rms


@helion.kernel(config=helion.Config(block_sizes=[32, 64], num_warps=4))
def blocked(x: torch.Tensor[torch.float32, 2], scale: float):
    m_block = hl.register_block_size(x.size(0))
    out = torch.zeros_like(x)
    for tile_m in hl.tile(x.size(0), block_size=m_block):
        for tile_n in hl.tile(x.size(1)):
            out[tile_m, tile_n] = x[tile_m, tile_n] * scale
    return out


@helion.kernel(config=helion.Config(num_warps=4))
def rows(x: torch.Tensor[torch.float32, 2], y: torch.Tensor[torch.float32, 2]):
    out = torch.empty_like(x)
    for i in hl.grid(x.size(0)):
        for tile_n in hl.tile(x.size(1), block_size=128):
            total = hl.zeros([tile_n], dtype=torch.float32)
            for a, b in zip((x, y), (2.0, 3.0)):
                total = total + a[i, tile_n] * b
            out[i, tile_n] = total
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def functions(x: torch.Tensor[torch.float32, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        v = hl.load(x, [t]) + hl.tile_index(t).to(torch.float32)
        hl.store(out, [t], v + hl.arange(64).to(torch.float32))
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def not_here(x: torch.Tensor[torch.float32, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        hl.barrier()
        out[t] = torch.cumsum(x[t], 0)
        hl.atomic_cas(out, [t], x[t], x[t])
        for i in range(4):
            break
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def defaults(x: torch.Tensor[torch.float32, 1], scale: hl.constexpr = 2.5,
             flag: hl.constexpr = True, dt: hl.constexpr = torch.bfloat16,
             name: hl.constexpr = "sum", neg: hl.constexpr = -3):
    out = torch.empty_like(x, dtype=dt)
    for t in hl.tile(x.size(0)):
        if flag and name == "sum":
            out[t] = (x[t] * scale + neg).to(dt)
    return out
