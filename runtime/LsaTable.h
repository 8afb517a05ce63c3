//===- LsaTable.h - Peer tables from NCCL's device API ----------*- C++ -*-===//
//
// The only device code of the runtime: a one-warp kernel that writes
// ncclGetLsaPointer(window, offset, lsaIndex) for every world rank of the
// LSA team into a device table (entries of ranks outside it are 0), and the
// host queries of NCCL's teams (ncclTeamWorld, ncclTeamLsa; runtime/Teams.h
// says what the runtime does with them). Compiled by nvcc (LsaTable.cu)
// against nccl_device.h.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_LSATABLE_H
#define DSLC_RUNTIME_LSATABLE_H

#include "runtime/Teams.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

namespace dslc::rt {

/// The world team (ncclTeamWorld's answer, from ncclCommCount and
/// ncclCommUserRank; `rank` names the rank in errors) and ncclTeamLsa(comm)
/// (an empty team when NCCL could not start its symmetric runtime).
TeamDesc queryWorldTeam(ncclComm_t comm, int rank);
TeamDesc queryLsaTeam(ncclComm_t comm);

/// Enqueues on `stream` the kernel that fills, for p < worldSize,
/// table[p] = ncclGetLsaPointer(win, offset, p - lsaFirst) when world rank p
/// is in the LSA team [lsaFirst, lsaFirst + lsaSize), 0 otherwise, except
/// table[selfRank] = selfPtr (the ABI wants the rank's own entry to be the
/// local address). The current device must be the window's. Checked;
/// `selfRank` names the rank in messages.
void enqueueFillPeerTable(ncclWindow_t win, size_t offset, int worldSize,
                          int lsaFirst, int lsaSize, uint64_t *table,
                          int selfRank, void *selfPtr, cudaStream_t stream);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_LSATABLE_H
