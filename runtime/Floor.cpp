//===- Floor.cpp - The physical floor under a measured time ---------------===//
#include "runtime/Floor.h"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <utility>

namespace dslc::rt {

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

} // namespace dslc::rt
