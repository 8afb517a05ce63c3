# Compile-time integer arithmetic (tests/compiler/MLIRGen/constant-eval.test):
# Python's operators on int64 constants, e=[64], num_warps=4))
def negative_shift(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = 1 >> -1


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def negate_overflow(x: torch.Tensor[torch.float32, 1]):
    for t in hl.tile(x.size(0)):
        k = -(-922337203.854775807 - 1)


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
