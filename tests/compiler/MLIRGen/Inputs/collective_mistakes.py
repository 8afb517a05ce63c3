import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def stack_load(x: torch.Tensor[torch.float32, 1], ptrs: torch.Tensor[torch.uint64, 1],
               out: torch.Tensor[torch.float32, 1]):
    s = hl.stacktensor_like(x, ptrs)
    for t in hl.tile(x.size(0)):
        out[t] = s[:, t]


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def stack_sum_dim(x: torch.Tensor[torch.float32, 1], ptrs: torch.Tensor[torch.uint64, 1],
                  out: torch.Tensor[torch.float32, 1]):
    s = hl.stacktensor_like(x, ptrs)
    for t in hl.tile(x.size(0)):
        out[t] = s[:, t].sum(1)
        out[t] = s[t].sum(0)


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def bad_cast(x: torch.Tensor[torch.float32, 1], out: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        out[t] = x.to(torch.bfloat16)
        out[t] = x[t].to(3)


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def tile_offsets(x: torch.Tensor[torch.float32, 1], out: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0) // 2):
        out[t] = x[t - 1]
        out[t] = x[t + t]


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def shifted(x: torch.Tensor[torch.float32, 1], out: torch.Tensor[torch.float32, 1], k: int):
    for t in hl.tile((x.size(0) + 3) // 4):
        out[t] = x[3 * k + t] + x[t + 2]


@helion.kernel(config=helion.Config(block_sizes=[1024, 256], num_warps=4))
def range_grid(x: torch.Tensor[torch.float32, 1], out: torch.Tensor[torch.float32, 1]):
    for c in hl.tile(x.size(0)):
        for t in hl.tile([c.begin], c.end):
            out[t] = x[t]
