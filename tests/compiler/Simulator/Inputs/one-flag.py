import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=1))
def one_flag(x: torch.Tensor[torch.float32, 1],
             pad: torch.Tensor[torch.int32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        out[tile] = x[tile]
        hl.signal(pad, [0], signal=1, hasPreviousMemAccess=True)
        hl.wait(pad, [0], signal=1)
    return out
