#!/usr/bin/env python3
"""One case of benchmarks/helion_same_source.py through dslc or Helion at a
config given, not tuned: the two compilers' code compared at the same
config, and the process to run under Nsight Compute.

The case's inputs at [T, H] are built and its result checked against the
PyTorch reference first; then, with --reps, the median of that many
L2-flushed samples is printed (helion_same_source's timer), and with
--calls, the kernel is called that many more times with nothing else on
the GPU (for `ncu -k regex:NAME --launch-skip ...`).

  PYTHONPATH=HELION python3 benchmarks/same_config.py HELION \\
      --case softmax_two_pass --impl dslc \\
      --config '{"block_sizes": [1, 4096], "num_warps": 4}'
  ... --impl helion --config '{"block_sizes": [1, 4096], "num_warps": 4}'

--config is a dslc config (as `dslc --config` reads it) for dslc and the
keyword arguments of helion.Config for Helion; unset, each uses the
kernel's own config (Helion: its default config, no autotuning).
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import helion_same_source as same  # noqa: E402


def kernel_at(case, checkout, impl, config):
    """A callable computing `case` with `impl` at `config`."""
    path = same.example_path(case, checkout)
    if impl == "dslc":
        module = same.load_module(path, "same_config_dslc", stand_in=True)
        kernel = getattr(module, case.kernel)
        if config is not None:
            kernel.use_config(config)
        return kernel
    os.environ.setdefault("HELION_AUTOTUNE_EFFORT", "none")
    sys.path.insert(0, checkout)
    import helion
    module = same.load_module(path, "same_config_helion", stand_in=False)
    kernel = getattr(module, case.kernel)
    bound = {}

    def call(*args):
        if "kernel" not in bound:
            bound["kernel"] = kernel.bind(args)
            if config is not None:
                bound["kernel"].set_config(helion.Config(**config))
        return bound["kernel"](*args)
    return call


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkout", help="the Helion snapshot")
    p.add_argument("--case", required=True)
    p.add_argument("--impl", choices=("dslc", "helion"), required=True)
    p.add_argument("--config", help="JSON object (see above)")
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--calls", type=int, default=0)
    opts = p.parse_args(argv)
    case = same.case_named(opts.case)
    config = None
    if opts.config:
        try:
            config = json.loads(opts.config)
        except json.JSONDecodeError as e:
            p.error(f"--config is not JSON: {e}")
        if not isinstance(config, dict):
            p.error("--config must be a JSON object")
    import torch
    torch.manual_seed(0)
    args = case.inputs(torch, opts.tokens, opts.hidden)
    want = case.reference(torch, *same.fresh(torch, args))
    kernel = kernel_at(case, opts.checkout, opts.impl, config)

    def call(*a):
        return case.results(a, kernel(*a))
    a = same.fresh(torch, args)
    same.check(case, call(*a), want)
    if opts.reps:
        timer = same.Timer(torch)
        us = timer.median_us(lambda: call(*a), opts.reps)
        nbytes = (case.nbytes(torch, *args) if case.nbytes else
                  same.bytes_moved(args, case.results(args, want)))
        problem = timer.floor_problem(us, nbytes, f"{case.name} {opts.impl}")
        if problem:
            raise SystemExit(problem)
        print(json.dumps({"case": case.name, "impl": opts.impl,
                          "T": opts.tokens, "H": opts.hidden,
                          "config": config, "us": round(us, 2),
                          "GB/s": round(nbytes / us / 1e3)}), flush=True)
    for _ in range(opts.calls):
        call(*a)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
