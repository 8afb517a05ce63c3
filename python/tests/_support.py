"""Shared helpers of the package's tests (no GPU, no torch needed)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PYTHON_DIR)
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)


def build_dir():
    """The build folder the tests use: $DSLC_BUILD_DIR (ctest sets it)."""
    return os.environ.get("DSLC_BUILD_DIR", os.path.join(REPO, "build"))


def runtime_library():
    p = os.path.join(build_dir(), "lib", "libdslc_runtime.so")
    return p if os.path.isfile(p) else None


def compiler():
    p = os.path.join(build_dir(), "bin", "dslc")
    return p if os.path.isfile(p) else None


def torch_available():
    import importlib.util
    return importlib.util.find_spec("torch") is not None


# A kernel unknown to every tool (tuning tests): 1-d elementwise, one block
# of elements, and the pattern of its candidates' directories.
SCALE_KERNEL = """import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def scale(x: torch.Tensor[torch.float32, 1]) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2.0
    return out
"""
# A candidate's directory (tooling/tuner: candidateDirName): block size and
# warps, then the loads' cache hints where it has any (evl: one load 'last').
CANDIDATE_CONFIG = r"/bs(\d+)_w(\d+)(?:_ev[-fl]+)?/"
CANDIDATE_HINTS = r"_ev([-fl]+)/"
