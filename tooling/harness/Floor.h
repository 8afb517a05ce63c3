//===- Floor.h - The physical floor under a measured time -------*- C++ -*-===//
//
// The bytes a call must move, for the physical floor of runtime/Floor.h
// (tuner run / bench, dslrun: a time below the floor is refused).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_FLOOR_H
#define DSLC_TOOLING_HARNESS_FLOOR_H

#include "contract/BindingPlan.h"
#include "runtime/Floor.h"
#include "tooling/harness/Timing.h"

#include <cstddef>
#include <string>

namespace dslc::run {

// The floor itself (roof, floorUs, belowFloor, phasesBelowFloor) is the
// runtime's (runtime/Floor.h); what the harness adds are the bytes a call
// moves, from its binding plan.
using rt::belowFloor;
using rt::deviceMemoryRoof;
using rt::floorUs;
using rt::MemoryRoof;
using rt::phasesBelowFloor;

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

/// The bytes the first local GPU moves for one call of `perRank` bytes on
/// every rank: the ranks of a virtual world share it.
size_t bytesPerGpu(rt::Communicator &comm, size_t perRank);

/// phasesBelowFloor for calls that each move `bytes` per rank, on the
/// first local GPU's roof.
std::string timingBelowFloor(rt::Communicator &comm, const TimingStats &eager,
                             const TimingStats &graph, size_t bytes);

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_FLOOR_H
