# Outputs are named as the kernel names them (output-names.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def two_outputs(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = x.size()
    y = torch.empty_like(x)
    rstd = torch.empty([m], dtype=torch.float32, device=x.device)
    for t in hl.tile(m):
        row = x[t, :].to(torch.float32)
        r = torch.rsqrt(torch.mean(row * row, dim=-1) + 1e-6)
        y[t, :] = (row * r[:, None]).to(x.dtype)
        rstd[t] = r
    return y, rstd


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def reassigned(x: torch.Tensor) -> torch.Tensor:
    src = x
    x = torch.empty_like(src)
    for t in hl.tile(src.size(0)):
        x[t] = src[t] * 2
    return x
