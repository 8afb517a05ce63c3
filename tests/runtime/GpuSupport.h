//===- GpuSupport.h - Test kernels' setups shared by tests and children ---===//
#ifndef DSLC_TESTS_RUNTIME_GPUSUPPORT_H
#define DSLC_TESTS_RUNTIME_GPUSUPPORT_H

#include "runtime/Communicator.h"
#include "runtime/Kernel.h"
#include "runtime/SymmetricHeap.h"

#include <memory>
#include <string>
#include <vector>

namespace dslc::test {

/// signal_wait_kernel bound on every local rank to a zeroed uint32 pad.
struct PingPong {
  std::unique_ptr<rt::Kernel> kernel;
  rt::SymmetricBuffer pad;
  std::vector<rt::BoundArgs> args;
};
PingPong makePingPong(rt::Communicator &comm, rt::SymmetricHeap &heap,
                      int64_t rounds, int64_t silentRank, int64_t timeoutMs);
/// The pad's slots on local rank `local`.
std::vector<uint32_t> readPad(rt::Communicator &comm,
                              const rt::SymmetricBuffer &pad, int local);

/// peer_rw on every local rank over a symmetric buffer: the peer tables
/// and every rank's reads from and writes to its neighbours' memory
/// checked; "" when right, else what was wrong.
std::string peerReadWrite(rt::Communicator &comm);

/// The one-shot all-reduce test kernel, one cubin per rank.
std::unique_ptr<rt::Kernel> loadOneShot(rt::Communicator &comm,
                                        int64_t timeoutMs = -1);

/// Child scenario "mp-teams" (GpuTeams.cpp): teams, the peer-table check
/// and the collectives' paths on one node or on two fake hosts.
int mpTeams();

} // namespace dslc::test

#endif
