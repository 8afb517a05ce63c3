"""GPU time of one call, L2-cold, without its host part: the one way the
tuner's in-process measurer (_tune_caller) and the benchmarks
(benchmarks/bench_common.py) time a call.

Per sample (Triton's do_bench way) the L2 is flushed (a device buffer larger
than the L2, zeroed), then the call runs between two CUDA events. Between
the flush and the first event the GPU spins (torch.cuda._sleep), so the
call's host part is issued while the GPU is busy: without the spin a call
whose host part outlasts the flush is timed with the gap (on 2026-12-07's
H100 a dslc call's Python path took 37-43 us, 130-320 us through the
Helion-file stand-in, against ~85 us for a 256 MiB flush there and ~55-60
on an H200: it leaked into some samples and not others, up to 2x on a
20 us product). A sample whose host part outlasted
the spin is taken again with a spin twice as long."""

import statistics
import time

# 10^6 cycles last at least 0.5 ms at the H100's and H200's 1.98 GHz boost
# clock (the least time a spin of that many cycles can take).
HOST_COVER_CYCLES = 1_000_000
MAX_CLOCK_HZ = 1.98e9


def cold_samples_us(torch, fn, reps, flush, host_us=None):
    """`reps` samples of fn()'s GPU time in us, each L2-cold (`flush`
    zeroed first) with its host part covered; `host_us`, a list, gets each
    sample's host time in us."""
    samples, cover = [], HOST_COVER_CYCLES
    while len(samples) < reps:
        flush.zero_()
        torch.cuda._sleep(cover)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        issued = time.perf_counter()
        fn()
        host = (time.perf_counter() - issued) * 1e6
        stop.record()
        stop.synchronize()
        if host > 0.8 * cover / MAX_CLOCK_HZ * 1e6:
            cover *= 2  # the GPU may have idled waiting for the call
            continue
        if host_us is not None:
            host_us.append(host)
        samples.append(start.elapsed_time(stop) * 1000.0)
    return samples


def cold_median_us(torch, fn, reps, flush, host_us=None):
    """The median of cold_samples_us."""
    return statistics.median(cold_samples_us(torch, fn, reps, flush, host_us))
