import torch
import helion
import helion.language as hl


# Rotary embedding's rotate-half, as Helion's rope.py writes it: the row's
# halves paired by reshape + permute, split, combined, joined back.
@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def rotate_half(x: torch.Tensor, cos: torch.Tensor,
                sin: torch.Tensor) -> torch.Tensor:
    t, d = x.size()
    out = torch.empty_like(x)
    for tt in hl.tile(t):
        pair = (x[tt, :].to(torch.float32).reshape([tt, 2, d // 2])
                .permute(0, 2, 1))
        a, b = hl.split(pair)
        c = cos[tt, :].to(torch.float32)
        s = sin[tt, :].to(torch.float32)
        out[tt, :] = (hl.join(a * c - b * s, b * c + a * s).permute(0, 2, 1)
                      .reshape([tt, d]).to(out.dtype))
    return out
