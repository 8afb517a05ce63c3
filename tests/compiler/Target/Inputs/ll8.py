from __future__ import annotations

import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[512], num_warps=2))
def ll8_exchange(
    x: torch.Tensor[torch.float32, 1],
    scratch: torch.Tensor[torch.int64, 1],
    my_rank: hl.constexpr,
    world_size: hl.constexpr,
) -> torch.Tensor:
    out = torch.empty_like(x)
    peers = torch.ops.symm_mem.get_remote_tensors(scratch, "")
    for t in hl.tile(x.size(0)):
        flag = hl.epoch()
        # LL8: 4 data bytes per packet, one f32 per packet.
        hl.ll_put(peers[(my_rank + 1) % world_size], t.id * 512, x[t], flag, packet=8)
        out[t] = hl.ll_get(scratch, t.id * 512, flag, [t], dtype=torch.float32, packet=8)
    return out


@helion.kernel(config=helion.Config(block_sizes=[512], num_warps=2))
def bad_packet(
    x: torch.Tensor[torch.float32, 1],
    scratch: torch.Tensor[torch.int64, 1],
):
    for t in hl.tile(x.size(0)):
        hl.ll_put(scratch, 0, x[t], 1.5)
        hl.ll_put(scratch, 0, x[t], 1, packet=12)
