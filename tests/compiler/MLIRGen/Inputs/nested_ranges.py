"""Writes a kernel that unrolls too much, for
tests/compiler/MLIRGen/unroll-bound.test:
  nested_ranges.py nest   30 nested `range(2)` loops (2^30 copies of the
                          innermost statement: past kMaxUnrolledBodies)
  nested_ranges.py wide   a 1000-iteration hl.static_range whose body holds
                          100 statements (1000 bodies, 100000 statements:
                          past kMaxGeneratedStatements only)"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "nest"
lines = [
    "import torch", "import helion", "import helion.language as hl", "",
    "@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))",
    "def nest(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:",
    "    out = torch.empty_like(x)",
    "    for t in hl.tile(x.size(0)):",
    "        k = 0",
]
if mode == "nest":
    indent = "        "
    for i in range(30):
        lines.append(f"{indent}for i{i} in range(2):")
        indent += "    "
    lines.append(indent + "k = k + 1")
else:
    lines.append("        for i in hl.static_range(1000):")
    lines += ["            k = k + 1"] * 100
lines += ["        out[t] = x[t] + k", "    return out"]
print("\n".join(lines))
