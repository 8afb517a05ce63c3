#!/usr/bin/env python3
"""The robustness campaign of docs/robustness.md, against a dslc binary.

1. Hostile flags and huge sizes: every example under every hostile option
   set below (world sizes, ranks, sizes, CTAs, configs, architectures,
   block sizes through --config, simulation at the bounds).
2. Mutations of the examples (fuzz_backend.py's mutator) for --seconds.

Every run must end with status 0 or 1 within 20 s of CPU time (the wall
clock of a shared machine says little) and 4 GB, with no
signal, internal error, LLVM error or error line without file:line:col
(fuzz_backend.run's checks). Prints every failing flag set and a summary,
stops at the first failing mutant (the input is kept); exits 1 on any.

Usage: hostile_campaign.py DSLC EXAMPLES_DIR [--seconds S] [--seed N]
"""

import argparse
import glob
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_backend  # noqa: E402

RANK = ["-D", "my_rank=0"]
FLAG_SETS = [
    ["--world-size", "0"], ["--world-size", "128"], ["--world-size", "129"],
    ["--world-size", "2147483647"], ["--world-size", "4294967296"],
    ["--world-size", "18446744073709551616"], ["--world-size", "-1"],
    ["--world-size", "2", "--rank", "2"], ["--world-size", "2", "--rank", "-1"],
    ["-D", "world_size=3", "--world-size", "2"],
    ["--world-size", "2", "--config", "@/dev/zero"],
    ["--world-size", "2", "--config", '{"block_sizes": [2097152]}'],
    ["--world-size", "2", "--config", '{"block_sizes": [1048576], "num_warps": 1}'],
    ["--world-size", "2", "--config", '{"block_sizes": [0]}'],
    ["--world-size", "2", "--config", '{"block_sizes": [8192], "num_warps": 1}'],
    ["--world-size", "32", "--config", '{"block_sizes": [8192], "num_warps": 1}'],
    ["--world-size", "2", "--config", '{"num_warps": 4294967296}'],
    ["--world-size", "2", "--config", "[[[[[[[[[["],
    ["--world-size", "2", "--arch", "sm_100"], ["--world-size", "2", "--arch", "sm_999"],
    ["--world-size", "2", "--timeout-ms", "99999999999999999999"],
    ["--simulate", "--world-size", "16", "--size", "65536"],
    ["--simulate", "--world-size", "8", "--size", "65536"],
    ["--simulate", "--world-size", "2", "--size", "4294967296"],
    ["--simulate", "--world-size", "2", "--size", "9223372036854775807"],
    ["--simulate", "--world-size", "2", "--ctas", "4294967296"],
    ["--simulate", "--world-size", "2", "--calls", "100", "--size", "1024"],
    ["--simulate", "--world-size", "17"],
]


def check(cmd, out_dir):
    returncode, out, cpu = fuzz_backend.run_limited(cmd, cwd=out_dir)
    if returncode is None:
        return f"no result after {fuzz_backend.WALL_LIMIT} s", out, cpu
    if cpu > fuzz_backend.CPU_LIMIT:
        return f"{cpu:.1f} s of CPU time", out, cpu
    if returncode < 0:
        return f"killed by signal {-returncode}", out, cpu
    if returncode not in (0, 1):
        return f"exit code {returncode}", out, cpu
    if fuzz_backend.BAD_OUTCOME.search(out):
        return "internal failure reported", out, cpu
    if "out of memory" in out:
        return "over 4 GB", out, cpu
    for line in out.splitlines():
        if "error: " in line and not fuzz_backend.LOCATED.match(line):
            return "an error without file:line:col", out, cpu
    return None, out, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dslc")
    ap.add_argument("examples")
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    dslc = os.path.abspath(args.dslc)
    examples = sorted(glob.glob(os.path.join(os.path.abspath(args.examples),
                                             "*.py")))
    runs = slowest = failures = 0
    slowest_cmd = []
    with tempfile.TemporaryDirectory() as tmp:
        for ex in examples:
            for flags in FLAG_SETS:
                emit = [] if "--simulate" in flags else ["--emit=ptx", "-o",
                                                         "k.ptx"]
                cmd = [dslc, ex] + RANK + emit + flags
                failure, out, cpu = check(cmd, tmp)
                if cpu > slowest:
                    slowest, slowest_cmd = cpu, cmd
                runs += 1
                if failure:
                    failures += 1
                    print(f"FAIL {failure}: {' '.join(cmd[1:])}\n"
                          f"{out[-1500:]}", flush=True)
        print(f"hostile flags: {runs} runs, {failures} failed; slowest "
              f"{slowest:.1f} s of CPU: {' '.join(slowest_cmd[1:])}",
              flush=True)
        rng = random.Random(args.seed)
        corpus = [open(p, encoding="utf-8").read() for p in examples]
        src = os.path.join(tmp, "mutant.py")
        deadline = time.monotonic() + args.seconds
        n = diagnosed = 0
        while time.monotonic() < deadline:
            n += 1
            text = fuzz_backend.mutate(rng.choice(corpus), rng)
            with open(src, "w", encoding="utf-8") as f:
                f.write(text)
            failure, out = fuzz_backend.run(dslc, src, tmp)
            if failure:
                keep = os.path.abspath(f"hostile-failure-{args.seed}-{n}.py")
                with open(keep, "w", encoding="utf-8") as f:
                    f.write(text)
                print(f"FAIL mutant {n}: {failure}; kept in {keep}\n"
                      f"{out[-3000:]}")
                return 1
            diagnosed += "error" in out
        print(f"mutations: {n} mutants in {args.seconds:.0f} s (seed "
              f"{args.seed}), {n - diagnosed} compiled, {diagnosed} "
              f"diagnosed, no failure")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
