# Programs that reached the IR verifier ("internal error: dslc generated
# invalid IR"): each condition is checked by MLIRGen at the program's line
# (tests/compiler/MLIRGen/verifier-conditions.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def ll_put_int8(a: torch.Tensor[torch.int8, 1], scratch: torch.Tensor[torch.int64, 1]):
    for t in hl.tile(a.size(0)):
        hl.ll_put(scratch, 0, a[t], 1)


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def ll_get_types(scratch: torch.Tensor[torch.int64, 1], out: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(out.size(0)):
        x = hl.ll_get(scratch, 0, 1, [t], dtype=torch.int64)
        y = hl.ll_get(scratch, 0, 1, [t], dtype=torch.float64)
        z = hl.ll_get(scratch, 0, 1, [t], dtype=torch.bool)


@helion.kernel(config=helion.Config(block_sizes=[7], num_warps=4))
def ll_seven(a: torch.Tensor[torch.bfloat16, 1], scratch: torch.Tensor[torch.int64, 1]):
    for t in hl.tile(a.size(0)):
        hl.ll_put(scratch, 0, a[t], 1)


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def bf16_into_f16(a: torch.Tensor[torch.bfloat16, 1], out: torch.Tensor[torch.float16, 1]):
    for t in hl.tile(a.size(0)):
        out[t] = a[t]


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def after_grid(pad: torch.Tensor[torch.int32, 2], a: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(a.size(0)):
        hl.signal(pad, [t.id, 0], signal=1)
    hl.signal(pad, [0, 0], signal=1)


@helion.kernel(config=helion.Config(block_sizes=[256, 256], num_warps=4))
def second_grid(a: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(a)
    for t in hl.tile(a.size(0)):
        out[t] = a[t]
    """A docstring and a return may follow."""
    for u in hl.tile(a.size(0)):
        out[u] = a[u]
    return out
