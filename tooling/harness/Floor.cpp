//===- Floor.cpp - The physical floor under a measured time ---------------===//
#include "tooling/harness/Floor.h"

#include <fmt/format.h>

namespace dslc::run {

size_t outputBytes(const contract::BindingPlan &plan) {
  size_t total = 0;
  for (const contract::ArgBinding &a : plan.args)
    if (a.isTensor && a.isOutput())
      total += static_cast<size_t>(a.numel()) * contract::dtypeSize(a.dtype);
  return total;
}

size_t collectiveCallBytes(contract::CollectiveKind c, int64_t n, int world,
                           size_t elementBytes) {
  int64_t in = c == contract::CollectiveKind::AllGather ? n / world : n;
  int64_t out = c == contract::CollectiveKind::ReduceScatter ? n / world : n;
  return static_cast<size_t>(in + out) * elementBytes;
}

size_t bytesPerGpu(rt::Communicator &comm, size_t perRank) {
  return perRank * static_cast<size_t>(comm.isVirtual() ? comm.worldSize() : 1);
}

std::string timingBelowFloor(rt::Communicator &comm, const TimingStats &eager,
                             const TimingStats &graph, size_t bytes) {
  return phasesBelowFloor(eager.measured() ? eager.medianUs : 0,
                          graph.measured() ? graph.medianUs : 0,
                          bytesPerGpu(comm, bytes),
                          deviceMemoryRoof(comm.local(0).device));
}

} // namespace dslc::run
