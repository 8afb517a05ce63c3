# Compile-time integer arithmetic (tests/compiler/MLIRGen/constant-eval.test):
# Python's operators on int64 constants, every overflow an error at the
# expression.
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(num_warps=4))
def folds(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0), block_size=2 ** 3 * (7 // -2 + 6) - 7 % -3 - (-1 >> 70)):
        out[t] = hl.full([t], 3 / 2, dtype=torch.float32) + x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def matmul(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = 2 @ 3


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def floordiv_overflow(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = (-9223372036854775807 - 1) // -1


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def add_overflow(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = 9223372036854775807 + 1


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def mul_overflow(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = 4294967296 * 4294967296


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def pow_overflow(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = 1 ** 1000000000000000000 + 3 ** 40


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def shift_overflow(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = 1 << 63


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def negative_shift(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = 1 >> -1


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def negate_overflow(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = -(-9223372036854775807 - 1)


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def zero_negative_power(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = 0 ** -1


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def runtime_division_by_zero(x: torch.Tensor[torch.float32, 1]):
    n = x.size(0) // 0
    for t in hl.tile(x.size(0)):
        pass


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def range_overflow(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        for i in range(9223372036854775800, 9223372036854775807, 5):
            out[t] = x[t]
        for i in range(-9223372036854775807, 9223372036854775807, 4611686018427387904):
            out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def range_min_step(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        for i in range(0, x.size(0), -9223372036854775807 - 1):
            pass
