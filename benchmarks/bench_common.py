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


def time_flushed_us(torch, fn, reps, flush, host_us=None):
    """The median of `reps` samples of fn()'s GPU time in us, each with the
    L2 flushed (`flush`, a device buffer larger than the L2) and its host
    part covered by a GPU spin (dslc/_timing.py: the tuner's in-process
    measurer times a candidate the same way); `host_us`, a list, gets each
    call's host time in us."""
    from dslc._timing import cold_median_us
    return cold_median_us(torch, fn, reps, flush, host_us)


# The H200's HBM3e bandwidth by its datasheet (bytes/s): no kernel moves
# data between HBM and the SMs faster (the best copy measured here: 4.25).
HBM_PEAK_BYTES_PER_S = 4.8e12


def floor_us(l2_bytes, hbm_bytes, peak=HBM_PEAK_BYTES_PER_S):
    """The least time a call that moves `hbm_bytes` through memory can take:
    what cannot be served by the L2 (`l2_bytes` of reads left by the call
    before and as many of writes held back; generous) at the peak
    bandwidth, in us."""
    return max(0, hbm_bytes - 2 * l2_bytes) / peak * 1e6


def below_floor(us, l2_bytes, hbm_bytes, what):
    """'' when `us` is physically possible for `what`, else why not: a time
    below the floor means the call was not timed (it ran on another stream,
    or not at all) and must fail the benchmark, never be printed."""
    floor = floor_us(l2_bytes, hbm_bytes)
    if us >= floor:
        return ""
    return (f"{what}: {us:.2f} us is below the physical floor {floor:.2f} us "
            f"({hbm_bytes / 2**20:.1f} MiB at "
            f"{HBM_PEAK_BYTES_PER_S / 1e12:.1f} TB/s beyond the L2): the "
            f"timing did not cover the work")
