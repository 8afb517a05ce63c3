# Several top-level loops in one launch (Helion's kernels with more than
# one top-level hl.tile loop) and hl.barrier() between two (Helion's
# split_k_barrier.py): checked by tests/compiler/Simulator/grid-barrier.test.
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[4, 16, 8], num_warps=4))
def split_sum(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    """Row sums of x [m, k <= 128] in two phases: each CTA sums 16-column
    chunks of 4 rows into parts, a grid-wide barrier, then 8 rows at a time
    sum their parts, which other CTAs wrote."""
    m, k = x.size()
    parts = torch.zeros([m, 8], dtype=x.dtype, device=x.device)
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tm, tk in hl.tile([m, k]):
        parts[tm, tk.id] = x[tm, tk].sum(-1)
    hl.barrier()
    for tm in hl.tile(m):
        out[tm] = parts[tm, :].sum(-1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4, 16, 8], num_warps=4))
def split_sum_no_barrier(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    """The same without the barrier: the second loop's reads race with the
    first loop's writes of other CTAs."""
    m, k = x.size()
    parts = torch.zeros([m, 8], dtype=x.dtype, device=x.device)
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tm, tk in hl.tile([m, k]):
        parts[tm, tk.id] = x[tm, tk].sum(-1)
    for tm in hl.tile(m):
        out[tm] = parts[tm, :].sum(-1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def split_sum_ref(x: torch.Tensor[torch.float32, 3]) -> torch.Tensor:
    """Every rank's x stacked on a leading dimension, and so its out."""
    w, m, k = x.size()
    out = torch.empty([w, m], dtype=x.dtype, device=x.device)
    for tq in hl.tile(w):
        for r in range(m):
            out[tq, r] = x[tq, r, :].sum(-1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64, 8], num_warps=4))
def two_loops(x: torch.Tensor[torch.float32, 1],
              y: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    """Two independent loops (no barrier: no order between them); the
    second has many more tiles than the first, so the launch takes its
    count."""
    a = torch.empty_like(x)
    b = torch.empty_like(y)
    for t in hl.tile(x.size(0)):
        a[t] = x[t] + 1
    for t in hl.tile(y.size(0)):
        b[t] = y[t] * 2
    return a, b


@helion.kernel(config=helion.Config(block_sizes=[1, 64, 64], num_warps=4))
def two_loops_ref(x: torch.Tensor[torch.float32, 2],
                  y: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    w, n = x.size()
    a = torch.empty_like(x)
    b = torch.empty_like(y)
    for tq in hl.tile(w):
        for tn in hl.tile(n):
            a[tq, tn] = x[tq, tn] + 1
        for tn in hl.tile(y.size(1)):
            b[tq, tn] = y[tq, tn] * 2
    return a, b
