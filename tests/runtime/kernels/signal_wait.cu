// Signal/wait ping-pong across every rank, with a per-instance epoch in
// __dslc_state so that back-to-back calls and graph replays need no reset.
// Round r of call e stores (e * rounds + r + 1) into slot `rank` of every
// peer's pad (st.release.sys) and waits (ld.acquire.sys, bounded) until each
// peer's slot in its own pad has reached that value. `silent_rank` never
// signals (a planted hang: set it to -1 for none).
#include "Spin.cuh"

using namespace dslc_test;

extern "C" __global__ void
signal_wait_kernel(const uint64_t *pad_addrs, int64_t pad_addrs_size0,
                   uint32_t *local_pad, int64_t local_pad_size0, int64_t rank,
                   int64_t rounds, int64_t silent_rank, int64_t timeout_ns,
                   DslcErrorRecord *err, void *state) {
  const int world = static_cast<int>(pad_addrs_size0);
  (void)local_pad_size0;
  uint32_t *epochPtr = static_cast<uint32_t *>(state);
  const uint32_t epoch = *epochPtr;
  const int p = threadIdx.x;
  for (int64_t r = 0; r < rounds; ++r) {
    uint32_t value = static_cast<uint32_t>(epoch * rounds + r + 1);
    __syncthreads();
    if (p < world && p != rank && rank != silent_rank) {
      uint32_t *peerPad = reinterpret_cast<uint32_t *>(pad_addrs[p]);
      stReleaseSys(peerPad + rank, value);
    }
    if (p < world && p != rank) {
      uint64_t start = globalTimer();
      for (uint32_t it = 0;; ++it) {
        uint32_t seen = ldAcquireSys(local_pad + p);
        if (static_cast<int32_t>(seen - value) >= 0)
          break;
        if (timeout_ns > 0 && (it & 63) == 63 &&
            globalTimer() - start > static_cast<uint64_t>(timeout_ns))
          timeoutTrap(err, __LINE__, p, value, seen, local_pad + p);
      }
    }
  }
  __syncthreads();
  if (p == 0)
    *epochPtr = epoch + 1;
}
