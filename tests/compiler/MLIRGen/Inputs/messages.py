"""Kernels whose errors must name what went wrong and where it came from
(issue 25): the tile's shape and the config, the shapes of a store that
does not broadcast, the world-size flag a kernel ignored."""

import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[262144], num_warps=4))
def huge_tile(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] + 1
    return out


@helion.kernel(config=helion.Config(block_sizes=[65536], num_warps=1))
def crowded_tile(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] + 1
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def rank_mismatch(x: torch.Tensor[torch.float32, 2],
                  y: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    for t in hl.tile(x.size(0)):
        y[:] = x[t, :]
    return y


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def needs_world(a_shared: torch.Tensor[torch.bfloat16, 1],
                group_name: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(a_shared)
    peers = torch.ops.symm_mem.get_remote_tensors(a_shared, group_name)
    for t in hl.tile(out.size(0)):
        acc = hl.zeros([t], dtype=torch.float32)
        for p in peers:
            acc += p[t]
        out[t] = acc
    return out
