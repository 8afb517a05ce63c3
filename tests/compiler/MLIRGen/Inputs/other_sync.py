# A symm_mem_sync that is not Helion's: dslc cannot see what it does.
import torch
import helion
import helion.language as hl
from mylib.sync import symm_mem_sync


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def other(pads: torch.Tensor, x: torch.Tensor, RANK: hl.constexpr,
          WORLD_SIZE: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        hl.triton_kernel(symm_mem_sync,
                         args=(pads, None, RANK, WORLD_SIZE, True, True),
                         output_like=None)
        out[tile] = x[tile]
    return out
