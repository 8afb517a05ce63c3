"""A loop over a runtime count: with --size n=16000000 it would take the
simulator hours; the work bound stops it."""

import torch
import helion
import helion.language as hl

@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def spin(x: torch.Tensor[torch.float32, 1], n: int) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_n in hl.tile(x.size(0)):
        acc = x[tile_n]
        for i in range(n):
            acc = acc + 1.0
        out[tile_n] = acc
    return out
