# hl.barrier() misplaced: checked by tests/compiler/MLIRGen/grid-barrier.test.
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def barrier_last(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    hl.barrier()
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16], num_warps=4))
def barrier_args(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    hl.barrier(1)
    for t in hl.tile(x.size(0)):
        out[t] = out[t] + 1
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16], num_warps=4))
def device_between(x: torch.Tensor[torch.float32, 1],
                   pad: torch.Tensor[torch.int32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    hl.signal(pad, [0], signal=1)
    for t in hl.tile(x.size(0)):
        out[t] = out[t] + 1
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def barrier_first(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    hl.barrier()
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out
