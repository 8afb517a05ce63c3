"""All-reduce + residual add + RMSNorm + fp8 quantization in one kernel.

examples/fused_all_reduce_rmsnorm.py (one-shot over LL packets, for few
tokens) with one more output: the normalized rows quantized to fp8 e4m3
with a per-tensor scale, the input of the next layer's fp8 GEMM
(TensorRT-LLM's and FlashInfer's allreduce_fusion, kind
kARResidualRMSNormOutFP8Quant; vLLM's static per-tensor fp8 quantization):

    residual_out = sum over ranks of x + residual
    out          = rmsnorm(residual_out) * weight              (x's dtype)
    out_fp8      = saturate(out / scale)                         (float8_e4m3fn)

scale is a tensor of one float32 on the device (so a CUDA graph replays
with whatever scale it holds); saturate clamps to the format's finite
range [-448, 448] (e4m3fn has no infinity; PyTorch's plain conversion would
give NaN beyond it). out_fp8 is quantized from out as stored (rounded to
x's dtype), as the unfused pair (RMSNorm kernel, then a quantize kernel)
does, and rounded to nearest even.

Everything else (LL16 packets, epoch flags, parity double buffer, sizes,
the scratch) is as in examples/fused_all_reduce_rmsnorm.py.

Reference: fused_all_reduce_rmsnorm_fp8_ref below (float64; fp8 output
checked within the format's rounding).

Compile:  dslc examples/fused_all_reduce_rmsnorm_fp8.py -k fused_all_reduce_rmsnorm_fp8_kernel \\
              -D my_rank=0 -D world_size=2 -D H=8192 --emit=cubin -o fused8.cubin
"""

# Checked against its reference by tests/examples/ (it needs sizes and -D H;
# tests/compiler/Simulator/examples.test skips files with this line).
from __future__ import annotations

import torch

import helion
import helion.language as hl


def quantize_fp8(v, scale, fp8_max=448.0):
    """Values divided by a scale (a [1] tile of the same float type),
    saturated to e4m3fn's finite range (448 is its largest value)."""
    return torch.clamp(v / scale, min=-fp8_max, max=fp8_max).to(torch.float8_e4m3fn)


def rmsnorm_row(v, weight, eps):
    """An fp32 row [H] normalized by its root mean square, times weight."""
    variance = torch.mean(v * v, dim=-1)
    return v * torch.rsqrt(variance + eps) * weight[:].to(torch.float32)


# 16 warps, as the bf16 kernel: bf16 moves most of the bytes, so a thread's
# piece is 8 elements (16 bytes of bf16; 8 bytes of the fp8 output).
@helion.kernel(config=helion.Config(block_sizes=[], num_warps=16))
def fused_all_reduce_rmsnorm_fp8_kernel(
    x: torch.Tensor[torch.bfloat16, 2],  # this rank's partial sums [T, H]
    residual: torch.Tensor[torch.bfloat16, 2],  # [T, H]
    weight: torch.Tensor[torch.bfloat16, 1],  # [H]
    out: torch.Tensor[torch.bfloat16, 2],  # written: the normalized rows
    residual_out: torch.Tensor[torch.bfloat16, 2],  # written: sum + residual
    scale: torch.Tensor[torch.float32, 1],  # [1]: the per-tensor fp8 scale
    out_fp8: torch.Tensor[torch.float8_e4m3fn, 2],  # written: saturate(out / scale)
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
    assert scale.size(0) == 1
    assert out_fp8.size(1) == H
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
        normed = rmsnorm_row(summed.to(torch.float32), weight, eps).to(out.dtype)
        out[t, :] = normed
        out_fp8[t, :] = quantize_fp8(normed.to(torch.float32), scale[:])


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=16))
def fused_all_reduce_rmsnorm_fp8_ref(
    x: torch.Tensor[torch.bfloat16, 3],  # [world_size, T, H]: every rank's x
    residual: torch.Tensor[torch.bfloat16, 3],
    weight: torch.Tensor[torch.bfloat16, 2],  # [world_size, H]
    out: torch.Tensor[torch.bfloat16, 3],  # [world_size, T, H]: expected
    residual_out: torch.Tensor[torch.bfloat16, 3],
    scale: torch.Tensor[torch.float32, 2],  # [world_size, 1]
    out_fp8: torch.Tensor[torch.float8_e4m3fn, 3],
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
    assert scale.size(1) == 1
    assert out_fp8.size(2) == H
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
            rounded = normed.to(out.dtype)
            out[p, t, :] = rounded
            out_fp8[p, t, :] = quantize_fp8(rounded.to(torch.float64),
                                            scale[p, :].to(torch.float64))
