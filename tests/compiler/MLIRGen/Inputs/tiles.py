# Multi-dimensional tiles, broadcasting, reductions, math, masks, scalars
# and fp8 (tests/compiler/MLIRGen/tiles.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[4, 256], num_warps=4))
def two_d(x: torch.Tensor[torch.bfloat16, 2], w: torch.Tensor[torch.bfloat16, 1]):
    out = torch.empty_like(x)
    for tile_t, tile_h in hl.tile([x.size(0), x.size(1)]):
        out[tile_t, tile_h] = x[tile_t, tile_h] * w[tile_h]
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def reductions(x: torch.Tensor[torch.bfloat16, 2]):
    H = hl.specialize(x.size(1))
    s = torch.empty([x.size(0)], dtype=torch.float32)
    m = torch.empty([x.size(0)], dtype=torch.bfloat16)
    for t in hl.tile(x.size(0)):
        row = x[t, :]
        s[t] = torch.sum(row, dim=-1) + row.to(torch.float32).mean(1)
        m[t] = torch.amax(row, dim=1) - row.amin(-1)
    return s, m


@helion.kernel(config=helion.Config(block_sizes=[128], num_warps=4))
def masked_tail(x: torch.Tensor[torch.float32, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        v = x[t]
        out[t] = v - v.amax() + v.mean()
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def math_ops(x: torch.Tensor[torch.float32, 1], y: torch.Tensor[torch.float16, 1], scale: float, k: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        a = x[t]
        b = y[t]
        r = torch.rsqrt(a) + torch.sqrt(a) + torch.exp(a) + torch.log(a) + a.abs()
        r = r + torch.sigmoid(b) + torch.maximum(a, b) + torch.minimum(a, 0.5)
        r = torch.where(a > b, r, -r) + torch.clamp(a, min=0.0, max=1.0)
        r = r * scale + k + a ** 3
        out[t] = r
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def masks(x: torch.Tensor[torch.int32, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        v = x[t]
        keep = (v > 0) & ~(v == 7) | (t.index < 4)
        out[t] = torch.where(keep, v * 0.5, 0.0).to(torch.int32)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def shifted_index(a: torch.Tensor[torch.float32, 1], my_rank: hl.constexpr):
    out = torch.empty([64], dtype=torch.float32)
    shard = a.size(0) // 4
    for t in hl.tile(shard):
        out[t] = a[t.index + my_rank * shard] + a[my_rank * shard + t.index - 1]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def fp8(x: torch.Tensor[torch.float8_e4m3fn, 1], y: torch.Tensor[torch.bfloat16, 1]):
    out = torch.empty_like(x)
    out2 = torch.empty_like(y, dtype=torch.float8_e5m2)
    for t in hl.tile(x.size(0)):
        out[t] = (x[t].to(torch.float32) * 2.0).to(torch.float8_e4m3fn)
        out2[t] = y[t].to(torch.float8_e5m2)
    return out, out2


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def fills(x: torch.Tensor[torch.float32, 2]):
    out = torch.empty_like(x)
    W = hl.specialize(x.size(1))
    for t in hl.tile(x.size(0)):
        z = torch.zeros([t, W], dtype=torch.float32)
        f = hl.full([t, W], 2.0, dtype=torch.float32)
        o = torch.ones_like(z) + torch.full_like(f, 3)
        out[t, :] = z + f + o + x[t, :] + hl.zeros([t], dtype=torch.float32)[:, None]
    return out


# Mistakes, one per kernel.
@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def err_fp8_math(x: torch.Tensor[torch.float8_e4m3fn, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2.0
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def err_slice(x: torch.Tensor[torch.float32, 2]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t, :] = x[t, :]
    return out


@helion.kernel(config=helion.Config(block_sizes=[4, 64], num_warps=4))
def err_broadcast(x: torch.Tensor[torch.float32, 2], w: torch.Tensor[torch.float32, 1]):
    out = torch.empty_like(x)
    for t, h in hl.tile([x.size(0), x.size(1)]):
        out[t, h] = x[t, h] + w[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def err_reductions(x: torch.Tensor[torch.int32, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        a = x[t].mean()
        b = torch.max(x[t], dim=0)
        c = x[t].sum(dim=1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def err_gather(x: torch.Tensor[torch.float32, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t.index * 2]
        m = not (x[t] > 0)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def int_ops(x: torch.Tensor[torch.int32, 1], y: torch.Tensor[torch.float32, 1]):
    out = torch.empty_like(y)
    for t in hl.tile(x.size(0)):
        a = x[t]
        out[t] = a / 3 + (a % 5) + (y[t] % 2.0) + (a << 1) + a.sum()
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def where_numbers(x: torch.Tensor[torch.float32, 1], k: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        big = x[t] > 0.5
        # Both branches numbers (or a run-time scalar): a tile of the
        # condition's shape, int64 unless either is a float.
        out[t] = torch.where(big, 1, 2) + torch.where(big, k, 0.25)
    return out
