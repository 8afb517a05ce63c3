#!/usr/bin/env python3
"""Host time per call of a dslc.kernel from Python, against PyTorch's own
ops, on one GPU (world 1):

  python3 benchmarks/kernel_overhead.py [--calls 500] [--reps 5] [--csv FILE]

Rows, each the median of --reps samples of --calls back-to-back calls
(host wall time divided; the launch queue is far from full for the tiny
product used, 16 x 64 by 64 x 64 bf16, so the host is what is timed):
  dslc (fast path)   examples/matmul.py's kernel called positionally, the
                     call like the last one (Kernel._fast_key: only new
                     addresses rebound; docs/python.md)
  dslc (full path)   the same with the fast key off: every call's arguments
                     checked and its instance looked up
  torch.matmul       x @ y
  torch add          x + x
The kernel's result is checked against torch first, and again after a call
with another x (the fast path's rebinding)."""

import argparse
import csv
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))


def host_us(torch, fn, calls):
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    us = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    return us


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--csv")
    args = ap.parse_args()
    import torch
    import dslc
    from dslc import _kernel
    dslc.init()
    k = dslc.kernel(os.path.join(os.path.dirname(HERE), "examples",
                                 "matmul.py"), "matmul")
    x = torch.randn(16, 64, dtype=torch.bfloat16, device="cuda")
    y = torch.randn(64, 64, dtype=torch.bfloat16, device="cuda")

    def check(a):
        err = (k(a, y).float() - a.float() @ y.float()).abs().max().item()
        if not err < 0.1:
            raise SystemExit(f"kernel_overhead: wrong result ({err})")
    check(x)
    fast = _kernel.Kernel._fast_key
    rows = []
    for name, full, fn in [("dslc (fast path)", False, lambda: k(x, y)),
                           ("dslc (full path)", True, lambda: k(x, y)),
                           ("torch.matmul", False, lambda: x @ y),
                           ("torch add", False, lambda: x + x)]:
        _kernel.Kernel._fast_key = (lambda self, *a: None) if full else fast
        host_us(torch, fn, args.calls)     # warm-up
        samples = [host_us(torch, fn, args.calls) for _ in range(args.reps)]
        rows.append({"impl": name, "host_us": statistics.median(samples),
                     "min_us": min(samples)})
        print(f"{name:18} host us/call {rows[-1]['host_us']:7.1f} (min "
              f"{rows[-1]['min_us']:.1f})", flush=True)
    _kernel.Kernel._fast_key = fast
    check(torch.randn(16, 64, dtype=torch.bfloat16, device="cuda"))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, ["date", "device", "impl", "host_us",
                                   "min_us"])
            w.writeheader()
            for r in rows:
                w.writerow(dict(r, date=time.strftime("%Y-%m-%d"),
                                device=torch.cuda.get_device_name()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
