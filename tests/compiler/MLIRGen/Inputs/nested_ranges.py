"""Writes a kernel that unrolls too much, for
tests/compiler/MLIRGen/unroll-bound.test:
  nested_ranges.py nest   30 nested `range(2)` loops (2^30 copies of the
                          innermost statement: past kMaxUnrolledBodies)
  nested_ranges.py wide   a 1000-iteration hl.static_range whose body holds
                          100 statements (1000 bodies, 100000 statements:
                          past kMaxGeneratedStatements only)
for tests/compiler/MLIRGen/per-thread-work.test:
  nested_ranges.py straight  40 statements without a loop, each a load and
                          an add of 256 elements per thread (block 8192,
                          one warp): past kMaxPerThreadWork at the 33rd"""
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
if mode == "straight":
    lines[4] = ("@helion.kernel(config=helion.Config(block_sizes=[8192], "
                "num_warps=1))")
    lines[-1] = "        y = x[t]"
    lines += ["        y = y + x[t]"] * 40
    lines += ["        out[t] = y", "    return out"]
    print("\n".join(lines))
    sys.exit(0)
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
