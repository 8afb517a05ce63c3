# A kernel whose return views its tensors as Helion's callers see them
# (test_roles.py: the metadata's "returns" and its "views").
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def viewed(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    inv = torch.empty([m], dtype=torch.float32, device=x.device)
    for t in hl.tile(m):
        out[t, :] = x[t, :] * 2
        inv[t] = x[t, :].sum(-1)
    return out, inv.reshape(-1, 1), out.view(n, m)
