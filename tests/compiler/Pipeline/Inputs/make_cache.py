"""Writes a tuning cache (docs/tuner.md) with entries for one kernel of one
source file, as `tuner run` would: make_cache.py SOURCE KERNEL OUT_DIR."""
import hashlib
import json
import os
import sys

source, kernel, out = sys.argv[1:4]
sha = hashlib.sha256(open(source, "rb").read()).hexdigest()


def entry(bucket, world, dtype, config, sha256=sha, shape=None):
    pick = {"config": config, "kernel": kernel, "sha256": sha256, "us": 5.0}
    key = {"bucket": bucket, "collective": "all_reduce",
           "device": "NVIDIA H200", "driver": "cuda 13.0",
           "dtype": dtype, "kernel": "set:x", "world_size": world}
    if shape:
        key["shape"] = shape
    return {
        "key": key,
        "value": {"date": "2026-11-30T09:29:46Z", "nccl_us": 10.0,
                  "per_kernel": [
                      {"config": {"block_sizes": [2048], "num_warps": 4},
                       "kernel": "other_kernel", "sha256": sha256, "us": 9.0},
                      pick],
                  "pick": pick, "size": 1 << bucket},
    }


entries = [
    entry(10, 2, "bfloat16", {"block_sizes": [512], "num_warps": 4}),
    entry(20, 2, "bfloat16", {"block_sizes": [4096], "num_warps": 8,
                              "max_ctas": 32}),
    entry(20, 2, "float32", {"block_sizes": [2048], "num_warps": 8}),
    entry(20, 4, "bfloat16", {"block_sizes": [1024], "num_warps": 16}),
    # One size bucket, two shapes (a kernel tuned per shape: a 16-row and
    # a square matmul can share a bucket): the call's shapes choose.
    entry(24, 2, "bfloat16", {"block_sizes": [128], "num_warps": 2},
          shape="a=b24,b=b3"),
    entry(24, 2, "bfloat16", {"block_sizes": [256], "num_warps": 8},
          shape="a=b24"),
    # The same kernel name from a different source: never used.
    entry(16, 2, "bfloat16", {"block_sizes": [256], "num_warps": 32},
          sha256="0" * 64),
]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "tuning.json"), "w") as f:
    json.dump({"format": "dslc-tuning-cache", "version": 1,
               "entries": entries}, f)
