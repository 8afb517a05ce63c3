#!/usr/bin/env python3
"""Times PyTorch's all-reduces next to ours: torch.ops.symm_mem.one_shot_all_reduce,
torch.ops.symm_mem.two_shot_all_reduce_ and dist.all_reduce (NCCL), eager
and CUDA-graph, every result checked, on 2 GPUs of one host, two processes;
with --dslc also dslc.all_reduce (the Python package, python/dslc: the tuned
kernel of $DSLC_KERNEL_DIR / the tuning cache for the size, else NCCL) in the
same processes, on the same plain tensor as dist.all_reduce.

Writes a CSV in the column format of `tuner bench --csv` (docs/benchmark.md),
so the files concatenate and scripts/plot-bench.py plots them together:

  python3 benchmarks/pytorch_symm_mem.py --sizes 1K..64M --csv $OUT/torch.csv
  DSLC_BUILD_DIR=build DSLC_KERNEL_DIR=cand/ar \
      python3 benchmarks/pytorch_symm_mem.py --dslc --csv $OUT/torch.csv

NVLink multicast is never used (the environment below is set before torch
is imported). Timing: per size and implementation, a warm-up, then
--reps samples of --iters back-to-back calls (eager) or graph replays, each
timed with CUDA events on rank 0's stream between barriers; the median per
call. Check: inputs drawn fresh per size, output poisoned (NaN) first, the
result compared with a float64 sum of every rank's input by
||out - ref|| / ||ref|| (bf16: below 1e-2; NaN fails).
"""

import os

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")
os.environ.setdefault("NVSHMEM_DISABLE_NVLS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402

from bench_common import below_floor, parse_sizes, time_calls  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "bfloat16": torch.bfloat16,
          "f16": torch.float16, "float16": torch.float16,
          "f32": torch.float32, "float32": torch.float32}
DTYPE_NAMES = {torch.bfloat16: "bfloat16", torch.float16: "float16",
               torch.float32: "float32"}
TOL = {torch.bfloat16: 1e-2, torch.float16: 1e-3, torch.float32: 1e-5}


def inputs(n, rank, world, seed, dtype):
    """This rank's input and the float64 reference (every rank's inputs are
    drawn from per-rank seeds, so each rank can compute the sum)."""
    ref = torch.zeros(n, dtype=torch.float64)
    mine = None
    for r in range(world):
        g = torch.Generator().manual_seed(seed * 1000 + r)
        x = torch.randn(n, generator=g).to(dtype)
        ref += x.to(torch.float64)
        if r == rank:
            mine = x
    return mine, ref


def rel_error(out, ref):
    out = out.detach().to("cpu", torch.float64)
    if torch.isnan(out).any():
        return float("inf")
    return (torch.linalg.vector_norm(out - ref) /
            max(torch.linalg.vector_norm(ref).item(), 1e-30)).item()


def worker(rank, world, args, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=dev)
    import torch.distributed._symmetric_memory as symm_mem
    if args.dslc:
        sys.path.insert(0, os.path.join(os.path.dirname(
            os.path.abspath(__file__)), "..", "python"))
        import dslc
        dslc.init()

    group = dist.group.WORLD
    gname = group.group_name
    dtype = DTYPES[args.dtype]
    max_n = max(args.sizes)
    sbuf = symm_mem.empty(max_n, dtype=dtype, device=dev)
    symm_mem.rendezvous(sbuf, gname)
    plain = torch.empty(max_n, dtype=dtype, device=dev)
    stream = torch.cuda.current_stream()
    rows = []

    def impls(n):
        buf = sbuf[:n]
        t = plain[:n]
        d = {
            "torch_one_shot": (
                lambda: buf,  # input lives in the symmetric buffer
                lambda: torch.ops.symm_mem.one_shot_all_reduce(buf, "sum",
                                                               gname)),
            "torch_two_shot": (
                lambda: buf,
                lambda: torch.ops.symm_mem.two_shot_all_reduce_(buf, "sum",
                                                                gname)),
            "torch_dist_all_reduce": (
                lambda: t,
                lambda: dist.all_reduce(t)),
        }
        if args.dslc:
            d["dslc_all_reduce"] = (lambda: t, lambda: dslc.all_reduce(t))
        return d

    for n in args.sizes:
        x, ref = inputs(n, rank, world, args.seed + n % 1000, dtype)
        x = x.to(dev)
        for impl, (target, call) in impls(n).items():
            for mode in ("eager", "graph"):
                note, ok, us = "", True, 0.0
                try:
                    tgt = target()
                    # Check: fill, call once (eager or one replay), compare.
                    graph = None
                    if mode == "graph":
                        s = torch.cuda.Stream()
                        s.wait_stream(stream)
                        with torch.cuda.stream(s):
                            tgt.copy_(x)
                            call()  # warm-up outside the capture
                        stream.wait_stream(s)
                        torch.cuda.synchronize()
                        dist.barrier()
                        graph = torch.cuda.CUDAGraph()
                        with torch.cuda.graph(graph):
                            captured = call()
                        run = graph.replay
                    else:
                        run = call
                    tgt.copy_(x)
                    torch.cuda.synchronize()
                    dist.barrier()
                    if mode == "graph":
                        graph.replay()
                        out = captured if captured is not None else tgt
                    else:
                        out = call()
                        out = out if out is not None else tgt
                    torch.cuda.synchronize()
                    err = rel_error(out, ref)
                    if not err < TOL[dtype]:
                        ok = False
                        note = f"relative error {err:.3g}"
                    # Time (in-place ops keep reducing the same buffer:
                    # values grow, the work does not change; refill after).
                    for _ in range(3):
                        run()
                    if mode == "graph":
                        # Time a graph holding all --iters calls, as tuner
                        # bench does: one replay per sample, so the GPU runs
                        # the calls back to back instead of waiting on the
                        # host's graph launches.
                        many = torch.cuda.CUDAGraph()
                        with torch.cuda.graph(many):
                            for _ in range(args.iters):
                                call()
                        us = time_calls(torch, dist, many.replay, 1, args.reps,
                                        stream) / args.iters
                        del many
                    else:
                        us = time_calls(torch, dist, run, args.iters,
                                        args.reps, stream)
                    tgt.copy_(x)
                    del graph
                    # Every all-reduce reads its n elements and writes n.
                    floor = below_floor(
                        us, torch.cuda.get_device_properties(dev)
                        .L2_cache_size, 2 * n * x.element_size(),
                        f"{impl} {mode}")
                    if floor:
                        ok, note = False, floor
                except Exception as e:  # an op that does not take this size
                    ok = False
                    note = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
                    torch.cuda.synchronize()
                    dist.barrier()
                if rank == 0:
                    bus = 0.0
                    if us > 0:
                        bus = (n * x.element_size() / (us * 1e-6) / 1e9 *
                               2 * (world - 1) / world)
                    config = ""
                    if impl.startswith("dslc"):
                        config = dslc.choice("all_reduce", n, dtype).split(
                            ":")[0]     # kernel | nccl
                    rows.append(("dslc-python" if impl.startswith("dslc")
                                 else "pytorch", "all_reduce", world, n,
                                 DTYPE_NAMES[dtype], impl, config, mode,
                                 f"{us:.3f}", f"{bus:.2f}", int(ok),
                                 note.replace(",", ";")))
                    print(f"{n:>10} {impl:<22} {mode:<5} "
                          f"{us:9.2f} us  {'ok' if ok else 'FAIL ' + note}",
                          flush=True)
    if rank == 0:
        header = ("source,collective,world,size,dtype,impl,config,mode,us,"
                  "busbw_gbs,ok,note")
        text = header + "\n" + "".join(
            ",".join(str(c) for c in r) + "\n" for r in rows)
        if args.csv:
            with open(args.csv, "w") as f:
                f.write(text)
            print(f"pytorch_symm_mem: CSV in {args.csv}")
    dist.barrier()
    if args.dslc:
        dslc.shutdown()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1K..64M")
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--world-size", type=int, default=2)
    ap.add_argument("--port", type=int, default=29533)
    ap.add_argument("--csv", default="")
    ap.add_argument("--dslc", action="store_true",
                    help="also time dslc.all_reduce (python/dslc)")
    args = ap.parse_args()
    args.sizes = parse_sizes(args.sizes)
    if torch.cuda.device_count() < args.world_size:
        print(f"pytorch_symm_mem: needs {args.world_size} GPUs, "
              f"{torch.cuda.device_count()} visible", file=sys.stderr)
        sys.exit(77)
    mp.spawn(worker, args=(args.world_size, args, args.port),
             nprocs=args.world_size, join=True)


if __name__ == "__main__":
    main()
