# Decorators and configs, several kernels in one file, plain defs, -k.
# RUN: dslc %s --emit=ast | FileCheck %s
# RUN: dslc %s -k second --emit=ast | FileCheck --check-prefix=SECOND %s
# RUN: not dslc %s --emit=ptx 2>&1 | FileCheck --check-prefix=SEVERAL %s
# RUN: not dslc %s -k helper --emit=ast 2>&1 | FileCheck --check-prefix=NOTKERNEL %s
# RUN: not dslc %s -k missing --emit=ast 2>&1 | FileCheck --check-prefix=MISSING %s
# RUN: not dslc %s -k third --emit=ptx -o %t.ptx 2>&1 | FileCheck --check-prefix=NOGRID %s
# RUN: not dslc %s -k third --emit=cubin 2>&1 | FileCheck --check-prefix=CUBIN %s

import functools

import helion
import helion.language as hl
import dslc
import torch

BLOCK = 128


@helion.kernel(
    config=helion.Config(block_sizes=[BLOCK, 16], num_warps=4),
    static_shapes=True,
)
def first(x: torch.Tensor, n: hl.constexpr = 2) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        out[tile] = x[tile] * n
    return out


@helion.jit
def second(xs: tuple[torch.Tensor, ...]):
    for x in xs:
        pass


@dslc.kernel()
def third(x: torch.Tensor[torch.float32, 2]):
    pass


@functools.cache
@other.decorator(1)
def helper(a):
    return a


def plain():
    pass

# CHECK:      (module "{{.*}}kernels.py"
# CHECK:        (assign @17:1
# CHECK-NEXT:     (name @17:1 BLOCK)
# CHECK-NEXT:     (int @17:9 128))
# CHECK-NEXT:   (def @20:1 first kernel
# CHECK-NEXT:     (decorator @20:1
# CHECK-NEXT:       (call @20:2
# CHECK-NEXT:         (attr @20:2 kernel
# CHECK-NEXT:           (name @20:2 helion))
# CHECK-NEXT:         (kwarg @21:5 config
# CHECK-NEXT:           (call @21:12
# CHECK-NEXT:             (attr @21:12 Config
# CHECK-NEXT:               (name @21:12 helion))
# CHECK-NEXT:             (kwarg @21:26 block_sizes
# CHECK-NEXT:               (list @21:38
# CHECK-NEXT:                 (name @21:39 BLOCK)
# CHECK-NEXT:                 (int @21:46 16)))
# CHECK-NEXT:             (kwarg @21:51 num_warps
# CHECK-NEXT:               (int @21:61 4))))
# CHECK-NEXT:         (kwarg @22:5 static_shapes
# CHECK-NEXT:           (bool @22:19 True))))
# CHECK-NEXT:     (param @24:11 x
# CHECK:          (param @24:28 n
# CHECK-NEXT:       (annotation
# CHECK-NEXT:         (attr @24:31 constexpr
# CHECK-NEXT:           (name @24:31 hl)))
# CHECK-NEXT:       (default
# CHECK-NEXT:         (int @24:46 2)))
# CHECK:        (def @31:1 second kernel
# CHECK-NEXT:     (decorator @31:1
# CHECK-NEXT:       (attr @31:2 jit
# CHECK-NEXT:         (name @31:2 helion)))
# CHECK-NEXT:     (param @32:12 xs
# CHECK-NEXT:       (annotation
# CHECK-NEXT:         (subscript @32:16
# CHECK-NEXT:           (name @32:16 tuple)
# CHECK-NEXT:           (tuple @32:22
# CHECK-NEXT:             (attr @32:22 Tensor
# CHECK-NEXT:               (name @32:22 torch))
# CHECK-NEXT:             (ellipsis @32:36)))))
# CHECK:        (def @37:1 third kernel
# CHECK-NEXT:     (decorator @37:1
# CHECK-NEXT:       (call @37:2
# CHECK-NEXT:         (attr @37:2 kernel
# CHECK-NEXT:           (name @37:2 dslc))))
# CHECK:        (def @42:1 helper
# CHECK-NEXT:     (decorator @42:1
# CHECK-NEXT:       (attr @42:2 cache
# CHECK-NEXT:         (name @42:2 functools)))
# CHECK-NEXT:     (decorator @43:1
# CHECK-NEXT:       (call @43:2
# CHECK:        (def @48:1 plain
# CHECK-NEXT:     (body
# CHECK-NEXT:       (pass @49:5))))

# SECOND:      {{^}}(def @31:1 second kernel
# SECOND-NOT:  (def
# SECOND-NOT:  (module

# SEVERAL: dslc: error: '{{.*}}kernels.py' defines 3 kernels (first, second, third); choose one with -k
# NOTKERNEL: dslc: error: 'helper' in '{{.*}}kernels.py' is not a kernel: it has no @helion.kernel, @helion.jit or @dslc.kernel decorator
# MISSING: dslc: error: no kernel named 'missing' in '{{.*}}kernels.py' (its kernels: first, second, third)
# NOGRID: kernels.py:38:5: error: a kernel needs a top-level 'for ... in hl.tile(...)' loop (its grid)
# CUBIN: dslc: error: --emit=cubin writes a binary file; give -o FILE
