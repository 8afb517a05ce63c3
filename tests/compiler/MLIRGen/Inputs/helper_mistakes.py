# Mistakes in helper functions (tests/compiler/MLIRGen/rmsnorm.test).
import torch
import helion
import helion.language as hl


def sync(pad, slot, rank):
    hl.wait(pad, [slot, rank], signal=1, scope="cluster")


def twice(v):
    return twice(v) * 2


def first(t):
    for i in range(4):
        return t


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def bad_helper(x: torch.Tensor[torch.float32, 1], pad: torch.Tensor[torch.int32, 2]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        sync(pad, t.id, 0)
        out[t] = twice(x[t])
        out[t] = first(x[t])
        out[t] = x[t]
        hl.triton_kernel("symm_mem_sync", args=(pad, None, 0, 2, True, True), output_like=None)
    return out
