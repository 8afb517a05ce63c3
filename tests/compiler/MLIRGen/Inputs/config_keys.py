# helion.Config keywords read by the one config reader (config-keys.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=64))
def too_many_warps(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warp=4))
def misspelled(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=2 * 2))
def computed(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(
    config=helion.Config(
        block_sizes=[64], num_warps=4, num_stages=3, indexing="block_ptr",
        l2_groupings=[1], reduction_loops=[None]
    )
)
def helion_keys(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[0]))
def zero_block(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel()
def plain(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], fast_math=True))
def fast_exp_log(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = torch.exp(x[t]) + torch.log(x[t])
    return out
