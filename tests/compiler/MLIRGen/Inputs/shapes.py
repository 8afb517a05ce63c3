# Kernels whose sizes come from --shape (tests/compiler/MLIRGen/shapes.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[2], num_warps=4))
def rows(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    T, H = x.size()
    H = hl.specialize(H)
    out = torch.empty_like(x)
    for t in hl.tile(T):
        out[t, :] = x[t, :] * 2.0
    return out


@helion.kernel(config=helion.Config(block_sizes=[2], num_warps=4))
def slices(x: torch.Tensor[torch.float32, 2],
           w: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    assert x.size(1) == w.size(0)
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t, :] = x[t, :] + w[None, :]
    return out


@helion.kernel(config=helion.Config(block_sizes=[2], num_warps=4))
def like_output(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    out = torch.empty_like(x)
    H = hl.specialize(out.size(1))
    for t in hl.tile(x.size(0)):
        out[t, :] = x[t, :] + H
    return out
