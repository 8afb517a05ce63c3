"""All-reduce + residual add + RMSNorm in one kernel, one-shot over LL packets.

The tensor-parallel step between two layers of a transformer: every rank
holds a partial sum x of the hidden states [tokens T, hidden H]; the layer
needs

    residual_out = sum over ranks of x + residual
    out          = residual_out * rsqrt(mean(residual_out ** 2) + eps) * weight

on every rank (TensorRT-LLM's and FlashInfer's allreduce_fusion, kind
kARResidualRMSNorm). Unfused, that is an all-reduce (NCCL) and an add +
RMSNorm kernel, each a round trip through HBM and a launch.

One CTA per token row (`hl.grid(T)`). It sends its row of x to every peer's
packet scratch as LL16 packets (8 data bytes and the flag twice in one
16-byte store), then polls the world_size rows that arrive in its own
scratch, adds them to its residual row in fp32 (ranks in order 0, 1, ...,
so every rank gets the same bits), and normalizes the row in registers: one
one-way trip over NVLink, no barrier, no flag reset, no second kernel. As
in examples/ll_one_shot_all_reduce.py the flag is the CTA's launch counter
(`hl.epoch()`) and the scratch is double-buffered by its parity, so calls
back to back and CUDA-graph replays need no host work.

residual_out is stored in the input's dtype and the norm is taken of that
rounded value, as the unfused pair (all-reduce, then add + RMSNorm) does.

This is the kernel for few tokens (decode: 1-128): every rank receives
every row from every peer. For many tokens use
examples/fused_all_reduce_rmsnorm_two_shot.py, which moves each row over
NVLink once each way.

Sizes: H is compiled in (`-D H=8192`; any H from 8 up to 16384 and beyond
within 256 elements per thread: H <= 256 * 32 * num_warps); T is free.
The LL scratch (symmetric int64, zeroed once) holds 2 parities x world_size
senders x T rows x 2 * H * element_size bytes: 4 * world_size * T * H *
element_size bytes (8 ranks, 128 tokens, H 8192, bf16: 64 MiB).

Outputs are parameters (the caller allocates them, as allreduce_fusion's
callers do): out and residual_out, [T, H] like x.

Reference: fused_all_reduce_rmsnorm_ref below, a plain tile kernel over
every rank's inputs stacked on a leading [world_size, ...] dimension, in
float64 (dslc --simulate, dslrun and tuner take it by
`--reference examples/fused_all_reduce_rmsnorm.py:fused_all_reduce_rmsnorm_ref`).

Compile:  dslc examples/fused_all_reduce_rmsnorm.py -k fused_all_reduce_rmsnorm_kernel \\
              -D my_rank=0 -D world_size=2 -D H=8192 --emit=cubin -o fused.cubin
Simulate: dslc examples/fused_all_reduce_rmsnorm.py -k fused_all_reduce_rmsnorm_kernel \\
              --simulate --world-size 4 -D H=2048 --size x=7x2048 --size residual=7x2048 \\
              --size weight=2048 --size out=7x2048 --size residual_out=7x2048 \\
              --reference examples/fused_all_reduce_rmsnorm.py:fused_all_reduce_rmsnorm_ref
"""

# Checked against its reference by tests/examples/ (it needs sizes and -D H;
# tests/compiler/Simulator/examples.test skips files with this line).
from __future__ import annotations

import torch

import helion
import helion.language as hl


def rmsnorm_row(v, weight, eps):
    """An fp32 row [H] normalized by its root mean square, times weight."""
    variance = torch.mean(v * v, dim=-1)
    return v * torch.rsqrt(variance + eps) * weight[:].to(torch.float32)


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=16))
def fused_all_reduce_rmsnorm_kernel(
    x: torch.Tensor[torch.bfloat16, 2],  # this rank's partial sums [T, H]
    residual: torch.Tensor[torch.bfloat16, 2],  # [T, H]
    weight: torch.Tensor[torch.bfloat16, 1],  # [H]
    out: torch.Tensor[torch.bfloat16, 2],  # written: the normalized rows
    residual_out: torch.Tensor[torch.bfloat16, 2],  # written: sum + residual
    scratch: torch.Tensor[torch.int64, 1],  # symmetric LL packet scratch
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
    eps: hl.constexpr = 1e-6,
):
    T, H = x.size()
    H = hl.specialize(H)
    assert residual.size(1) == H
    assert weight.size(0) == H
    assert out.size(1) == H
    assert residual_out.size(1) == H
    peers = torch.ops.symm_mem.get_remote_tensors(scratch, "")
    for t in hl.grid(T):
        flag = hl.epoch()
        # A row in 16-byte packets of 8 data bytes; one region per parity
        # and sender, one row of packets per token.
        packets = H * x.element_size() // 8
        parity = flag % 2
        mine = x[t, :]
        for peer in peers:
            slot = ((parity * world_size + my_rank) * T + t) * packets
            hl.ll_put(peer, slot, mine, flag)
        acc = residual[t, :].to(torch.float32)
        for r in range(world_size):
            slot = ((parity * world_size + r) * T + t) * packets
            acc = acc + hl.ll_get(scratch, slot, flag, [H], dtype=x.dtype)
        summed = acc.to(residual_out.dtype)
        residual_out[t, :] = summed
        out[t, :] = rmsnorm_row(summed.to(torch.float32), weight, eps).to(out.dtype)


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=16))
def fused_all_reduce_rmsnorm_ref(
    x: torch.Tensor[torch.bfloat16, 3],  # [world_size, T, H]: every rank's x
    residual: torch.Tensor[torch.bfloat16, 3],
    weight: torch.Tensor[torch.bfloat16, 2],  # [world_size, H]
    out: torch.Tensor[torch.bfloat16, 3],  # [world_size, T, H]: expected
    residual_out: torch.Tensor[torch.bfloat16, 3],
    world_size: hl.constexpr,
    eps: hl.constexpr = 1e-6,
):
    """Rank p's outputs from every rank's inputs, in float64."""
    _, T, H = x.size()
    H = hl.specialize(H)
    assert residual.size(2) == H
    assert weight.size(1) == H
    assert out.size(2) == H
    assert residual_out.size(2) == H
    for t in hl.grid(T):
        total = hl.zeros([H], dtype=torch.float64)
        for r in range(world_size):
            total = total + x[r, t, :].to(torch.float64)
        for p in range(world_size):
            summed = (total + residual[p, t, :].to(torch.float64)).to(residual_out.dtype)
            residual_out[p, t, :] = summed
            v = summed.to(torch.float64)
            variance = torch.mean(v * v, dim=-1)
            normed = v * torch.rsqrt(variance + eps) * weight[p, :].to(torch.float64)
            out[p, t, :] = normed.to(out.dtype)
