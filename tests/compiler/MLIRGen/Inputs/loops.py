# Loops over constants: scf.for unless the body needs the loop variable at
# compile time (tests/compiler/MLIRGen/loops.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def rows(x: torch.Tensor[torch.float32, 2], H: hl.constexpr):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        for h in range(H):
            out[t, h] = x[t, h] * 2.0
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def specialized(x: torch.Tensor[torch.float32, 2]):
    out = torch.empty_like(x)
    H = hl.specialize(x.size(1))
    for t in hl.tile(x.size(0)):
        acc = hl.zeros([t], dtype=torch.float32)
        for h in range(H - 1, -1, -1):
            acc += x[t, h]
        out[t, 0] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def needs_constant(x: torch.Tensor[torch.float32, 2], H: hl.constexpr):
    out = torch.empty_like(x)
    scales = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0)
    for t in hl.tile(x.size(0)):
        for h in range(H):
            out[t, h] = x[t, h] * scales[h]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def static_range(x: torch.Tensor[torch.float32, 2]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        for h in hl.static_range(2):
            out[t, h] = x[t, h]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def constant_sum(x: torch.Tensor[torch.float32, 1], H: hl.constexpr):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        k = 0
        for h in range(H):
            k += h
        out[t] = x[t] * k
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def runtime_step(x: torch.Tensor[torch.float32, 2], s: int):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        for h in range(0, x.size(1), s):
            out[t, h] = x[t, h]
    return out
