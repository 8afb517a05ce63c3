# A kernel that writes a tensor and reads it back in the same CTA (Helion's
# squeeze_and_excitation_net does this with c and d), and one whose output's
# [M, N] comes from two tensors' sizes. Checked by
# tests/compiler/Simulator/readback.test and, on a GPU, by
# python/tests/gpu/torch_tests.py (read-after-write).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[2, 2, 2], num_warps=4))
def readback(x: torch.Tensor[torch.float32, 2]) -> torch.Tensor:
    m, n = x.size()
    c = torch.empty([m, n], dtype=x.dtype, device=x.device)
    out = torch.empty([n, m], dtype=x.dtype, device=x.device)
    for tm in hl.tile(m):
        for tn in hl.tile(n):
            c[tm, tn] = x[tm, tn] * 2
        for tn in hl.tile(n):
            out[tn, tm] = c[tm, tn].T + 1
    return out


@helion.kernel(config=helion.Config(block_sizes=[2], num_warps=4))
def readback_ref(x: torch.Tensor[torch.float32, 3]) -> torch.Tensor:
    """Every rank's x stacked on a leading dimension (the references'
    convention), and so its out."""
    w, m, n = x.size()
    out = torch.empty([w, n, m], dtype=x.dtype, device=x.device)
    for tn in hl.tile(n):
        for q in range(w):
            for r in range(m):
                out[q, tn, r] = x[q, r, tn] * 2 + 1
    return out


@helion.kernel(config=helion.Config(block_sizes=[32, 32], num_warps=4))
def outer(x: torch.Tensor[torch.float32, 1],
          y: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty([x.size(0), y.size(0)], dtype=x.dtype, device=x.device)
    for tm, tn in hl.tile([x.size(0), y.size(0)]):
        out[tm, tn] = x[tm][:, None] * y[tn][None, :]
    return out
