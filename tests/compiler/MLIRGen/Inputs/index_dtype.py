# Index values (tile.index, hl.arange) of 32 or 64 bits (index-dtype.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def pick(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    n, v = logits.shape
    out = torch.empty([n], dtype=logits.dtype, device=logits.device)
    flat = logits.view(-1)
    for tile_n in hl.tile(n):
        out[tile_n] = hl.load(flat, [tile_n.index * v + labels[tile_n]])
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[1], num_warps=4), index_dtype=torch.int64
)
def pick64(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    n, v = logits.shape
    out = torch.empty([n], dtype=logits.dtype, device=logits.device)
    flat = logits.view(-1)
    for tile_n in hl.tile(n):
        out[tile_n] = hl.load(flat, [tile_n.index * v + labels[tile_n]])
    return out


@helion.kernel(
    config=helion.Config(block_sizes=[1], num_warps=4), index_dtype=torch.int32
)
def pick32(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    n, v = logits.shape
    out = torch.empty([n], dtype=logits.dtype, device=logits.device)
    flat = logits.view(-1)
    for tile_n in hl.tile(n):
        out[tile_n] = hl.load(flat, [tile_n.index * v + labels[tile_n]])
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def ranged(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t, :] = x[t, :] + hl.arange(4, 12)[None, :].to(x.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def no_index(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2
    return out


@helion.kernel(index_dtype=torch.float32)
def bad_dtype(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t]
    return out
