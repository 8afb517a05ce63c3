"""Single-GPU kernels written the way Helion's examples/ are (issue 26):
host code around the tile loop (views, numel, shapes compared, outputs made
from computed sizes, a value returned that host code computes), parameters
Helion specializes on (str, bool, Optional tensors, a lambda epilogue), the
torch functions Helion lowers (softmax, gelu, silu, transposes, batched
matmuls) and Helion's default config. Each kernel has a reference over every
rank's inputs stacked on a leading [world, ...] dimension (docs/simulator.md,
"User references"), written without the construct it checks.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

import helion
from helion._testing import HALF_DTYPE
import helion.language as hl


@helion.kernel()
def flat_silu(x: torch.Tensor) -> torch.Tensor:
    """x viewed flat: a 1-d grid over x.numel() (Helion's swiglu)."""
    out = torch.empty_like(x)
    n = x.numel()
    x_flat = x.view(-1)
    out_flat = out.view(-1)
    for t in hl.tile(n):
        v = x_flat[t].to(torch.float32)
        out_flat[t] = torch.nn.functional.silu(v).to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def flat_silu_ref(x: torch.Tensor) -> torch.Tensor:
    W, M, N = x.size()
    N = hl.specialize(N)
    out = torch.empty_like(x)
    for w, m in hl.tile([W, M]):
        v = x[w, m, :].to(torch.float64)
        out[w, m, :] = (v / (1.0 + torch.exp(-v))).to(out.dtype)
    return out


@helion.kernel()
def rows_softmax_gelu(x: torch.Tensor, mode: str = "softmax") -> torch.Tensor:
    """Whole rows (Helion's default block size for them is 1); `mode` is a
    compile-time string."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        if mode == "softmax":
            out[tm, :] = torch.nn.functional.softmax(x[tm, :], dim=1)
        elif mode == "log_softmax":
            out[tm, :] = torch.log_softmax(x[tm, :], dim=-1)
        else:
            out[tm, :] = torch.nn.functional.gelu(x[tm, :], approximate="tanh")
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def rows_softmax_gelu_ref(
    x: torch.Tensor, mode: hl.constexpr = "softmax"
) -> torch.Tensor:
    W, M, N = x.size()
    N = hl.specialize(N)
    out = torch.empty_like(x)
    for w, m in hl.tile([W, M]):
        v = x[w, m, :].to(torch.float64)
        if mode == "softmax":
            e = torch.exp(v - torch.amax(v, dim=-1, keepdim=True))
            r = e / torch.sum(e, dim=-1, keepdim=True)
        elif mode == "log_softmax":
            s = v - torch.amax(v, dim=-1, keepdim=True)
            r = s - torch.log(torch.sum(torch.exp(s), dim=-1, keepdim=True))
        else:
            c = math.sqrt(2.0 / math.pi)
            r = 0.5 * v * (1.0 + torch.tanh(c * (v + 0.044715 * v * v * v)))
        out[w, m, :] = r.to(out.dtype)
    return out


@helion.kernel()
def transposed(x: torch.Tensor) -> torch.Tensor:
    """out = x.T, tile by tile (tile.transpose)."""
    m, n = x.size()
    out = torch.empty([n, m], dtype=x.dtype, device=x.device)
    for tm, tn in hl.tile([m, n]):
        out[tn, tm] = x[tm, tn].T
    return out


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=4))
def transposed_ref(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """Column j of x is row j of out."""
    W, M, N = x.size()
    M = hl.specialize(M)
    for w, j in hl.grid([W, N]):
        out[w, j, :] = x[w, :, j]
    return out


@helion.kernel(static_shapes=True)
def batched_matmul(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """Helion's bmm: 3-d tiles multiplied with torch.baddbmm."""
    b, m, k = A.size()
    b, k, n = B.size()
    out = torch.empty(
        [b, m, n], device=A.device, dtype=torch.promote_types(A.dtype, B.dtype)
    )
    for tile_b, tile_m, tile_n in hl.tile([b, m, n]):
        acc = hl.zeros([tile_b, tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.baddbmm(
                acc, A[tile_b, tile_m, tile_k], B[tile_b, tile_k, tile_n]
            )
        out[tile_b, tile_m, tile_n] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=4))
def batched_matmul_ref(A: torch.Tensor, B: torch.Tensor, out: torch.Tensor):
    """One matrix at a time, with 2-d hl.dot."""
    W, Bt, M, K = A.size()
    N = hl.specialize(B.size(3))
    M = hl.specialize(M)
    K = hl.specialize(K)
    for w, b in hl.grid([W, Bt]):
        out[w, b, :, :] = hl.dot(
            A[w, b, :, :].to(torch.float32), B[w, b, :, :].to(torch.float32)
        ).to(out.dtype)
    return out


@helion.kernel(static_shapes=True)
def epilogue_scale(
    x: torch.Tensor,
    bias: torch.Tensor | None = None,
    double: bool = False,
    epilogue: Callable[[torch.Tensor, tuple[torch.Tensor, ...]], torch.Tensor] = (
        lambda acc, tile: acc * 3.0
    ),
) -> torch.Tensor:
    """A lambda epilogue (its default), a bool and an Optional tensor."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        v = x[tile_m, tile_n].to(torch.float32)
        if bias is not None:
            v = v + bias[tile_n].to(torch.float32)
        if double:
            v = v * 2
        out[tile_m, tile_n] = epilogue(v, (tile_m, tile_n)).to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def epilogue_scale_ref(x: torch.Tensor) -> torch.Tensor:
    """x * 3 (no bias, double=False)."""
    W, M, N = x.size()
    N = hl.specialize(N)
    out = torch.empty_like(x)
    for w, m in hl.tile([W, M]):
        out[w, m, :] = (x[w, m, :].to(torch.float64) * 3.0).to(out.dtype)
    return out


@helion.kernel()
def wide_row_sum(x: torch.Tensor) -> torch.Tensor:
    """Rows too wide to hold (x[tm, :] of 20000 columns at 4 warps, 156 per
    thread): computed 4096 columns at a time. The kernel returns host code
    (out.sum())."""
    m, _ = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tm in hl.tile(m):
        out[tm] = x[tm, :].to(torch.float32).sum(-1)
    return out.reshape(-1, 1), out.sum()


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def wide_row_sum_ref(x: torch.Tensor, out: torch.Tensor):
    W, M, N = x.size()
    N = hl.specialize(N)
    for w, m in hl.tile([W, M]):
        out[w, m] = torch.sum(x[w, m, :].to(torch.float64), dim=-1).to(out.dtype)
    return out


@helion.kernel()
def first_scaled(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A scalar element (x[0]) read in the loop; shapes asserted equal."""
    assert x.shape == y.shape, "shapes differ"
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = y[t] * x[0]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def first_scaled_ref(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    W, N = x.size()
    N = hl.specialize(N)
    out = torch.empty_like(x)
    for w in hl.tile(W):
        first = x[w, 0:1]
        out[w, :] = (y[w, :].to(torch.float64) * first.to(torch.float64)).to(
            out.dtype
        )
    return out


@helion.kernel()
def embed(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """weight[x[tb], te]: a gather (rows past weight's, e.g. negative
    indices, read zeros)."""
    n = x.size(0)
    _, e = weight.size()
    out = torch.empty([n, e], dtype=weight.dtype, device=weight.device)
    for tb, te in hl.tile([n, e]):
        out[tb, te] = weight[x[tb], te]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def embed_ref(x: torch.Tensor, weight: torch.Tensor, out: torch.Tensor):
    """A one-hot product over weight's rows."""
    W, N = x.size()
    V = hl.specialize(weight.size(1))
    E = hl.specialize(weight.size(2))
    for w, n in hl.tile([W, N]):
        hot = (x[w, n][:, :, None] == hl.arange(V)[None, None, :]).to(
            torch.float64
        )
        rows = weight[w, :, :].to(torch.float64)
        out[w, n, :] = torch.sum(hot[:, :, :, None] * rows[:, None, :, :], dim=2).to(
            out.dtype
        )
    return out


@helion.kernel()
def concat_masked(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Helion's concat2d_dim1: hl.load with extra_mask on both sides of
    x.size(1), the shifted index negative for the x part."""
    assert x.size(0) == y.size(0)
    out = torch.empty(
        [x.size(0), x.size(1) + y.size(1)], dtype=x.dtype, device=x.device
    )
    for tile0, tile1 in hl.tile(out.size()):
        x_part = hl.load(
            x, [tile0, tile1], extra_mask=(tile1.index < x.size(1))[None, :]
        )
        y_part = hl.load(
            y,
            [tile0, tile1.index - x.size(1)],
            extra_mask=(tile1.index >= x.size(1))[None, :],
        )
        out[tile0, tile1] = torch.where(
            (tile1.index < x.size(1))[None, :], x_part, y_part
        )
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def concat_masked_ref(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor):
    W, M, N1 = x.size()
    N1 = hl.specialize(N1)
    N2 = hl.specialize(y.size(2))
    for w, m in hl.tile([W, M]):
        out[w, m, 0:N1] = x[w, m, :]
        out[w, m, N1 : N1 + N2] = y[w, m, :]
    return out


@helion.kernel()
def swap_pairs(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """Rows reshaped to [rows, H, 2] and back (a reshape that splits and
    merges the last dimension), hl.split / hl.join, expand, and a run-time
    scalar through torch.exp."""
    m, n = x.size()
    half = hl.specialize(n) // 2
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        pairs = x[tm, :].reshape([tm, half, 2])
        a, b = hl.split(pairs)
        swapped = hl.join(b, a).reshape([tm, 2 * half])
        scale = torch.exp(s[0])
        ones = hl.full([tm, 1], 1.0, dtype=x.dtype).expand(-1, 2 * half)
        out[tm, :] = swapped * ones * scale
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def swap_pairs_ref(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    W, M, N = x.size()
    H = hl.specialize(N) // 2
    out = torch.empty_like(x)
    xv = x.view(W, M, H, 2)
    ov = out.view(W, M, H, 2)
    for w, m in hl.tile([W, M]):
        scale = torch.exp(s[w, 0:1].to(torch.float64))
        ov[w, m, :, 0] = (xv[w, m, :, 1].to(torch.float64) * scale).to(out.dtype)
        ov[w, m, :, 1] = (xv[w, m, :, 0].to(torch.float64) * scale).to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16], num_warps=4))
def split_k_matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Helion's matmul_split_k with two splits of K: each CTA of an output
    tile adds its part into the torch.zeros output with hl.atomic_add."""
    m, k = x.size()
    _, n = y.size()
    out = torch.zeros([m, n], dtype=torch.float32, device=x.device)
    k_block = helion.next_power_of_2(helion.cdiv(k, 2))
    for tile_m, tile_n, outer_k in hl.tile(
        [m, n, k], block_size=[None, None, k_block]
    ):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out


@helion.kernel(config=helion.Config(block_sizes=[], num_warps=4))
def split_k_matmul_ref(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor):
    """The two halves of K (K = 32) as two products, added: the split
    kernel's sums in its order (0 + a + b is b + a, whichever CTA adds
    first), so the result is exact."""
    W, M, K = x.size()
    N = hl.specialize(y.size(2))
    M = hl.specialize(M)
    K = hl.specialize(K)
    for w in hl.grid(W):
        out[w, :, :] = hl.dot(x[w, :, 0:16], y[w, 0:16, :]) + hl.dot(
            x[w, :, 16:32], y[w, 16:32, :]
        )
    return out


# Scans (GenScan.cpp): Hillis and Steele over tile.shift, checked against
# sequential references.


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def cumsum_rows(x: torch.Tensor) -> torch.Tensor:
    """torch.cumsum along whole rows (a ragged 37 columns: the masked tail
    comes after every valid element)."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        out[tm, :] = torch.cumsum(x[tm, :], dim=1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def cumsum_rows_ref(x: torch.Tensor, out: torch.Tensor):
    W, M, N = x.size()
    N = hl.specialize(N)
    for w, m in hl.tile([W, M]):
        acc = hl.zeros([w, m, 1], dtype=torch.float64)
        for j in range(N):
            acc = acc + x[w, m, j : j + 1].to(torch.float64)
            out[w, m, j : j + 1] = acc.to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def rev_cumsum_rows(x: torch.Tensor) -> torch.Tensor:
    """hl.cumsum reversed along whole rows of 37: the masked tail must not
    reach the valid elements, which now come before it."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        out[tm, :] = hl.cumsum(x[tm, :], dim=1, reverse=True)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def rev_cumsum_rows_ref(x: torch.Tensor, out: torch.Tensor):
    W, M, N = x.size()
    N = hl.specialize(N)
    for w, m in hl.tile([W, M]):
        acc = hl.zeros([w, m, 1], dtype=torch.float64)
        for k in range(N):
            j = N - 1 - k
            acc = acc + x[w, m, j : j + 1].to(torch.float64)
            out[w, m, j : j + 1] = acc.to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def cumprod_tile_rows(x: torch.Tensor) -> torch.Tensor:
    """hl.cumprod along the rows of each tile of 8 (dim 0: a leading
    dimension), reversed: row r gets the product of rows r .. the tile's
    last."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        out[tm, :] = hl.cumprod(x[tm, :], dim=0, reverse=True)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def cumprod_tile_rows_ref(x: torch.Tensor, out: torch.Tensor):
    W, M, N = x.size()
    M = hl.specialize(M)
    for w in hl.tile(W):
        for b in range(M // 8):
            acc = hl.full([w, 1, N], 1.0, dtype=torch.float64)
            for k in range(8):
                r = b * 8 + 7 - k
                acc = acc * x[w, r : r + 1, :].to(torch.float64)
                out[w, r : r + 1, :] = acc.to(out.dtype)
    return out


def combine_segments(lv, li, rv, ri):
    """Adds when the segment (index) is the same, else restarts."""
    return torch.where(li == ri, lv + rv, rv), ri


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def segmented_prefix(vals: torch.Tensor, starts: torch.Tensor) -> torch.Tensor:
    """hl.associative_scan of a tuple with a combine function (Helion's
    segment_reduction): prefix sums restarting at each segment, within each
    tile of 16. The segment index is itself a scan (torch.cumsum of the
    bool `starts`), so it never decreases along the tile, which the combine
    function needs to be associative (Helion's indices are sorted)."""
    n = vals.size(0)
    out = torch.empty_like(vals)
    for t in hl.tile(n):
        seg = torch.cumsum(starts[t].to(torch.float32), dim=0)
        v, _ = hl.associative_scan(combine_segments, (vals[t], seg), dim=0)
        out[t] = v
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def segmented_prefix_ref(vals: torch.Tensor, starts: torch.Tensor,
                         out: torch.Tensor):
    W, N = vals.size()
    N = hl.specialize(N)
    for w in hl.tile(W):
        acc = hl.zeros([w, 1], dtype=torch.float64)
        for j in range(N):
            v = vals[w, j : j + 1].to(torch.float64)
            if j % 16 == 0:
                acc = v
            else:
                acc = torch.where(starts[w, j : j + 1], v, acc + v)
            out[w, j : j + 1] = acc.to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[2], num_warps=4))
def row_max_reduce(x: torch.Tensor) -> torch.Tensor:
    """hl.reduce with a lambda combine function over whole rows of 37 (the
    masked tail never wins, whatever the signs)."""
    m, n = x.size()
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tm in hl.tile(m):
        out[tm] = hl.reduce(lambda a, b: torch.maximum(a, b), x[tm, :], dim=1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def row_max_reduce_ref(x: torch.Tensor, out: torch.Tensor):
    W, M, N = x.size()
    N = hl.specialize(N)
    for w, m in hl.tile([W, M]):
        out[w, m] = torch.amax(x[w, m, :], dim=-1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def row_max_index(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """torch.max with a dimension (values and indices, and `.values`) over
    whole rows of 37 (a ragged tail that must never win)."""
    m, n = x.size()
    idx = torch.empty([m], dtype=torch.int64, device=x.device)
    best = torch.empty([m], dtype=x.dtype, device=x.device)
    for tm in hl.tile(m):
        v, i = torch.max(x[tm, :], dim=1)
        idx[tm] = i
        best[tm] = torch.max(x[tm, :], dim=1).values + 0 * v
    return idx, best


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def row_max_index_ref(x: torch.Tensor, idx: torch.Tensor, best: torch.Tensor):
    W, M, N = x.size()
    N = hl.specialize(N)
    for w, m in hl.tile([W, M]):
        b = x[w, m, 0:1]
        at = hl.zeros([w, m, 1], dtype=torch.int64)
        for j in range(1, N):
            v = x[w, m, j : j + 1]
            better = v > b
            b = torch.where(better, v, b)
            at = torch.where(better, hl.full([w, m, 1], j, dtype=torch.int64), at)
        idx[w, m] = torch.sum(at, dim=-1)
        best[w, m] = torch.amax(b, dim=-1)
    return idx, best


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def row_argmin(x: torch.Tensor) -> torch.Tensor:
    """x.argmin(dim) (a method) over whole rows."""
    m, n = x.size()
    out = torch.empty([m], dtype=torch.int64, device=x.device)
    for tm in hl.tile(m):
        out[tm] = x[tm, :].argmin(dim=1)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def row_argmin_ref(x: torch.Tensor, out: torch.Tensor):
    W, M, N = x.size()
    N = hl.specialize(N)
    for w, m in hl.tile([W, M]):
        b = x[w, m, 0:1]
        at = hl.zeros([w, m, 1], dtype=torch.int64)
        for j in range(1, N):
            v = x[w, m, j : j + 1]
            better = v < b
            b = torch.where(better, v, b)
            at = torch.where(better, hl.full([w, m, 1], j, dtype=torch.int64), at)
        out[w, m] = torch.sum(at, dim=-1)
    return out


@helion.kernel()
def subscript_outer(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """hl.subscript(v, [slice(None), None]): Helion's spelling of v[:, None]."""
    out = torch.empty([x.size(0), y.size(0)], dtype=x.dtype, device=x.device)
    for ti, tj in hl.tile([x.size(0), y.size(0)]):
        a = hl.subscript(x[ti], [slice(None), None])
        b = hl.subscript(y[tj], [None, slice(None)])
        out[ti, tj] = a * b
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def subscript_outer_ref(x: torch.Tensor, y: torch.Tensor,
                        out: torch.Tensor) -> torch.Tensor:
    W, M = x.size()
    N = hl.specialize(y.size(1))
    for w, i in hl.tile([W, M]):
        out[w, i, :] = x[w, i][:, :, None] * y[w, :][:, None, :]
    return out


@helion.kernel()
def activations(x: torch.Tensor) -> torch.Tensor:
    """torch.nn.functional activations computed as compositions
    (GenComposites.cpp), bf16 in and out (f32 inside)."""
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        v = x[t]
        a = torch.nn.functional.softplus(v) + torch.nn.functional.softplus(
            v, beta=2.0, threshold=1.0) + torch.nn.functional.hardtanh(v, -0.5, 0.5)
        b = torch.nn.functional.relu6(v * 4) + torch.nn.functional.hardsigmoid(
            v) + torch.nn.functional.hardswish(v) + torch.nn.functional.elu(
            v, alpha=0.5)
        c = torch.nn.functional.leaky_relu(v, 0.1) + torch.nn.functional.mish(
            v) + torch.nn.functional.logsigmoid(v) + torch.nn.functional.softsign(v)
        out[t] = a + b + c + torch.reciprocal(v + 4.0) + (v + 3.0).reciprocal()
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def activations_ref(x: torch.Tensor) -> torch.Tensor:
    W, N = x.size()
    N = hl.specialize(N)
    out = torch.empty_like(x)
    for w in hl.tile(W):
        v = x[w, :].to(torch.float64)
        sp = torch.log1p(torch.exp(v))
        sp2 = torch.where(v * 2 > 1.0, v, torch.log1p(torch.exp(v * 2)) / 2)
        a = sp + sp2 + torch.clamp(v, -0.5, 0.5)
        r6 = torch.clamp(v + 3, 0.0, 6.0)
        b = torch.clamp(v * 4, 0.0, 6.0) + r6 / 6 + v * r6 / 6 + torch.where(
            v > 0, v, 0.5 * (torch.exp(v) - 1))
        c = torch.where(v > 0, v, 0.1 * v) + v * torch.tanh(sp) - torch.log1p(
            torch.exp(-v)) + v / (1 + torch.abs(v))
        out[w, :] = (a + b + c + 1 / (v + 4.0) + 1 / (v + 3.0)).to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def row_stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """torch.logsumexp, x.norm / torch.norm (p 2 and 1) along the row, and
    torch.nan_to_num of a log."""
    m, n = x.size()
    n = hl.specialize(n)
    lse = torch.empty([m], dtype=x.dtype, device=x.device)
    nrm = torch.empty([m, 1], dtype=x.dtype, device=x.device)
    cln = torch.empty_like(x)
    for t in hl.tile(m):
        v = x[t, :]
        lse[t] = torch.logsumexp(v, dim=-1)
        nrm[t, :] = v.norm(dim=-1, keepdim=True) + torch.norm(v, 1, -1, True)
        cln[t, :] = torch.nan_to_num(torch.log(v), nan=-1.0)
    return lse, nrm, cln


@helion.kernel(config=helion.Config(block_sizes=[1, 1], num_warps=4))
def row_stats_ref(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    W, M, N = x.size()
    N = hl.specialize(N)
    lse = torch.empty([W, M], dtype=x.dtype, device=x.device)
    nrm = torch.empty([W, M, 1], dtype=x.dtype, device=x.device)
    cln = torch.empty_like(x)
    for w, t in hl.tile([W, M]):
        v = x[w, t, :].to(torch.float64)
        mx = v.amax(-1, keepdim=True)
        lse[w, t] = (torch.log(torch.exp(v - mx).sum(-1, keepdim=True)) + mx).sum(-1).to(lse.dtype)
        nrm[w, t, :] = (torch.sqrt((v * v).sum(-1, keepdim=True)) + torch.abs(v).sum(-1, keepdim=True)).to(nrm.dtype)
        cln[w, t, :] = torch.where(v > 0, torch.log(torch.where(v > 0, v, 1.0)), -1.0).to(cln.dtype)
    return lse, nrm, cln


@helion.kernel(config=helion.Config(block_sizes=[64], num_warps=4))
def roundings(x: torch.Tensor) -> torch.Tensor:
    """torch.floor/ceil/round (halves to even)/trunc, sign, clamp_min and
    clamp_max, each in its own row of out [8, n] (checked with numpy)."""
    out = torch.empty([8, x.size(0)], dtype=x.dtype, device=x.device)
    for t in hl.tile(x.size(0)):
        v = torch.floor(x[t] * 8) * 0.5  # multiples of 0.5: ties for round
        out[0, t] = torch.floor(v)
        out[1, t] = torch.ceil(v)
        out[2, t] = torch.round(v)
        out[3, t] = v.trunc()
        out[4, t] = torch.sign(v)
        out[5, t] = v.clamp_min(0.25)
        out[6, t] = torch.clamp_max(v, -0.25)
        out[7, t] = v.floor() + 0.5
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def variances(x: torch.Tensor) -> torch.Tensor:
    """torch.var / std / var_mean with unbiased, correction= and keepdim,
    in the columns of out [m, 6] (checked with numpy); the rows' tail tile
    is masked (m = 13 in tiles of 4)."""
    m, n = x.size()
    n = hl.specialize(n)
    out = torch.empty([m, 6], dtype=x.dtype, device=x.device)
    for t in hl.tile(m):
        v = x[t, :]
        vv, mm = torch.var_mean(v, dim=-1, keepdim=True)
        out[t, 0:1] = torch.var(v, dim=-1, keepdim=True)
        out[t, 1:2] = v.std(-1, keepdim=True)
        out[t, 2:3] = torch.var(v, -1, False, True)
        out[t, 3:4] = torch.var(v, dim=-1, correction=0, keepdim=True)
        out[t, 4:5] = vv
        out[t, 5:6] = mm
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def concatenations(x: torch.Tensor) -> torch.Tensor:
    """torch.cat of tiles (checked with numpy): RoPE's rotate-half of
    whole rows, three tiles at once (a tuple, dim positional), and
    torch.concat of a row with itself, in tiles of 4 rows (a masked tail of
    rows: concatenated along the columns, it stays masked)."""
    m, n = x.size()
    half = n // 2
    hl.specialize(n)
    out = torch.empty([m, n + 3 * n + 2 * n], dtype=x.dtype, device=x.device)
    for t in hl.tile(m):
        a = x[t, :half]
        b = x[t, half:]
        out[t, :n] = torch.cat([-b, a], dim=-1)
        v = x[t, :]
        three = torch.cat((v, v * 2, v + 1), 1)
        out[t, n:4 * n] = three
        out[t, 4 * n:] = torch.concat([v, v], dim=-1)
    return out


@helion.kernel()
def row_times_weight(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """se_block's product: a row tile times the whole weight (`w[:, :]`,
    more than a CTA's registers), which dslc computes in chunks of K."""
    m, k = x.size()
    out = torch.empty([m, w.size(1)], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        x_tile = x[tile_m, :]
        out[tile_m, :] = torch.sigmoid(x_tile @ w[:, :])
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1, 64], num_warps=4))
def row_times_weight_ref(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """A float64 sum over k of broadcast products (no matmul)."""
    W, M, K = x.size()
    N = w.size(2)
    out = torch.empty([W, M, N], dtype=x.dtype, device=x.device)
    for tile_w, tile_m, tile_n in hl.tile([W, M, N]):
        acc = hl.zeros([tile_w, tile_m, tile_n], dtype=torch.float64)
        for k in range(K):
            a = x[tile_w, tile_m, k].to(torch.float64)
            b = w[tile_w, k, tile_n].to(torch.float64)
            acc = acc + a[:, :, None] * b[:, None, :]
        out[tile_w, tile_m, tile_n] = torch.sigmoid(
            acc.to(torch.float32)).to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def new_fills(x: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
    """flex_attention's device code: a loaded element's new_full([], N)
    (a 0-d value of its dtype; min + max of it and the element is their
    sum, whatever the element), a tile's new_ones(size=(), dtype=bool) in
    torch.where, and a tile's new_zeros([tile]); torch.maximum of two
    numbers."""
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        end = ends[0]
        cap = end.new_full([], 1)
        lim = torch.minimum(end, cap) + torch.maximum(cap, end)
        keep = x[t].new_ones(size=(), dtype=torch.bool)
        v = torch.where(keep, x[t], -1.0)
        one = torch.maximum(1.0, 0.5)  # two numbers: a scalar, 1.0
        out[t] = v * lim * one + x[t].new_zeros([t])
    return out


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=4))
def new_fills_ref(x: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
    W, N = x.size()
    N = hl.specialize(N)
    out = torch.empty_like(x)
    for w in hl.tile(W):
        lim = ends[w, 0:1].to(torch.float64) + 1.0
        out[w, :] = (x[w, :].to(torch.float64) * lim).to(out.dtype)
    return out
