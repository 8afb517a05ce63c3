"""Slices before the loop (windows), run-time slice starts and torch.stack,
as Helion's grpo_loss and int4_gemm write them
(tests/compiler/MLIRGen/slices-stack.test)."""

import torch

import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[2, 8, 32], num_warps=4))
def window(logits: torch.Tensor) -> torch.Tensor:
    B, L1, V = logits.shape
    L = L1 - 1
    logits = logits[:, :-1, :]
    out = torch.empty([B, L], dtype=torch.float32, device=logits.device)
    for tb, tl in hl.tile([B, L]):
        acc = hl.zeros([tb, tl], dtype=torch.float32)
        for tv in hl.tile(V):
            acc = acc + torch.sum(logits[tb, tl, tv], dim=-1)
        out[tb, tl] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def window_view(x: torch.Tensor) -> torch.Tensor:
    y = x[1:, :].view(-1)
    out = torch.empty_like(y)
    for t in hl.tile(y.size(0)):
        out[t] = y[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def window_gather(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    y = x[1:]
    out = torch.empty_like(idx, dtype=torch.float32)
    for t in hl.tile(idx.size(0)):
        out[t] = y[idx[t]]
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 8], num_warps=4))
def unpack_stack(A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
    M, K = A.shape
    _, N = B.shape
    C = torch.zeros(M, N, dtype=torch.bfloat16, device=A.device)
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
        C[tm, tn] = acc.to(torch.bfloat16)
    return C


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def runtime_slice_length(A: torch.Tensor, n: int) -> torch.Tensor:
    M, K = A.shape
    out = torch.empty_like(A)
    for tm in hl.tile(M):
        s = tm.begin
        out[tm, 0:8] = A[tm, s : s + n]
    return out


@helion.kernel(config=helion.Config(block_sizes=[8], num_warps=4))
def cat_mistakes(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    hl.specialize(n)
    out = torch.empty([2 * m, 2 * n], dtype=x.dtype, device=x.device)
    for t in hl.tile(m):
        v = x[t, :]
        out[t, :] = torch.cat([v, x[t, :4]], dim=1)
        out[t, :] = torch.cat([v, v], dim=0)
        out[t, :] = torch.cat([v, v], dim=2)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def size_slices(q: torch.Tensor) -> torch.Tensor:
    # Slices of a size tuple (attention's `lse.reshape(q_in.size()[:-1])`):
    # the returned views' sizes in the metadata.
    qv = q.reshape([-1, q.size(2)])
    out = torch.empty([qv.size(0), 1], dtype=torch.float32, device=q.device)
    for t in hl.tile(qv.size(0)):
        out[t, :] = qv[t, :].sum(-1, keepdim=True)
    return out.reshape(q.size()[:-1]), out.view(q.size()[::-1][1:]), out.view(q.size()[1::-1])


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def size_slice_zero_step(q: torch.Tensor) -> torch.Tensor:
    out = torch.empty(q.size()[::0], dtype=torch.float32, device=q.device)
    for t in hl.tile(q.size(0)):
        out[t] = 1.0
    return out
