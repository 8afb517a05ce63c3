//===- Floor.h - The physical floor under a measured time -------*- C++ -*-===//
//
// No call moves data through a GPU's memory faster than its HBM allows: a
// time below bytes / peak bandwidth means the timing did not cover the work
// (the kernel ran on another stream, or not at all), and such a time is
// refused, never reported or cached (tuner run / bench, issue 28). The
// floor is generous: twice the L2 is taken as served from cache (reads
// left by the call before, writes the L2 holds back), so only calls that
// move more than that are checked.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_FLOOR_H
#define DSLC_TOOLING_HARNESS_FLOOR_H

#include "contract/BindingPlan.h"
#include "tooling/harness/Timing.h"

#include <cstddef>
#include <string>

namespace dslc::run {

/// What bounds a GPU's memory traffic.
struct MemoryRoof {
  double bytesPerS = 0; ///< HBM peak: 2 x memory clock x bus width
  size_t l2Bytes = 0;
  bool known() const { return bytesPerS > 0; }
};

/// The roof of CUDA device `device` from its attributes (a zero roof when
/// the driver does not report them: nothing is then checked).
MemoryRoof deviceMemoryRoof(int device);

/// The least time (us) of a call that moves `bytes` to or from memory on
/// one GPU: the bytes beyond twice the L2 at the peak; 0 for an unknown
/// roof.
double floorUs(size_t bytes, const MemoryRoof &roof);

/// "" when `us` is physically possible for a call moving `bytes`; else why
/// not, naming `what`, the floor, the bytes and the roof.
std::string belowFloor(double us, size_t bytes, const MemoryRoof &roof,
                       const std::string &what);

/// The bytes one rank's call of a kernel must move, from its binding plan:
/// every output tensor written once (inputs are not counted: a kernel may
/// read a part of one, e.g. an embedding's rows, and what it does read is
/// beyond the floor's promise). A lower bound of the traffic.
size_t outputBytes(const contract::BindingPlan &plan);

/// The bytes one rank's call of collective `c` over N = `n` elements in
/// total moves at least: its input and its output (all-gather's input and
/// reduce-scatter's output are N / world).
size_t collectiveCallBytes(contract::CollectiveKind c, int64_t n, int world,
                           size_t elementBytes);

/// "" when the eager and graph medians (us; 0: not measured) of a call
/// moving `bytes` through one GPU are physically possible; else why not,
/// for the first that is not.
std::string phasesBelowFloor(double eagerUs, double graphUs, size_t bytes,
                             const MemoryRoof &roof);

/// The bytes the first local GPU moves for one call of `perRank` bytes on
/// every rank: the ranks of a virtual world share it.
size_t bytesPerGpu(rt::Communicator &comm, size_t perRank);

/// phasesBelowFloor for calls that each move `bytes` per rank, on the
/// first local GPU's roof.
std::string timingBelowFloor(rt::Communicator &comm, const TimingStats &eager,
                             const TimingStats &graph, size_t bytes);

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_FLOOR_H
