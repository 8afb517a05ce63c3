"""What the PyTorch benchmarks (pytorch_symm_mem.py, fused_rmsnorm.py)
share: size lists and the timing of a sample and its median. Imports
nothing at load time, so the scripts' --help and dry runs need no torch."""
import statistics


def parse_size(s):
    """'8192', '64K', '1M', '1G' (powers of 1024) into an int."""
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1].upper(), 1)
    return int(s[:-1] if mult != 1 else s) * mult


def parse_sizes(text):
    """'1,8,128' or '1..8192' (powers of two), each a parse_size, into
    ints."""
    out = []
    for item in text.split(","):
        if ".." in item:
            a, b = (parse_size(x) for x in item.split(".."))
            while a <= b:
                out.append(a)
                a *= 2
        elif item:
            out.append(parse_size(item))
    return out


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
