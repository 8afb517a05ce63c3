# Cache hints of loads: hl.load's eviction_policy= and the config's
# load_eviction_policies (eviction.test).
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def explicit(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        a = hl.load(x, [t], eviction_policy="evict_last")
        out[t] = a + y[t]
    return out


@helion.kernel(
    config=helion.Config(
        block_sizes=[1024], num_warps=4, load_eviction_policies=["", "first"]
    )
)
def from_config(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = x[t] + y[t]
    return out


@helion.kernel(
    config=helion.Config(
        block_sizes=[1024], num_warps=4, load_eviction_policies=["last"]
    )
)
def explicit_wins(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        a = hl.load(x, [t], eviction_policy="")
        out[t] = a + y[t]
    return out


@helion.kernel(config=helion.Config(block_sizes=[1024]))
def triton_spelling(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        out[t] = hl.load(x, [t], eviction_policy="last")
    return out


@helion.kernel(config=helion.Config(block_sizes=[1024]))
def store_hint(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for t in hl.tile(x.size(0)):
        hl.store(out, [t], x[t], eviction_policy="evict_first")
    return out


@helion.kernel(
    config=helion.Config(
        block_sizes=[8, 128], num_warps=4,
        load_eviction_policies=["last", "first"]
    )
)
def shape_only(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tm in hl.tile(m):
        acc = torch.zeros_like(x[tm, 0], dtype=torch.float32)
        for tn in hl.tile(n):
            acc = acc + torch.sum(x[tm, tn] * y[tm, tn], dim=-1)
        out[tm] = acc
    return out
