# A user's kernel (not an example) and its DSL reference: SiLU(gate) * x *
# alpha. The reference takes every rank's tensors stacked ([world, ...]),
# as `--reference` and the tuner's any-kernel mode bind it
# (tests/examples/user-kernel-autotune.test, python/tests/gpu/torch_tests.py
# user-kernel-autotune; user-kernel-compile reads it as source text).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[2, 512], num_warps=4))
def silu_gate_scale(
    x: torch.Tensor[torch.bfloat16, 2],
    gate: torch.Tensor[torch.bfloat16, 2],
    alpha: float = 0.5,
) -> torch.Tensor:
    out = torch.empty_like(x)
    for tm, tn in hl.tile([x.size(0), x.size(1)]):
        g = gate[tm, tn].to(torch.float32)
        y = x[tm, tn].to(torch.float32) * (g * torch.sigmoid(g)) * alpha
        out[tm, tn] = y.to(x.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1, 1024], num_warps=4))
def silu_gate_scale_ref(
    x: torch.Tensor[torch.bfloat16, 3],
    gate: torch.Tensor[torch.bfloat16, 3],
    alpha: float = 0.5,
) -> torch.Tensor:
    out = torch.empty_like(x)
    for tw, tm, tn in hl.tile([x.size(0), x.size(1), x.size(2)]):
        g = gate[tw, tm, tn].to(torch.float32)
        y = x[tw, tm, tn].to(torch.float32) * (g * torch.sigmoid(g)) * alpha
        out[tw, tm, tn] = y.to(x.dtype)
    return out
