"""Kernels written as decorated Python functions (used by test_compile).
Without torch or helion installed: annotations are not evaluated (the
__future__ import) and the body never runs in Python; dslc compiles it."""
from __future__ import annotations

import dslc

CONFIG = {"block_sizes": [64], "num_warps": 2}


@dslc.kernel(config=CONFIG)
def good_kernel(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:  # noqa: F821
    out = torch.empty_like(x)  # noqa: F821
    for t in hl.tile(x.size(0)):  # noqa: F821
        out[t] = x[t] + 1.0
    return out


@dslc.kernel(config=CONFIG)
def bad_kernel(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:  # noqa: F821
    out = torch.empty_like(x)  # noqa: F821
    for t in hl.tile(x.size(0)):  # noqa: F821
        out[t] = x[t] + undefined_name[t]  # noqa: F821
    return out


BAD_LINE = 23
