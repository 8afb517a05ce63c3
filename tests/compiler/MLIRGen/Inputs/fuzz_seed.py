# A second seed for the backend fuzzer: scalars, nested tiles with a carried
# accumulator, constant loops and branches, dtype conversion.
from __future__ import annotations

import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def scaled_rows(
    x: torch.Tensor[torch.float16, 2],
    scale: float,
    n: int,
    k: hl.constexpr = 2,
) -> torch.Tensor:
    out = torch.empty_like(x, dtype=torch.float32)
    rows, cols = x.size()
    for t in hl.tile(cols):
        acc = hl.zeros([t], dtype=torch.float32)
        for r in hl.tile(rows, block_size=1):
            acc += x[r.begin, t]
        for i in range(k):
            if k > 1:
                acc = acc * 2.0
        out[0, t] = acc
    return out
