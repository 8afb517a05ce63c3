"""Writes a kernel with 30 nested `range(2)` loops (2^30 unrolled copies of
the innermost statement), for tests/compiler/MLIRGen/unroll-bound.test."""
lines = [
    "import torch", "import helion", "import helion.language as hl", "",
    "@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))",
    "def nest(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:",
    "    out = torch.empty_like(x)",
    "    for t in hl.tile(x.size(0)):",
    "        k = 0",
]
indent = "        "
for i in range(30):
    lines.append(f"{indent}for i{i} in range(2):")
    indent += "    "
lines += [indent + "k = k + 1", "        out[t] = x[t] + k", "    return out"]
print("\n".join(lines))
