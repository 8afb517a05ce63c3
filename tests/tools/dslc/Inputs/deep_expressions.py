"""Writes a kernel whose expressions reach the frontend's limits: a 999-term
sum (height 999 of the 1000 allowed), 255 nested parentheses and an
unrolled range, for tests/tools/dslc/stack.test."""
import sys

terms = " + ".join(["1"] * 999)
parens = "(" * 255 + "1" + ")" * 255
print(f"""import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[256], num_warps=4))
def deep(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        k = {terms}
        j = {parens}
        out[t] = x[t] + k + j
    return out
""")
