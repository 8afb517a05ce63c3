// The one-shot all-reduce of examples/one_shot_all_reduce.py written by hand
// in CUDA, following docs/kernel-abi.md exactly (the metadata beside it is
// the one dslc would write). Compiled once per rank: -DMY_RANK=r
// -DWORLD_SIZE=w (my_rank and world_size are constexpr in the DSL).
#include "Spin.cuh"

#include <cuda_bf16.h>

#ifndef MY_RANK
#error "compile with -DMY_RANK=<rank>"
#endif
#ifndef WORLD_SIZE
#error "compile with -DWORLD_SIZE=<world size>"
#endif

using namespace dslc_test;

constexpr int64_t kBlock = 8192;
constexpr int kThreads = 1024;
constexpr int kPerThread = kBlock / kThreads; // 8 bf16 = 16 bytes

extern "C" __global__ void __launch_bounds__(kThreads)
    one_shot_all_reduce_kernel(
        const uint64_t *signal_pad_addrs, int64_t signal_pad_addrs_size0,
        int32_t *local_signal_pad, int64_t local_signal_pad_size0,
        int64_t local_signal_pad_size1, const __nv_bfloat16 *a_shared,
        const uint64_t *a_shared_peers, int64_t a_shared_size0,
        __nv_bfloat16 *out, int64_t out_size0, int64_t timeout_ns,
        DslcErrorRecord *err, void *state) {
  (void)signal_pad_addrs_size0;
  (void)local_signal_pad_size0;
  (void)out_size0;
  (void)state;
  const int64_t n = a_shared_size0;
  const int64_t numTiles = (n + kBlock - 1) / kBlock;
  const int64_t padStride = local_signal_pad_size1;
  for (int64_t tile = blockIdx.x; tile < numTiles; tile += gridDim.x) {
    // hl.signal(stack_signalpad, [tile, my_rank], signal=1, wait_for=0,
    //           scope="sys", hasPreviousMemAccess=False)
    if (threadIdx.x < WORLD_SIZE) {
      int32_t *peerPad =
          reinterpret_cast<int32_t *>(signal_pad_addrs[threadIdx.x]);
      int64_t slot = tile * padStride + MY_RANK;
      casSpin(peerPad + slot, 0, 1, /*release=*/true, timeout_ns, err, __LINE__,
              slot);
    }
    // hl.wait(local_signal_pad, [tile, world], signal=1, update=0)
    if (threadIdx.x < WORLD_SIZE) {
      int64_t slot = tile * padStride + threadIdx.x;
      casSpin(local_signal_pad + slot, 1, 0, /*release=*/false, timeout_ns, err,
              __LINE__, slot);
    }
    __syncthreads();
    // acc = sum over peers of a[tile] (bf16 accumulation, rank order)
    int64_t first = tile * kBlock + threadIdx.x * kPerThread;
    if (first + kPerThread <= n) {
      float acc[kPerThread];
#pragma unroll
      for (int j = 0; j < kPerThread; ++j)
        acc[j] = 0.0f;
#pragma unroll
      for (int p = 0; p < WORLD_SIZE; ++p) {
        const __nv_bfloat16 *src =
            reinterpret_cast<const __nv_bfloat16 *>(a_shared_peers[p]);
        uint4 v = *reinterpret_cast<const uint4 *>(src + first);
        const __nv_bfloat16 *e = reinterpret_cast<const __nv_bfloat16 *>(&v);
#pragma unroll
        for (int j = 0; j < kPerThread; ++j)
          acc[j] = __bfloat162float(
              __float2bfloat16(acc[j] + __bfloat162float(e[j])));
      }
      uint4 o;
      __nv_bfloat16 *oe = reinterpret_cast<__nv_bfloat16 *>(&o);
#pragma unroll
      for (int j = 0; j < kPerThread; ++j)
        oe[j] = __float2bfloat16(acc[j]);
      *reinterpret_cast<uint4 *>(out + first) = o;
    } else {
      for (int64_t i = first; i < n && i < first + kPerThread; ++i) {
        float acc = 0.0f;
        for (int p = 0; p < WORLD_SIZE; ++p) {
          const __nv_bfloat16 *src =
              reinterpret_cast<const __nv_bfloat16 *>(a_shared_peers[p]);
          acc = __bfloat162float(
              __float2bfloat16(acc + __bfloat162float(src[i])));
        }
        out[i] = __float2bfloat16(acc);
      }
    }
    // hl.signal(..., hasPreviousMemAccess=True): bar.sync, then signal
    __syncthreads();
    if (threadIdx.x < WORLD_SIZE) {
      int32_t *peerPad =
          reinterpret_cast<int32_t *>(signal_pad_addrs[threadIdx.x]);
      int64_t slot = tile * padStride + MY_RANK;
      casSpin(peerPad + slot, 0, 1, true, timeout_ns, err, __LINE__, slot);
    }
    // hl.wait(..., hasSubsequentMemAccess=False): no trailing bar.sync
    if (threadIdx.x < WORLD_SIZE) {
      int64_t slot = tile * padStride + threadIdx.x;
      casSpin(local_signal_pad + slot, 1, 0, false, timeout_ns, err, __LINE__,
              slot);
    }
  }
}
