// Peer load/store through a symmetric buffer's peer table. buf is [2, n] on
// every rank: row 0 holds the rank's data, row 1 its inbox. Each rank reads
// row 0 of the next rank into out and writes (rank * 1000003 + i) into the
// next rank's inbox. No spinning: the host puts barriers around it.
#include <stdint.h>

#include "runtime/ErrorRecord.h"

extern "C" __global__ void
peer_rw_kernel(const int32_t *buf, const uint64_t *buf_peers, int64_t buf_size0,
               int64_t buf_size1, int64_t rank, int64_t world, int32_t *out,
               int64_t out_size0, int64_t timeout_ns, DslcErrorRecord *err,
               void *state) {
  (void)buf;
  (void)buf_size0;
  (void)out_size0;
  (void)timeout_ns;
  (void)err;
  (void)state;
  const int64_t n = buf_size1;
  int32_t *next = reinterpret_cast<int32_t *>(buf_peers[(rank + 1) % world]);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    out[i] = next[i];
    next[n + i] = static_cast<int32_t>(rank * 1000003 + i);
  }
}
