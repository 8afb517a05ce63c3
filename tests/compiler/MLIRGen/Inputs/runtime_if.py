# `if` on run-time scalars: scf.if (tests/compiler/MLIRGen/runtime-if.test).
import torch
import helion
import helion.language as hl


def clipped(v, t, n):
    # A helper with a run-time if: inlined, the if with it.
    if t.begin + 64 > n:
        v = v * 0.5
    return v


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def yield_tile(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if t.begin < n:
            v = x[t] * 2.0
        else:
            v = hl.zeros([t], dtype=torch.float32)
        out[t] = v
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def elif_chain(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        v = x[t]
        if t.id == 0:
            v = v + 1.0
        elif t.id < n:
            v = v + 2.0
        else:
            out[t] = v
        out[t] = v
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def chained(x: torch.Tensor[torch.float32, 1], lo: int, hi: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if lo <= t.begin < hi and not t.id == 3 or t.end == x.size(0):
            out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[8, 128], num_warps=4))
def in_loop(x: torch.Tensor[torch.float32, 2], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        acc = hl.zeros([t], dtype=torch.float32)
        for k in hl.tile(x.size(1)):
            if k.begin < n:
                acc = acc + torch.sum(x[t, k], dim=1)
        out[t, 0] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def long_loop(x: torch.Tensor[torch.float32, 2], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        acc = hl.zeros([t], dtype=torch.float32)
        for h in range(64):
            if h < n:
                acc += x[t, h]
        out[t, 0] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def scalar_merge(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        shift = 0
        if t.id > 0:
            shift = n
        out[t] = x[t.index + shift]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def helper_if(x: torch.Tensor[torch.float32, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = clipped(x[t], t, x.size(0))
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def folded(x: torch.Tensor[torch.float32, 1], FLAG: hl.constexpr = 0):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if FLAG and t.id == 0:
            out[t] = x[t] + 1.0
        else:
            out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def masked_tail(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if t.id < n:
            v = x[t]
        else:
            v = hl.full([t], 1.0, dtype=torch.float32)
        out[t] = v - torch.mean(v)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def one_path_unused(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if t.id < n:
            tmp = x[t] * 2.0
            out[t] = tmp
        else:
            tmp = 1
            out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def truthy(x: torch.Tensor[torch.float32, 1], eps: float, n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if eps > 0.5 and n:
            out[t] = x[t] * eps
    return out


# -- errors -------------------------------------------------------------------


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def tile_condition(x: torch.Tensor[torch.float32, 1]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if x[t] > 0:
            out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def one_path(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if t.id < n:
            v = x[t]
        out[t] = v
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def else_only(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if t.id < n:
            pass
        else:
            v = x[t]
        out[t] = v
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def two_types(x: torch.Tensor[torch.float32, 1], y: torch.Tensor[torch.bfloat16, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if t.id < n:
            v = x[t]
        else:
            v = y[t]
        out[t] = v
    return out


@helion.kernel(config=helion.Config(block_sizes=[64, 32], num_warps=4))
def loop_two_types(x: torch.Tensor[torch.float32, 2], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        acc = hl.zeros([t], dtype=torch.float32)
        for k in hl.tile(x.size(1)):
            if k.begin < n:
                acc = 0
        out[t, 0] = acc
    return out


def early(v, t, n):
    if t.begin > n:
        return v
    return v * 2.0


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def helper_return(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = early(x[t], t, n)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def outside_grid(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    if n > 0:
        pass
    for t in hl.tile(x.size(0)):
        out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def conditional_expression(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] if t.id < n else x[t] * 2.0
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def conditional_scalar(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        scale = 0.5 if t.begin >= n else 3
        out[t] = x[t] * scale
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 64], num_warps=4))
def conditional_scalar_ref(x: torch.Tensor[torch.float32, 2], n: int):
    """conditional_scalar per rank (x stacked on [world, N]), per element."""
    out = torch.empty_like(x)
    W, N = x.size()
    for w, t in hl.tile([W, N]):
        first = (t.index // 64) * 64
        scale = torch.where(first >= n, 0.5, 3.0)
        out[w, t] = x[w, t] * scale[None, :]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def conditional_mistakes(x: torch.Tensor[torch.float32, 1], n: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        y = x[t] if t.id < n else 1.0
        z = x[t] if x[t] > 0.0 else x[t] * 2.0
        out[t] = y + z
    return out
