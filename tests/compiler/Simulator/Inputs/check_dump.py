"""Loads a dslc --simulate dump with numpy and checks it against itself.

Usage: check_dump.py DIR
Every input and output .npy file of the manifest must load with
numpy.load, with the manifest's shape and numpy's type for its dtype
(bfloat16 as raw '<u2' bits); for an all-reduce the outputs must be the sum
of the inputs within the tolerance the simulator reports. Prints one line
per file and the verdict.
"""

import json
import sys

import numpy as np

NUMPY_TYPES = {"bfloat16": "<u2", "float16": "<f2", "float32": "<f4",
               "float64": "<f8", "int32": "<i4", "int64": "<i8",
               "float8_e4m3fn": "|u1", "float8_e5m2": "|u1"}


def values(array, dtype):
    if dtype == "bfloat16":  # raw bits: the upper half of an f32
        return (array.astype(np.uint32) << 16).view(np.float32).astype(
            np.float64)
    return array.astype(np.float64)


def main(directory):
    manifest = json.load(open(f"{directory}/manifest.json"))
    assert manifest["version"] == 2, manifest
    loaded = {}
    for launch in range(manifest["launches"]):
        for rank in range(manifest["world_size"]):
            for p in manifest["params"]:
                if p.get("role") not in ("input", "output"):
                    continue
                suffix = ".npy" if p["role"] == "input" else ".out.npy"
                name = f"r{rank}.c{launch}.{p['name']}{suffix}"
                a = np.load(f"{directory}/{name}")
                assert list(a.shape) == p["sizes"], (name, a.shape)
                assert a.dtype.str.replace("=", "<") == NUMPY_TYPES[p["dtype"]], (
                    name, a.dtype.str)
                loaded[(launch, rank, p["role"])] = values(a, p["dtype"])
                print(f"{name}: {a.dtype.str} {list(a.shape)}")
    if manifest["reference"] == "all-reduce":
        worst = 0.0
        for launch in range(manifest["launches"]):
            total = sum(loaded[(launch, r, "input")]
                        for r in range(manifest["world_size"]))
            for rank in range(manifest["world_size"]):
                out = loaded[(launch, rank, "output")]
                worst = max(worst, float(np.linalg.norm(out - total) /
                                         np.linalg.norm(total)))
        print(f"all-reduce from the files: relative error {worst:.2g}")
        assert worst < 1e-2, worst
    print("dump loads with numpy: ok")


if __name__ == "__main__":
    main(sys.argv[1])
