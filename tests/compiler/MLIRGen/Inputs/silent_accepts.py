# Programs dslc used to accept silently, dropping or misreading part of them
# (tests/compiler/MLIRGen/silent-accepts.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def signal_twice(pad: torch.Tensor[torch.int32, 2], x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        hl.signal(pad, [t.id, 0], 1, signal=2)


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def starred(x: torch.Tensor[torch.float32, 1], shape: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = hl.zeros(*shape, dtype=torch.float32)


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def double_starred(x: torch.Tensor[torch.float32, 1], kw: hl.constexpr) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0), **kw):
        out[t] = x[t]


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def slot_outside(pad: torch.Tensor[torch.int32, 2], x: torch.Tensor[torch.float32, 1]):
    _, world = pad.size()
    world = hl.specialize(world)
    for t in hl.tile(x.size(0)):
        hl.signal(pad, [t.id, 1], signal=1)
        hl.wait(pad, [t.id, 1000], signal=1)


@helion.kernel(config=helion.Config(num_warps=4))
def negative_grid(x: torch.Tensor[torch.float32, 1]):
    for g in hl.grid(-1):
        pass


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def huge_grid(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(9223372036854775807):
        out[t] = x[t]
    return out
