"""Timing shared by the PyTorch benchmarks (pytorch_symm_mem.py,
fused_rmsnorm.py): one rule for a sample and its median. Imports nothing
at load time, so the scripts' --help and dry runs need no torch."""
import statistics


def time_calls(torch, dist, fn, iters, reps, stream):
    """Median over `reps` samples of the µs per call of `fn()` issued
    `iters` times back to back on `stream`, every rank starting each
    sample together (dist.barrier) on an idle device."""
    samples = []
    for _ in range(reps):
        dist.barrier()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record(stream)
        for _ in range(iters):
            fn()
        stop.record(stream)
        torch.cuda.synchronize()
        samples.append(start.elapsed_time(stop) * 1000.0 / iters)
    return statistics.median(samples)
