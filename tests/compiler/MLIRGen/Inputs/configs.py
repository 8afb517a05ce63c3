# Kernels whose config Helion's autotuner or host code chooses
# (configs.test).
import os

import torch
import helion
import helion.language as hl

_FOUND = helion.Config(block_sizes=[256], num_warps=8)
_TUNED = helion.Config(block_sizes=[128], num_warps=2)
_CHOSEN = _TUNED if os.environ.get("USE_TUNED") == "1" else None
_NONE = None


@helion.kernel()
def no_config(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=None, static_shapes=True)
def none_config(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tm, tn in hl.tile([x.size(0), x.size(1)]):
        out[tm, tn] = x[tm, tn] + 1
    return out


@helion.kernel(config=_FOUND)
def named_config(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=_CHOSEN)
def host_config(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=_NONE)
def none_by_name(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=_MISSING)
def missing_config(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(configs=[helion.Config(block_sizes=[512], num_warps=4),
                        helion.Config(block_sizes=[1024], num_warps=8)])
def config_list(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel()
def bounded_block(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    b = hl.register_block_size(16)
    for t in hl.tile(x.size(0), block_size=b):
        out[t] = x[t] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=4))
def too_few(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out
