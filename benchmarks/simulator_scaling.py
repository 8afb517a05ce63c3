#!/usr/bin/env python3
"""Time per simulated step against CTAs and ranks (docs/simulator.md, "Cost").

Runs `dslc --simulate` of the one-shot all-reduce with blocks of 32 elements
and one tile per CTA (--size = CTAs x 32), so the CTAs grow with the work,
for every pair of CTAs per rank and ranks whose product is within the
simulator's 16384 CTAs, and prints a markdown table of the CPU time (user +
system, so that a loaded machine stretches the wall clock, not the numbers)
per scheduler step, in microseconds. Each cell runs twice, one schedule
(uniform: CTAs picked at random) with one launch and with 1 + K (--calls,
K up to 99, about 200000 more steps), and reports the K later launches
alone: their steps and the CPU time they took, so compiling and setting up
a run do not count (the cells of a few CTAs measure a few milliseconds:
rough). Race detection is always on. A cell that takes
more than --timeout seconds (wall) prints as "> T s".

  python3 benchmarks/simulator_scaling.py --dslc build/bin/dslc
  python3 benchmarks/simulator_scaling.py --dslc OLD/dslc --ranks 2,8 --timeout 120
"""

import argparse
import os
import re
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "one_shot_all_reduce.py")
MAX_CTAS = 16384  # kMaxSimulatedCtas


def run(dslc, ranks, ctas, calls, timeout):
    """(CPU seconds, steps) of one simulation, or None past the timeout."""
    cmd = [dslc, EXAMPLE, "--simulate", "--world-size", str(ranks),
           "--size", str(ctas * 32), "--config", '{"block_sizes": [32]}',
           "--calls", str(calls), "--schedules", "1"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    steps = re.search(r"^steps: (\d+)", out, re.M)
    if not steps or not re.search(r": PASS$", out, re.M):
        sys.exit("unexpected result of " + " ".join(cmd) + ":\n" + out[-2000:])
    return cpu, int(steps.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dslc", default="build/bin/dslc")
    ap.add_argument("--ranks", default="1,2,4,8")
    ap.add_argument("--ctas", default="1,16,256,1024,2048,4096,8192,16384",
                    help="CTAs per rank")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    ranks = [int(r) for r in args.ranks.split(",")]
    ctas = [int(c) for c in args.ctas.split(",")]
    print("| CTAs per rank | " +
          " | ".join(f"{r} rank(s): µs/step (steps, CPU)" for r in ranks) +
          " |")
    print("|---:|" + "---:|" * len(ranks))
    for c in ctas:
        cells = []
        for r in ranks:
            if r * c > MAX_CTAS:
                cells.append("")
                continue
            one = run(args.dslc, r, c, 1, args.timeout)
            more = one and max(1, min(99, 200000 // max(one[1], 1)))
            two = one and run(args.dslc, r, c, 1 + more, args.timeout)
            if not two:
                cells.append(f"> {args.timeout:.0f} s")
                continue
            cpu, steps = two[0] - one[0], two[1] - one[1]
            cells.append(f"{1e6 * cpu / steps:.1f} ({steps}, {cpu:.2f} s)")
        print(f"| {c} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
