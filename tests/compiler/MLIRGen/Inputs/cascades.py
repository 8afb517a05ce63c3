# One root error per mistake (tests/compiler/MLIRGen/diagnostics.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def bad_output(x: torch.Tensor[torch.float32, 2]):
    out = torch.empty_like(x, dtype=torch.floaty)
    n = out.size(1)
    for t in hl.tile(x.size(0)):
        out[t, 0] = x[t, 0] + n
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def bad_loop(x: torch.Tensor[torch.float32, 1], k: hl.constexpr):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        for i in range(k):
            y = x[t] * i
        out[t] = y + k
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def specialize_size(x: torch.Tensor[torch.float32, 2]):
    out = torch.empty_like(x)
    H = hl.specialize(out.size(1))
    for t in hl.tile(x.size(0)):
        out[t, H - 1] = x[t, 0]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def slice_twice(x: torch.Tensor[torch.float32, 2]):
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t, :] = x[t, :]
        out[t, :] = x[t, :] + 1.0
        out[t, 0] = x[:, 0].sum()
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def assert_unbound(x: torch.Tensor[torch.float32, 2], H: hl.constexpr):
    assert x.size(1) == H
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t, :] = x[t, :] * H
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def failed_specialize_in_assert(x: torch.Tensor[torch.float32, 2],
                                w: torch.Tensor[torch.float32, 1]):
    H = hl.specialize(x.size(1))
    assert w.size(0) == H
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t, :] = x[t, :] * w[None, :]
        out[t, 0] = w[:].sum()
    return out
