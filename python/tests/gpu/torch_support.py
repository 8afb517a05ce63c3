"""What python/tests/gpu/torch_tests.py's cases share: the repository's
paths, the kernels they call and their sizes, the case registry and the
result check. Importable without torch (torch_tests.py --precompile runs
on the build machine)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "python"))

import dslc  # noqa: E402

ONE_SHOT = os.path.join(REPO, "examples", "one_shot_all_reduce.py")
LL_ONE_SHOT = os.path.join(REPO, "examples", "ll_one_shot_all_reduce.py")
FUSED = os.path.join(REPO, "examples", "fused_all_reduce_rmsnorm.py")
RMSNORM = os.path.join(REPO, "examples", "rmsnorm.py")
TUPLE = os.path.join(REPO, "tests", "compiler", "MLIRGen", "Inputs",
                     "helion_spelling.py")
# (file, data parameter, sizes) of every kernel call below and in the
# README example
KERNEL_SIZES = [(ONE_SHOT, "a_shared", (4096, 8192, 100003)),  # 8192: README
                (LL_ONE_SHOT, "a", (1024, 4096, 65539))]
H = 2048                      # hidden size of the fused cases (-D H)
TOKENS = (3, 32)              # token counts: one cubin for both
TUPLE_N = 4096


def fused_kernel():
    return dslc.kernel(FUSED, "fused_all_reduce_rmsnorm_kernel",
                       dslc_args=("-D", f"H={H}"))


def rmsnorm_kernel():
    return dslc.kernel(RMSNORM, "rmsnorm_kernel", dslc_args=("-D", f"H={H}"))


def tuple_kernel():
    return dslc.kernel(TUPLE, "tuple_all_reduce")


# A user's kernel (not an example), given to dslc.kernel as source text
# (`source=`): the file also holds its DSL reference (user-kernel-autotune).
USER_KERNEL_FILE = os.path.join(REPO, "tests", "examples", "Inputs",
                                "silu_gate_scale.py")


def user_kernel():
    with open(USER_KERNEL_FILE) as f:
        return dslc.kernel(source=f.read(), name="silu_gate_scale")


def precompile(world):
    S = dslc.TensorSpec
    for r in range(world):
        rows = S("bfloat16", (37, 1000))
        print(user_kernel().compile(rows, rows, rank=r, world_size=world))
    for path, param, sizes in KERNEL_SIZES:
        k = dslc.kernel(path)
        for n in sizes:
            for r in range(world):
                print(k.compile(rank=r, world_size=world, **{
                    param: S("bfloat16", (n,))}))
    for r in range(world):
        for t in TOKENS:
            rows = S("bfloat16", (t, H))
            print(fused_kernel().compile(rows, rows, S("bfloat16", (H,)),
                                         rows, rows, rank=r,
                                         world_size=world))
            print(rmsnorm_kernel().compile(rows, rows, S("bfloat16", (H,)),
                                           rows, rows, rank=r,
                                           world_size=world))
        copies = tuple(S("bfloat16", (TUPLE_N,)) for _ in range(world))
        print(tuple_kernel().compile(S("uint64", (world,)),
                                     S("int32", (64, world)), copies,
                                     rank=r, world_size=world))


CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def close(got, ref, what, rtol=1e-2, atol=2e-2):
    import torch
    g, r = got.float(), ref.float()
    if g.shape != r.shape:
        raise AssertionError(f"{what}: shape {tuple(g.shape)}, expected "
                             f"{tuple(r.shape)}")
    bad = ~torch.isclose(g, r, rtol=rtol, atol=atol)
    if bad.any():
        i = int(bad.nonzero()[0])
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {g.numel()} elements differ; first "
            f"at {i}: got {g.flatten()[i].item()}, expected "
            f"{r.flatten()[i].item()}")


class Ctx:
    pass


def rand(n, dtype, seed):
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(n, generator=g, device="cuda").to(dtype)
