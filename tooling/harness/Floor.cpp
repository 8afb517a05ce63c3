//===- Floor.cpp - The physical floor under a measured time ---------------===//
#include "tooling/harness/Floor.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

namespace dslc::run {

MemoryRoof deviceMemoryRoof(int device) {
  int clockKHz = 0, busBits = 0, l2 = 0;
  MemoryRoof roof;
  if (cudaDeviceGetAttribute(&clockKHz, cudaDevAttrMemoryClockRate, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth,
                             device) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) !=
          cudaSuccess) {
    (void)cudaGetLastError();
    return roof;
  }
  // Double data rate: two transfers per clock on every bit of the bus.
  roof.bytesPerS = 2.0 * clockKHz * 1e3 * busBits / 8.0;
  roof.l2Bytes = static_cast<size_t>(l2);
  return roof;
}

double floorUs(size_t bytes, const MemoryRoof &roof) {
  if (!roof.known() || bytes <= 2 * roof.l2Bytes)
    return 0;
  return static_cast<double>(bytes - 2 * roof.l2Bytes) / roof.bytesPerS * 1e6;
}

std::string belowFloor(double us, size_t bytes, const MemoryRoof &roof,
                       const std::string &what) {
  double floor = floorUs(bytes, roof);
  if (us >= floor)
    return "";
  return fmt::format(
      "{}: {:.2f} us is below the physical floor {:.2f} us ({:.1f} MiB at "
      "{:.2f} TB/s beyond twice the {:.0f} MiB L2): the timing did not "
      "cover the work",
      what, us, floor, bytes / 1048576.0, roof.bytesPerS / 1e12,
      roof.l2Bytes / 1048576.0);
}

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

std::string phasesBelowFloor(double eagerUs, double graphUs, size_t bytes,
                             const MemoryRoof &roof) {
  for (auto [us, phase] : {std::pair{eagerUs, "eager"}, {graphUs, "graph"}}) {
    if (us <= 0)
      continue;
    std::string why = belowFloor(us, bytes, roof,
                                 fmt::format("the {} time of a call", phase));
    if (!why.empty())
      return why;
  }
  return "";
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
