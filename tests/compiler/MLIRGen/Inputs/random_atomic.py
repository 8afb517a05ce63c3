"""hl.rand, hl.atomic_* and nested loops over several tile dimensions, as
Helion's examples write them (tests/compiler/MLIRGen/random-atomic.test)."""

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def rand_1d(x: torch.Tensor, seed: int) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = hl.rand([t], seed=seed)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4, 32], num_warps=4))
def rand_2d(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tm, tn in hl.tile([m, n]):
        out[tm, tn] = hl.rand([tm, tn], seed=7)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def rand_offsets(x: torch.Tensor, seed: int) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = hl.rand([], seed=seed, offsets=t.index * 3)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def rand_no_seed(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = hl.rand([t])
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def rand_float_seed(x: torch.Tensor, seed: float) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = hl.rand([t], seed=seed)
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16], num_warps=4))
def atomic_tiles(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.zeros([m, n], dtype=torch.float32, device=x.device)
    for tm, tn in hl.tile([m, n]):
        hl.atomic_add(out, [tm, tn], x[tm, tn])
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def atomic_rows(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    n, d = x.size()
    out = torch.zeros([8, d], dtype=torch.int32, device=x.device)
    for t in hl.tile(n):
        hl.atomic_max(out, [idx[t], slice(None)], x[t, :], sem="release")
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def atomic_scalar(x: torch.Tensor) -> torch.Tensor:
    out = torch.zeros([1], dtype=torch.float32, device=x.device)
    for t in hl.tile(x.size(0)):
        hl.atomic_add(out, [0], x[t].sum())
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def atomic_and_float(x: torch.Tensor) -> torch.Tensor:
    out = torch.zeros([64], dtype=torch.float32, device=x.device)
    for t in hl.tile(x.size(0)):
        hl.atomic_and(out, [t], x[t])
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def atomic_bad_sem(x: torch.Tensor) -> torch.Tensor:
    out = torch.zeros([64], dtype=torch.float32, device=x.device)
    for t in hl.tile(x.size(0)):
        hl.atomic_add(out, [t], x[t], sem="seq_cst")
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def atomic_bad_slice(x: torch.Tensor) -> torch.Tensor:
    n, d = x.size()
    out = torch.zeros([n, d], dtype=torch.float32, device=x.device)
    for t in hl.tile(n):
        hl.atomic_add(out, [t, slice(0, 4)], x[t, 0:4])
    return out


@helion.kernel(config=helion.Config(block_sizes=[8, 16, 32], num_warps=4))
def nested_2d(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.empty_like(x)
    for tb in hl.tile(b):
        for tm, tn in hl.tile([m, n]):
            out[tb, tm, tn] = x[tb, tm, tn] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[8, 16, 32], num_warps=4))
def nested_2d_begin(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.zeros_like(x)
    for tb in hl.tile(b):
        for tm, tn in hl.tile([1, 2], [m, n]):
            out[tb, tm, tn] = x[tb, tm, tn] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[8, 16, 32], num_warps=4))
def nested_begin_count(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.zeros_like(x)
    for tb in hl.tile(b):
        for tm, tn in hl.tile([1], [m, n]):
            out[tb, tm, tn] = x[tb, tm, tn] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16], num_warps=4))
def two_phases(x: torch.Tensor) -> torch.Tensor:
    tmp = torch.empty_like(x)
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        tmp[t] = x[t] * 2
    hl.barrier()
    for t in hl.tile(x.size(0)):
        out[t] = tmp[t] + 1
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def scan(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = hl.associative_scan(lambda a, b: a + b, x[t], dim=0)
    return out
