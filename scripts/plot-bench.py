#!/usr/bin/env python3
"""Plots benchmark CSVs (tuner bench --csv, benchmarks/pytorch_symm_mem.py)
as a PNG: latency and bus bandwidth against size, one line per
implementation, for one timing mode. Needs gnuplot (gnuplot-nox, installed by
scripts/install-deps.sh); no Python packages.

  scripts/plot-bench.py bench.csv [torch.csv ...] -o bench.png [--mode graph]
"""

import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile


def fmt_size(n):
    for unit in ("", "K", "M", "G"):
        if n < 1024 or n % 1024:
            return f"{n}{unit}"
        n //= 1024
    return f"{n}T"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("-o", "--output", default="bench.png")
    ap.add_argument("--mode", default="graph", choices=["graph", "eager"])
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    series = {}  # impl -> {size: (us, busbw)}
    meta = set()
    for path in args.csv:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("mode") != args.mode or row.get("ok") != "1":
                    continue
                impl = row["impl"]
                if row.get("source", "dslc") != "dslc":
                    impl = f"{row['source']}:{impl}"
                n = int(row["size"])
                series.setdefault(impl, {})[n] = (float(row["us"]),
                                                   float(row["busbw_gbs"]))
                meta.add(f"{row['collective']} {row['dtype']} "
                         f"world {row['world']}")
    if not series:
        sys.exit(f"plot-bench: no rows with mode '{args.mode}' and ok=1 "
                 f"in {', '.join(args.csv)}")
    title = args.title or f"{', '.join(sorted(meta))} ({args.mode})"

    impls = sorted(series, key=lambda s: (s != "nccl", s))
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data.txt")
        with open(data, "w") as f:
            for impl in impls:
                f.write(f"# {impl}\n")
                for n in sorted(series[impl]):
                    us, bw = series[impl][n]
                    f.write(f"{n} {us} {bw}\n")
                f.write("\n\n")
        sizes = sorted({n for s in series.values() for n in s})
        tics = ", ".join(f'"{fmt_size(n)}" {n}' for n in sizes
                         if math.log2(n).is_integer()
                         and int(math.log2(n)) % 2 == 0)
        plots_lat = ", ".join(
            f"'{data}' index {i} using 1:2 with linespoints "
            f"title '{impl}'" for i, impl in enumerate(impls))
        plots_bw = ", ".join(
            f"'{data}' index {i} using 1:3 with linespoints "
            f"title '{impl}'" for i, impl in enumerate(impls))
        script = f"""
set terminal pngcairo noenhanced size 1400,600 font ',10'
set output '{args.output}'
set multiplot layout 1,2 title '{title}'
set logscale x 2
set xtics ({tics})
set grid
set key top left
set xlabel 'elements'
set logscale y 10
set ylabel 'latency (us, median per call)'
set title 'latency'
plot {plots_lat}
unset logscale y
set ylabel 'bus bandwidth (GB/s)'
set title 'bus bandwidth'
plot {plots_bw}
unset multiplot
"""
        try:
            subprocess.run(["gnuplot"], input=script, text=True, check=True)
        except FileNotFoundError:
            sys.exit("plot-bench: gnuplot not found "
                     "(apt-get install gnuplot-nox)")
    print(f"plot-bench: wrote {args.output}")


if __name__ == "__main__":
    main()
