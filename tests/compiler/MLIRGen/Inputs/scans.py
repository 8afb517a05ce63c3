"""Scans (GenScan.cpp): what MLIRGen makes of them and its errors."""

from __future__ import annotations

import torch

import helion
import helion.language as hl


def add_pair(a, b):
    return a + b


def one_of_two(lv, li, rv, ri):
    return lv + rv


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def cumsum_steps(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        out[tm, :] = hl.associative_scan(add_pair, x[tm, :], dim=1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def wrong_count(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        v, _ = hl.associative_scan(one_of_two, (x[tm, :], x[tm, :]), dim=1)
        out[tm, :] = v
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def not_a_function(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        out[tm, :] = hl.associative_scan(3, x[tm, :], dim=1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def bad_dim(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        out[tm, :] = hl.cumsum(x[tm, :], dim=2)
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def shapes_differ(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        v, _ = hl.associative_scan(one_of_two, (x[tm, :], x[tm, 0:4]), dim=1)
        out[tm, :] = v
    return out
