//===- LsaTable.cu - Peer tables from NCCL's device API -------------------===//
#include "runtime/LsaTable.h"

#include "runtime/Error.h"

#include <nccl_device.h>

namespace dslc::rt {

namespace {
__global__ void fillPeerTableKernel(ncclWindow_t win, size_t offset,
                                    int worldSize, int lsaFirst, int lsaSize,
                                    uint64_t *table, int self,
                                    uint64_t selfPtr) {
  for (int p = threadIdx.x; p < worldSize; p += blockDim.x) {
    int lsa = p - lsaFirst;
    uint64_t v = 0;
    if (p == self)
      v = selfPtr;
    else if (lsa >= 0 && lsa < lsaSize)
      v = reinterpret_cast<uint64_t>(ncclGetLsaPointer(win, offset, lsa));
    table[p] = v;
  }
}

TeamDesc toDesc(ncclTeam_t t) {
  TeamDesc d;
  d.nRanks = t.nRanks;
  d.rank = t.rank;
  d.stride = t.stride;
  return d;
}
} // namespace

TeamDesc queryWorldTeam(ncclComm_t comm, int rank) {
  // What ncclTeamWorld(comm) returns, from calls every NCCL 2.x exports.
  TeamDesc d;
  DSLC_NCCL(rank, ncclCommCount(comm, &d.nRanks));
  DSLC_NCCL(rank, ncclCommUserRank(comm, &d.rank));
  return d;
}
TeamDesc queryLsaTeam(ncclComm_t comm) { return toDesc(ncclTeamLsa(comm)); }

void enqueueFillPeerTable(ncclWindow_t win, size_t offset, int worldSize,
                          int lsaFirst, int lsaSize, uint64_t *table,
                          int selfRank, void *selfPtr, cudaStream_t stream) {
  fillPeerTableKernel<<<1, 32, 0, stream>>>(
      win, offset, worldSize, lsaFirst, lsaSize, table, selfRank,
      reinterpret_cast<uint64_t>(selfPtr));
  DSLC_CUDART(selfRank, cudaGetLastError());
}

} // namespace dslc::rt
