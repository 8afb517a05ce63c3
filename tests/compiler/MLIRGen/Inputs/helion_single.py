"""Helion's host code and parameter kinds (issue 26): what compiles and the
errors that say why not and what to write instead."""

from __future__ import annotations

import math
from typing import Callable

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def views(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    assert x.shape == y.shape
    out = torch.empty_like(x, dtype=torch.promote_types(x.dtype, y.dtype))
    x_flat, y_flat, out_flat = x.view(-1), y.reshape([-1]), out.view(-1)
    scale = 1.0 / math.sqrt(x.size(1))
    for t in hl.tile(x.numel()):
        out_flat[t] = (x_flat[t] + y_flat[t]) * scale
    return out.view_as(x)


@helion.kernel(config=helion.Config(block_sizes=[16, 8], num_warps=4))
def shapes(q: torch.Tensor, normalized_shape: list[int], eps: float = 1e-5):
    b, m, d = q.size()
    assert len(normalized_shape) == 1 and normalized_shape[0] == d
    q2 = q.reshape(-1, d)
    out = q.new_empty([q2.size(0), d], dtype=torch.float32)
    for tm, td in hl.tile([q2.size(0), d]):
        out[tm, td] = q2[tm, td].to(torch.float32).T.T * eps
    return out.reshape(b, m, d)


@helion.kernel(config=helion.Config(block_sizes=[8, 8, 8], num_warps=4))
def bmm_t(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    n, m, k = a.size()
    out = torch.empty([n, m, m], dtype=torch.float32, device=a.device)
    for tn, tm, tj in hl.tile([n, m, m]):
        out[tn, tm, tj] = torch.bmm(
            a[tn, tm, :], b[tn, tj, :].transpose(1, 2), torch.float32
        )
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def callable_no_default(x: torch.Tensor, fn: Callable) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = fn(x[t])
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def host_value_in_loop(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    w = x.to(torch.float16)
    for t in hl.tile(x.size(0)):
        out[t] = w[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def store_before_loop(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    x[0] = 1.0
    for t in hl.tile(x.size(0)):
        out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def bad_views(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    bad = x.view(3, 5)
    for t in hl.tile(x.size(0)):
        v = x[t, :]
        out[t, :] = v.reshape([4, 3])
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def broadcast_shapes(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x, y = torch.broadcast_tensors(x, y)
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t, :] = x[t, :] + y[t, :]
    return out


@helion.kernel(config=helion.Config(block_sizes=[32], num_warps=4))
def specialized_int(x: torch.Tensor, chunk: int) -> torch.Tensor:
    chunk = hl.specialize(chunk)
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0), block_size=chunk):
        out[t] = x[t] * float("-inf")
    return out


@helion.kernel(config=helion.Config(block_sizes=[32], num_warps=4))
def optional_bias(x: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        if bias is None:
            out[t] = x[t]
        else:
            out[t] = x[t] + bias[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 32], num_warps=4))
def gathers(idx: torch.Tensor, w: torch.Tensor, x: torch.Tensor):
    n = idx.size(0)
    out = torch.empty([n, w.size(1)], dtype=w.dtype, device=w.device)
    for tb, te in hl.tile([n, w.size(1)]):
        rows = idx[tb]
        out[tb, te] = w[rows, te] + hl.load(x, [rows * 2], extra_mask=rows > 0)[:, None]
        w[rows, te] = out[tb, te]
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def reshapes(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        v = x[t, :].reshape([t, 2, 4])
        out[t, :] = v.reshape([t, 8])
        w = x[t, :].reshape([2, 2, 8])
        out[t, :] = w.reshape([t, 8])
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16], num_warps=4))
def subscripts(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty([x.size(0), y.size(0)], dtype=x.dtype, device=x.device)
    for ti, tj in hl.tile([x.size(0), y.size(0)]):
        a = hl.subscript(x[ti], [slice(None), None])
        b = hl.subscript(y[tj], index=[None, slice(None)])
        out[ti, tj] = a * b
    return out


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def bad_subscripts(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        a = hl.subscript(x, [slice(None)])
        b = hl.subscript(x[t], [slice(1)])
        c = hl.subscript(x[t], None)
        out[t] = x[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def bad_composites(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    n = hl.specialize(n)
    out = torch.empty_like(x)
    for t in hl.tile(m):
        v = x[t, :]
        a = v.norm(p=3, dim=-1, keepdim=True)
        b = torch.logsumexp(v)
        c = torch.nn.functional.selu(v)
        out[t, :] = v
    return out


@helion.kernel
def callable_unused(x: torch.Tensor, fn: Callable) -> torch.Tensor:
    # A function parameter the kernel never calls (a variant with the
    # function written in keeps it): no error.
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] * 2.0
    return out
