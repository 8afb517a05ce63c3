# Helion's symm_mem_sync (a Triton function of helion.runtime.triton.dist_utils)
# called as Helion's examples call it: each sync pattern, the ways to pass its
# arguments, and mistakes (helion_symm_mem_sync.test).
import torch
import helion
import helion.language as hl
import helion.runtime.triton.dist_utils as dist_utils
from helion.runtime.triton.dist_utils import symm_mem_sync
from helion.runtime.triton.dist_utils import symm_mem_sync as barrier


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def patterns(pads: torch.Tensor, x: torch.Tensor, RANK: hl.constexpr,
             WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        # Pattern 0: earlier kernels' writes are visible.
        hl.triton_kernel(symm_mem_sync,
                         args=(pads, None, RANK, WORLD_SIZE, False, True),
                         output_like=None)
        out[tile] = x[tile]
        # Pattern 1, by name.
        hl.triton_kernel(symm_mem_sync,
                         args={"signal_pad_ptrs": pads, "block_id": None,
                               "rank": RANK, "world_size": WORLD_SIZE,
                               "hasPreviousMemAccess": True,
                               "hasSubsequentMemAccess": True},
                         output_like=None)
        # Pattern 2, called directly.
        symm_mem_sync(pads, None, RANK, WORLD_SIZE, hasPreviousMemAccess=True)
        # Neither flag (the defaults), through an alias and a module.
        barrier(pads, tile.id, RANK, WORLD_SIZE)
        dist_utils.symm_mem_sync(pads, None, RANK, WORLD_SIZE, False, False)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4, 8], num_warps=4))
def grid_2d(pads: torch.Tensor, x: torch.Tensor, RANK: hl.constexpr,
            WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tm, tn in hl.tile([x.size(0), x.size(1)]):
        out[tm, tn] = x[tm, tn]
        symm_mem_sync(pads, None, RANK, WORLD_SIZE, True, False)
    return out


def helper_sync(table, rank, world):
    symm_mem_sync(table, None, rank, world, True, True)


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def two_tables(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor,
               RANK: hl.constexpr, WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        helper_sync(a, RANK, WORLD_SIZE)
        out[tile] = x[tile]
        helper_sync(b, RANK, WORLD_SIZE)
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def too_few(pads: torch.Tensor, x: torch.Tensor, RANK: hl.constexpr,
            WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        hl.triton_kernel(symm_mem_sync, args=(pads, None, RANK),
                         output_like=None)
        out[tile] = x[tile]
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def too_many(pads: torch.Tensor, x: torch.Tensor, RANK: hl.constexpr,
             WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        symm_mem_sync(pads, None, RANK, WORLD_SIZE, True, True, True)
        out[tile] = x[tile]
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def runtime_rank(pads: torch.Tensor, x: torch.Tensor,
                 WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        symm_mem_sync(pads, None, x.size(0), WORLD_SIZE)
        out[tile] = x[tile]
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def world_mismatch(pads: torch.Tensor, x: torch.Tensor,
                   RANK: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        symm_mem_sync(pads, None, RANK, 8, True, False)
        out[tile] = x[tile]
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def bad_table(x: torch.Tensor, RANK: hl.constexpr,
              WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        symm_mem_sync(x, None, RANK, WORLD_SIZE, True, False)
        out[tile] = x[tile]
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def bad_block(pads: torch.Tensor, x: torch.Tensor, RANK: hl.constexpr,
              WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        symm_mem_sync(pads, tile, RANK, WORLD_SIZE, True, False)
        hl.triton_kernel(symm_mem_sync, args=(pads, None, RANK, WORLD_SIZE),
                         output_like=x)
        symm_mem_sync(pads, None, RANK, WORLD_SIZE, keep=True)
        out[tile] = x[tile]
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def outside_loop(pads: torch.Tensor, x: torch.Tensor, RANK: hl.constexpr,
                 WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    symm_mem_sync(pads, None, RANK, WORLD_SIZE)
    for tile in hl.tile(x.size(0)):
        out[tile] = x[tile]
    return out


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def in_loops(pads: torch.Tensor, x: torch.Tensor, steps: int,
             RANK: hl.constexpr, WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        for step in range(steps):
            symm_mem_sync(pads, step, RANK, WORLD_SIZE, True, True)
        for k in range(3):
            symm_mem_sync(pads, k, RANK, WORLD_SIZE, True, True)
        out[tile] = x[tile]
    return out
