//===- LsaTable.cu - Peer tables from NCCL's device API -------------------===//
#include "runtime/LsaTable.h"

#include "runtime/Error.h"

#include <nccl_device.h>

namespace dslc::rt {

namespace {
__global__ void fillPeerTableKernel(ncclWindow_t win, size_t offset,
                                    int nPeers, uint64_t *table, int self,
                                    uint64_t selfPtr) {
  for (int p = threadIdx.x; p < nPeers; p += blockDim.x)
    table[p] = p == self ? selfPtr
                         : reinterpret_cast<uint64_t>(
                               ncclGetLsaPointer(win, offset, p));
}
} // namespace

LsaTeam queryLsaTeam(ncclComm_t comm) {
  ncclTeam_t t = ncclTeamLsa(comm);
  LsaTeam team;
  team.nRanks = t.nRanks;
  team.rank = t.rank;
  return team;
}

void enqueueFillPeerTable(ncclWindow_t win, size_t offset, int nPeers,
                          uint64_t *table, int selfIndex, void *selfPtr,
                          cudaStream_t stream, int rank) {
  fillPeerTableKernel<<<1, 32, 0, stream>>>(
      win, offset, nPeers, table, selfIndex,
      reinterpret_cast<uint64_t>(selfPtr));
  DSLC_CUDART(rank, cudaGetLastError());
}

} // namespace dslc::rt
