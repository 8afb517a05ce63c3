#!/usr/bin/env python3
"""A planted hang seen from Python: under torchrun with 2 processes, rank 0
runs examples/one_shot_all_reduce.py and rank 1 the same kernel without its
first signal (tests/compiler/Simulator/Inputs/missing-signal.py). Every
rank's first wait must time out (1 s) and dslc.synchronize() must raise
dslc.KernelError whose record names an `hl.wait(` of the rank's source
(file:line:col), the rank and the slot. Exit 0 only then.

  torchrun --nproc-per-node 2 python/tests/gpu/planted_hang.py
  python3 python/tests/gpu/planted_hang.py --precompile   (no GPU)
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "python"))

import dslc  # noqa: E402

SOURCES = [os.path.join(REPO, "examples", "one_shot_all_reduce.py"),
           os.path.join(REPO, "tests", "compiler", "Simulator", "Inputs",
                        "missing-signal.py")]
N = 65536


def main():
    if "--precompile" in sys.argv:
        for r in (0, 1):
            print(dslc.kernel(SOURCES[r]).compile(
                rank=r, world_size=2,
                a_shared=dslc.TensorSpec("bfloat16", (N,))))
        return 0
    import torch
    import torch.distributed as dist
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank = dist.get_rank()
    dslc.init()
    src = SOURCES[min(rank, 1)]
    k = dslc.kernel(src, timeout_ms=1000)
    a = dslc.empty(N, torch.bfloat16)
    a.fill_(1)
    try:
        k(a_shared=a)
        dslc.synchronize()
    except dslc.KernelError as e:
        with open(src) as f:
            lines = f.read().splitlines()
        print(f"rank {rank}: KernelError: {e}")
        ok = (e.rank == rank and e.kind == "wait timed out" and
              e.file == src and 0 < e.line <= len(lines) and
              lines[e.line - 1][e.column - 1:].startswith("hl.wait(") and
              e.expected == 1 and e.seen == 0 and e.slot is not None)
        print(f"rank {rank}: record {e.records[0]!r}: "
              f"{'ok' if ok else 'WRONG'}", flush=True)
        os._exit(0 if ok else 1)   # the CUDA context is gone: no teardown
    print(f"rank {rank}: no KernelError raised", flush=True)
    os._exit(1)


if __name__ == "__main__":
    sys.exit(main())
