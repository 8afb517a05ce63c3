#!/usr/bin/env python3
"""Per-call overhead of dslc.all_reduce from Python against the raw C API
call, on a 1K-element bf16 tensor, one process per GPU:

  DSLC_BUILD_DIR=build torchrun --standalone --nproc-per-node 2 \\
      benchmarks/dslc_overhead.py [--c-baseline US] [--csv FILE]
  (the C baseline, US: torchrun --standalone --nproc-per-node 2 \\
      --no-python build/bin/dslc-capi-overhead, its "C host us/call")

Implementations, all on torch's current stream, same tensor:
  dslc.all_reduce         the package's eager path (python/dslc/
                          _collectives.py) through the _fastcall extension
  dslc.all_reduce ctypes  the same path with the C call through ctypes (the
                          fallback when the extension is not built)
  raw _fastcall           dslcAllReduce through the extension, every
                          argument made beforehand
  raw ctypes              dslcAllReduce through ctypes, arguments made
                          beforehand
  dist.all_reduce         PyTorch's NCCL, for reference
  C (capi_overhead)       --c-baseline: the host column only, measured by
                          build/bin/dslc-capi-overhead in its own processes
Measures, median of --reps samples:
  host us/call       wall time of --calls back-to-back calls on the host,
                     divided (calls well below the launch queue's depth,
                     then a synchronize outside the timing)
  eager us/call      CUDA events around --calls back-to-back calls
  graph us/call      one CUDA graph holding --calls calls, events around a
                     replay (no host code runs in a replay: every binding
                     gives the C API's captured launch)
Issue 13's bar: host(dslc.all_reduce) - C host <= 1 us. The verdict line
compares with --c-baseline; without it, only the Python-side costs over the
raw calls are printed (no verdict). Without the extension the _fastcall rows
are absent and dslc.all_reduce is the ctypes path. The dispatch choice
(kernel or NCCL) is printed: with no tuned kernel every row goes to NCCL.
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import dslc  # noqa: E402
from dslc import _capi, _collectives  # noqa: E402


def median_of(fn, reps):
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        dist.barrier()
        out.append(fn())
    return statistics.median(out)


def timed_rows(impls, a):
    """[(name, host, eager, graph)] for each (name, call, capture) of
    impls; capture(stream) returns the call to put in a graph."""
    calls = a.calls
    rows = []
    for name, call, capture in impls:
        def host():
            t0 = time.perf_counter()
            for _ in range(calls):
                call()
            return (time.perf_counter() - t0) * 1e6 / calls

        def eager():
            s, e = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            s.record()
            for _ in range(calls):
                call()
            e.record()
            torch.cuda.synchronize()
            return s.elapsed_time(e) * 1000 / calls

        g = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            captured = capture(side.cuda_stream)
            with torch.cuda.graph(g, stream=side):
                for _ in range(calls):
                    captured()
        torch.cuda.current_stream().wait_stream(side)

        def graph():
            s, e = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            s.record()
            g.replay()
            e.record()
            torch.cuda.synchronize()
            return s.elapsed_time(e) * 1000 / calls

        rows.append((name, median_of(host, a.reps), median_of(eager, a.reps),
                     median_of(graph, a.reps)))
        del g
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--c-baseline", type=float, default=None, metavar="US",
                    help="host us/call of build/bin/dslc-capi-overhead")
    ap.add_argument("--csv", default="")
    a = ap.parse_args()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    dslc.init()
    t = torch.ones(a.n, dtype=torch.bfloat16, device="cuda")
    for _ in range(10):
        dslc.all_reduce(t)      # makes the kernel instance, warms up
        dist.all_reduce(t)
    torch.cuda.synchronize()
    coll = _collectives._get()
    ext = _capi.fastcall()
    h, p, n = coll.hv, t.data_ptr(), t.numel()
    stream = torch.cuda.current_stream().cuda_stream
    bf16, op = b"bfloat16", b"sum"

    def raw(fn):
        def call():
            fn(h, 0, p, p, n, bf16, op, stream)

        def capture(s):
            return lambda: fn(h, 0, p, p, n, bf16, op, s)
        return call, capture

    def same(call):
        return lambda s: call

    impls = []
    if ext is not None:
        coll.bind(True)
        impls.append(("dslc.all_reduce", lambda: dslc.all_reduce(t),
                      same(lambda: dslc.all_reduce(t))))
    rows = timed_rows(impls, a)
    coll.bind(False)
    rows += timed_rows([("dslc.all_reduce ctypes", lambda: dslc.all_reduce(t),
                         same(lambda: dslc.all_reduce(t)))], a)
    coll.bind(True)
    impls = []
    if ext is not None:
        impls.append(("raw _fastcall", *raw(_capi.hot("dslcAllReduce"))))
    impls.append(("raw ctypes", *raw(_capi.hot("dslcAllReduce", False))))
    impls.append(("dist.all_reduce", lambda: dist.all_reduce(t),
                  same(lambda: dist.all_reduce(t))))
    rows += timed_rows(impls, a)
    choice = dslc.choice("all_reduce", a.n, torch.bfloat16)
    if rank == 0:
        report(rows, a, world, choice, ext)
    dslc.shutdown()
    dist.destroy_process_group()


def report(rows, a, world, choice, ext):
    by = {r[0]: r for r in rows}
    print(f"dslc_overhead: n={a.n} bf16, world {world}, {a.calls} calls per "
          f"sample, median of {a.reps}; dispatch: {choice}")
    print(f"fastcall extension: {ext.__file__ if ext else 'not built (ctypes)'}")
    print(f"{'impl':<24} {'host us/call':>13} {'eager us/call':>14} "
          f"{'graph us/call':>14}")
    for r in rows:
        print(f"{r[0]:<24} {r[1]:13.3f} {r[2]:14.3f} {r[3]:14.3f}")
    if a.c_baseline is not None:
        print(f"{'C (capi_overhead)':<24} {a.c_baseline:13.3f} "
              f"{'-':>14} {'-':>14}")
    pkg = by.get("dslc.all_reduce") or by["dslc.all_reduce ctypes"]
    rawc = by.get("raw _fastcall") or by["raw ctypes"]
    print(f"package Python over its raw call: {pkg[1] - rawc[1]:.3f} us/call "
          f"({pkg[0]} - {rawc[0]})")
    if a.c_baseline is None:
        print("verdict: none (pass --c-baseline US, the host us/call of "
              "build/bin/dslc-capi-overhead)")
    else:
        for r in dict.fromkeys((pkg, by["dslc.all_reduce ctypes"])):
            d = r[1] - a.c_baseline
            print(f"verdict: {r[0]} is {d:.3f} us/call over the C call "
                  f"({'within' if d <= 1.0 else 'MORE THAN'} issue 13's 1 us)")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("impl,n,host_us,eager_us,graph_us,dispatch\n")
            for r in rows:
                f.write(f"{r[0]},{a.n},{r[1]:.3f},{r[2]:.3f},{r[3]:.3f},"
                        f"{choice.split(':')[0]}\n")
            if a.c_baseline is not None:
                f.write(f"C (capi_overhead),{a.n},{a.c_baseline:.3f},,,"
                        f"{choice.split(':')[0]}\n")

if __name__ == "__main__":
    main()
