"""A user's own fused collective: all-reduce + bias + SiLU, scaled.

    out = silu(alpha * sum over ranks of x + bias)      silu(v) = v * sigmoid(v)

the tensor-parallel step after a row-parallel linear layer whose activation
follows at once. Written for tests/examples/user-fused-kernel.test, which
shows that a kernel none of our tools knows runs through `dslc --simulate`,
`dslrun` and `tuner compile/run/bench` with its DSL reference alone (docs/
fused.md walks through it).

One CTA per token row: the row of x goes to every peer's LL packet scratch
(one-shot, as examples/fused_all_reduce_rmsnorm.py), the world_size rows
that arrive are summed in fp32 in rank order (every rank gets the same
bits), then scaled, biased and activated in registers. alpha and H are
compiled in (`-D alpha=0.5 -D H=4096`; the reference takes the same -D).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=8))
def all_reduce_bias_silu_kernel(
    x: torch.Tensor[torch.bfloat16, 2],  # this rank's partial sums [T, H]
    bias: torch.Tensor[torch.bfloat16, 1],  # [H]
    out: torch.Tensor[torch.bfloat16, 2],  # written: silu(alpha * sum + bias)
    scratch: torch.Tensor[torch.int64, 1],  # symmetric LL packet scratch
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
    alpha: hl.constexpr = 1.0,
):
    T, H = x.size()
    H = hl.specialize(H)
    assert bias.size(0) == H
    assert out.size(1) == H
    peers = torch.ops.symm_mem.get_remote_tensors(scratch, "")
    for t in hl.grid(T):
        flag = hl.epoch()
        packets = H * x.element_size() // 8
        parity = flag % 2
        mine = x[t, :]
        for peer in peers:
            slot = ((parity * world_size + my_rank) * T + t) * packets
            hl.ll_put(peer, slot, mine, flag)
        acc = hl.zeros([H], dtype=torch.float32)
        for r in range(world_size):
            slot = ((parity * world_size + r) * T + t) * packets
            acc = acc + hl.ll_get(scratch, slot, flag, [H], dtype=x.dtype)
        v = acc * alpha + bias[:].to(torch.float32)
        out[t, :] = (v * torch.sigmoid(v)).to(out.dtype)


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=8))
def all_reduce_bias_silu_ref(
    x: torch.Tensor[torch.bfloat16, 3],  # [world_size, T, H]: every rank's x
    bias: torch.Tensor[torch.bfloat16, 2],  # [world_size, H]
    out: torch.Tensor[torch.bfloat16, 3],  # [world_size, T, H]: expected
    world_size: hl.constexpr,
    alpha: hl.constexpr = 1.0,
):
    """Rank p's output from every rank's inputs, in float64."""
    _, T, H = x.size()
    H = hl.specialize(H)
    assert bias.size(1) == H
    assert out.size(2) == H
    for t in hl.grid(T):
        total = hl.zeros([H], dtype=torch.float64)
        for r in range(world_size):
            total = total + x[r, t, :].to(torch.float64)
        for p in range(world_size):
            v = total * alpha + bias[p, :].to(torch.float64)
            out[p, t, :] = (v * torch.sigmoid(v)).to(out.dtype)
