"""python -m dslc info | compile FILE [-k NAME] --world-size W [--rank R]
   [--arg NAME=DTYPE[SHAPE]]... [-D NAME=VALUE]... [--config JSON]

info:    where the runtime, compiler, tuner and cache are; which libnccl the
         runtime uses (with torch imported first when installed).
compile: fills the kernel cache for ranks R (default: every rank) without a
         GPU, exactly as the first call would: carry the cache
         ($DSLC_CACHE_DIR) to a machine without the compiler.
"""

import argparse
import json
import re
import sys

import dslc


def _arg_spec(text):
    m = re.fullmatch(r"(\w+)=(\w+)\[([\d,x ]*)\]", text)
    if not m:
        raise argparse.ArgumentTypeError(
            f"'{text}': expected NAME=DTYPE[SHAPE], e.g. a_shared=bfloat16[4096]"
            f" or x=float32[8,1024]")
    shape = tuple(int(s) for s in re.split(r"[,x]", m[3]) if s.strip())
    return m[1], dslc.TensorSpec(m[2], shape)


def _define(text):
    name, _, value = text.partition("=")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m dslc",
                                 description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("info")
    c = sub.add_parser("compile")
    c.add_argument("file")
    c.add_argument("-k", "--kernel")
    c.add_argument("--world-size", type=int, required=True)
    c.add_argument("--rank", type=int, action="append")
    c.add_argument("--arg", type=_arg_spec, action="append", default=[])
    c.add_argument("-D", dest="defines", type=_define, action="append",
                   default=[])
    c.add_argument("--config")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "info":
            for k, v in dslc.runtime_info().items():
                print(f"{k}: {v}")
            return 0
        k = dslc.kernel(a.file, a.kernel,
                        config=json.loads(a.config) if a.config else None)
        kwargs = dict(a.arg)
        kwargs.update(dict(a.defines))
        for r in a.rank or range(a.world_size):
            print(k.compile(rank=r, world_size=a.world_size, **kwargs))
        return 0
    except dslc.DslcError as e:
        print(f"dslc: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
