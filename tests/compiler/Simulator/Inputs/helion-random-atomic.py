"""Issue 26's constructs as Helion's examples use them: dropout with
Philox random numbers of a seed (hl.rand), atomic updates of tiles and
whole rows, slices taken before the loop, int4 unpacking (a run-time slice
start, torch.stack) and nested loops over two tile dimensions. Each kernel
has a reference over every rank's inputs stacked on a leading [world, ...]
dimension (docs/simulator.md, "User references"), written without the
construct it checks: Philox-4x32-10 in int64 arithmetic (as Helion's
philox_rand_ref), plain sums, gathers of even and odd columns.
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl

SEED = 123456789012  # more than 32 bits: both key words matter
MASK = 0xFFFFFFFF


@helion.kernel()
def uniform_1d(x: torch.Tensor, seed: int) -> torch.Tensor:
    """hl.rand over a 1-d tile: offsets are the element indices."""
    n = x.numel()
    out = torch.empty_like(x)
    for t in hl.tile(n):
        out[t] = hl.rand([t], seed=seed) + x[t] * 0
    return out


@helion.kernel()
def uniform_2d(x: torch.Tensor, seed: int) -> torch.Tensor:
    """hl.rand over two tiles: offsets are row-major over x's whole shape."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tm, tn in hl.tile([m, n]):
        out[tm, tn] = hl.rand([tm, tn], seed=seed)
    return out


@helion.kernel()
def dropout(p: float, x: torch.Tensor, seed: int) -> torch.Tensor:
    """Helion's low_mem_dropout."""
    scale = 1.0 / (1.0 - p)
    n = x.numel()
    x_flat = x.view(-1)
    out_flat = torch.empty_like(x_flat)
    for tidx in hl.tile(n):
        xi = x_flat[tidx].to(torch.float32)
        r = hl.rand([tidx], seed=seed)
        keep = r > p
        out_flat[tidx] = torch.where(keep, xi * scale, 0.0).to(x.dtype)
    return out_flat.view_as(x)


def mulhilo(a, b):
    """The high and low 32 bits of a * b (words in int64), by 16-bit
    halves (Helion's _mulhi_lo_u32_ref)."""
    a0 = a & 0xFFFF
    a1 = (a >> 16) & 0xFFFF
    b0 = b & 0xFFFF
    b1 = (b >> 16) & 0xFFFF
    t = a0 * b0
    w0 = t & 0xFFFF
    k = t >> 16
    t = a1 * b0 + k
    w1 = t & 0xFFFF
    w2 = t >> 16
    t = a0 * b1 + w1
    lo = (((t & 0xFFFF) << 16) | w0) & MASK
    hi = (a1 * b1 + w2 + (t >> 16)) & MASK
    return hi, lo


def philox_uniform(off):
    """Uniform floats of int64 offsets under SEED, in int64 arithmetic."""
    c0 = off & MASK
    c1 = (off >> 32) & MASK
    c2 = off * 0
    c3 = off * 0
    k0 = SEED & MASK
    k1 = (SEED >> 32) & MASK
    for _ in hl.static_range(10):
        hi0, lo0 = mulhilo(0xCD9E8D57, c2)
        hi1, lo1 = mulhilo(0xD2511F53, c0)
        c0 = (hi0 ^ c1 ^ k0) & MASK
        c1 = lo0
        c2 = (hi1 ^ c3 ^ k1) & MASK
        c3 = lo1
        k0 = (k0 + 0x9E3779B9) & MASK
        k1 = (k1 + 0xBB67AE85) & MASK
    signed = ((c0 + 0x80000000) & MASK) - 0x80000000
    magnitude = torch.where(signed < 0, -signed - 1, signed)
    return magnitude.to(torch.float32) * 4.6566127342e-10


@helion.kernel(config=helion.Config(block_sizes=[1, 64], num_warps=4))
def uniform_1d_ref(x: torch.Tensor, out: torch.Tensor):
    W, N = x.size()
    for w, t in hl.tile([W, N]):
        off = t.index.to(torch.int64)
        out[w, t] = philox_uniform(off)[None, :]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 8, 32], num_warps=4))
def uniform_2d_ref(x: torch.Tensor, out: torch.Tensor):
    W, M, N = x.size()
    for w, tm, tn in hl.tile([W, M, N]):
        off = (
            tm.index.to(torch.int64)[:, None] * N
            + tn.index.to(torch.int64)[None, :]
        )
        out[w, tm, tn] = philox_uniform(off)[None, :, :]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 64], num_warps=4))
def dropout_ref(x: torch.Tensor, out: torch.Tensor):
    """p = 0.25 (the kernel's --scalar)."""
    W, N = x.size()
    for w, t in hl.tile([W, N]):
        r = philox_uniform(t.index.to(torch.int64))[None, :]
        xi = x[w, t].to(torch.float32)
        out[w, t] = torch.where(r > 0.25, xi * (1.0 / 0.75), 0.0).to(out.dtype)
    return out


@helion.kernel()
def atomic_accumulate(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Atomics onto elements this CTA stored first (dslc does not zero
    torch.zeros outputs, so a launch's atomics start from its own stores):
    a tile added, whole rows (slice(None)) added, a scalar max."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tm in hl.tile(m):
        out[tm, :] = x[tm, :]
        hl.atomic_add(out, [tm, slice(None)], y[tm, :])
        hl.atomic_add(out, [tm, slice(None)], y[tm, :] * 2)
        hl.atomic_max(out, [tm, slice(None)], 0.5)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 4], num_warps=4))
def atomic_accumulate_ref(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor):
    W, M, N = x.size()
    N = hl.specialize(N)
    for w, tm in hl.tile([W, M]):
        s = x[w, tm, :] + y[w, tm, :] + y[w, tm, :] * 2
        out[w, tm, :] = torch.maximum(s, hl.full([w, tm, N], 0.5, dtype=s.dtype))
    return out



@helion.kernel()
def window_sums(x: torch.Tensor) -> torch.Tensor:
    """Slices taken before the loop (Helion's grpo_loss: `logits[:, :-1,
    :]`): windows on x, read in the loop with the window's indices."""
    B, L1, V = x.shape
    L = L1 - 2
    xs = x[:, 1:-1, :]
    xt = xs[:, :, 2:]
    out = torch.empty([B, L], dtype=torch.float32, device=x.device)
    for tb, tl in hl.tile([B, L]):
        acc = hl.zeros([tb, tl], dtype=torch.float32)
        for tv in hl.tile(xt.size(2)):
            acc = acc + torch.sum(xt[tb, tl, tv].to(torch.float32), dim=-1)
        out[tb, tl] = acc + xs[tb, tl, 0]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 2, 4], num_warps=4))
def window_sums_ref(x: torch.Tensor, out: torch.Tensor):
    W, B, L1, V = x.size()
    V = hl.specialize(V)
    for w, tb, tl in hl.tile([W, B, L1 - 2]):
        rows = x[w, tb, tl.index + 1, 2:].to(torch.float32)
        first = x[w, tb, tl.index + 1, 0].to(torch.float32)
        out[w, tb, tl] = torch.sum(rows, dim=-1) + first
    return out


@helion.kernel()
def int4_matmul(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    """Helion's int4_gemm: B packs two int4 per int8 along K; a run-time
    slice of A (`begin : begin + 2 * block`) and torch.stack unpack it."""
    M, K = A.shape
    _, N = B.shape
    C = torch.zeros(M, N, dtype=torch.float32, device=A.device)
    block_k = hl.register_block_size(K // 2)
    for tm, tn in hl.tile([M, N]):
        acc = hl.zeros([tm, tn], dtype=torch.float32)
        for tk in hl.tile(K // 2, block_size=block_k):
            begin = tk.begin * 2
            a = A[tm, begin : (begin + block_k * 2)]
            b = B[tk, tn]
            lo = (b & 0xF).to(torch.int32)
            lo = torch.where(lo >= 8, lo - 16, lo)
            hi = (b >> 4).to(torch.int32)
            both = torch.stack([lo.to(A.dtype), hi.to(A.dtype)], dim=1)
            acc = hl.dot(a, both.reshape(tk.block_size * 2, tn.block_size), acc=acc)
        C[tm, tn] = acc
    return C


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16], num_warps=4))
def int4_matmul_ref(
    A: torch.Tensor, B: torch.Tensor, C: torch.Tensor[torch.float32, 3]
):
    """Even and odd columns of A against the low and high nibbles (world
    1: rank 0's rows)."""
    W, M, K = A.size()
    N = B.size(2)
    for tm, tn in hl.tile([M, N]):
        acc = hl.zeros([tm, tn], dtype=torch.float32)
        for tk in hl.tile(K // 2):
            b = B[0, tk, tn].to(torch.int32)
            lo = b & 0xF
            lo = torch.where(lo >= 8, lo - 16, lo).to(torch.float32)
            hi = (b >> 4).to(torch.float32)
            even = A[0, tm, tk.index * 2].to(torch.float32)
            odd = A[0, tm, tk.index * 2 + 1].to(torch.float32)
            acc = hl.dot(even, lo, acc=acc)
            acc = hl.dot(odd, hi, acc=acc)
        C[0, tm, tn] = acc
    return C


@helion.kernel(config=helion.Config(block_sizes=[2, 8, 16], num_warps=4))
def nested_pairs(x: torch.Tensor) -> torch.Tensor:
    """A nested hl.tile over two dimensions (Helion's moe_matmul_ogs)."""
    b, m, n = x.size()
    out = torch.empty_like(x)
    for tb in hl.tile(b):
        for tm, tn in hl.tile([m, n]):
            out[tb, tm, tn] = x[tb, tm, tn] * 2 + tm.index[None, :, None]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 1, 4, 8], num_warps=4))
def nested_pairs_ref(x: torch.Tensor, out: torch.Tensor):
    W, B, M, N = x.size()
    for w, tb, tm, tn in hl.tile([W, B, M, N]):
        out[w, tb, tm, tn] = x[w, tb, tm, tn] * 2 + tm.index[None, None, :, None]
    return out
