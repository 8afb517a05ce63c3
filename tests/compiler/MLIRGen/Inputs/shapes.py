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


# A row's columns in chunks (Helion's softmax_two_pass): the chunk loop's
# extent, x.size(1), is compiled in from --shape under static_shapes (the
# default); the grid's x.size(0) is not.
@helion.kernel(config=helion.Config(block_sizes=[1, 512], num_warps=4))
def chunked_sum(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            acc = acc + x[tile_m, tile_n].sum(dim=1)
        out[tile_m] = acc
    return out


@helion.kernel(static_shapes=False,
               config=helion.Config(block_sizes=[1, 512], num_warps=4))
def chunked_sum_dynamic(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            acc = acc + x[tile_m, tile_n].sum(dim=1)
        out[tile_m] = acc
    return out


@helion.kernel(static_shapes=1)
def bad_static_shapes(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t]
    return out


# w is indexed by the tiles of a loop over x.size(1), compiled in: the launch
# still checks w's size against x's, and so w's size is known too.
@helion.kernel(config=helion.Config(block_sizes=[1, 512], num_warps=4))
def chunked_weighted_sum(x: torch.Tensor[torch.float32, 2],
                         w: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            acc = acc + (x[tile_m, tile_n] * w[tile_n][None, :]).sum(dim=1)
        out[tile_m] = acc
    return out
