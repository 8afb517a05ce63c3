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


@helion.kernel()
def dot_tiles(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    k = a.size(1)
    c = torch.empty([m, k], dtype=x.dtype, device=x.device)
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        for tile_k in hl.tile(k):
            c[tile_m, tile_k] = x[tile_m, :] @ a[:, tile_k]
        for tile_n in hl.tile(n):
            acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
            for tile_k in hl.tile(k):
                acc = torch.addmm(acc, c[tile_m, tile_k], b[tile_k, tile_n])
            out[tile_m, tile_n] = x[tile_m, tile_n] * acc
    return out


@helion.kernel()
def dot_and_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    m = x.size(0)
    out = torch.empty([m, w.size(1)], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m, :] = x[tile_m, :] @ w[:, :]
    for tile_m in hl.tile(m):
        out[tile_m, :] = out[tile_m, :] * 2
    return out


@helion.kernel()
def dot_k_minimum(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    n = y.size(1)
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc * z[tile_m, :].sum(-1, keepdim=True)
    return out


@helion.kernel()
def dot_shifted_k(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    n = y.size(1)
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(8, k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc * z[tile_m, :].sum(-1, keepdim=True)
    return out
