//===- LsaTable.h - Peer tables from NCCL's device API ----------*- C++ -*-===//
//
// The only device code of the runtime: a one-warp kernel that writes
// ncclGetLsaPointer(window, offset, peer) for every peer into a device
// table, and the host query of the LSA team (the ranks reachable by load and
// store). Compiled by nvcc (LsaTable.cu) against nccl_device.h.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_LSATABLE_H
#define DSLC_RUNTIME_LSATABLE_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

namespace dslc::rt {

struct LsaTeam {
  int nRanks = 0; ///< ranks in this rank's LSA team
  int rank = 0;   ///< this rank's index in it
};

LsaTeam queryLsaTeam(ncclComm_t comm);

/// Enqueues on `stream` the kernel that fills table[p] =
/// ncclGetLsaPointer(win, offset, p) for p < nPeers, except table[selfIndex]
/// = selfPtr (the ABI wants the rank's own entry to be the local address).
/// The current device must be the window's. Checked; `rank` is for messages.
void enqueueFillPeerTable(ncclWindow_t win, size_t offset, int nPeers,
                          uint64_t *table, int selfIndex, void *selfPtr,
                          cudaStream_t stream, int rank);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_LSATABLE_H
