# A top-level statement that is not DSL code and is no kernel is host code:
# left out when compiling (a Helion file's launchers and tests), an error
# with --emit=ast. A kernel's errors are always reported.
# RUN: not dslc %s --emit=tile 2>&1 | FileCheck %s
# RUN: not dslc %s --emit=ast 2>&1 | FileCheck --check-prefix=AST %s
import torch
import helion
import helion.language as hl


def launcher(n):
    # AST: error-host-code.py:[[@LINE+1]]:5: error: 'try' statements are not supported
    try:
        return [k for k in range(n)]
    except ValueError:
        raise


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def kernel(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        # CHECK: error-host-code.py:[[@LINE+1]]:9: error: 'with' statements are not supported
        with torch.no_grad():
            out[t] = x[t]
    return out


# CHECK-NOT: error:
# CHECK: 1 error generated.
class Launcher:
    pass
