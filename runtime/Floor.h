//===- Floor.h - The physical floor under a measured time -------*- C++ -*-===//
//
// No call moves data through a GPU's memory faster than its HBM allows: a
// time below bytes / peak bandwidth means the timing did not cover the work
// (the kernel ran on another stream, or not at all), and such a time is
// refused, never reported or cached (issue 28). The floor is generous:
// twice the L2 is taken as served from cache (reads left by the call
// before, writes the L2 holds back), so only calls that move more than that
// are checked. The one rule for the tuner's worker, dslrun and the Python
// package's measurer (through the C API, dslcTimesBelowFloor).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_FLOOR_H
#define DSLC_RUNTIME_FLOOR_H

#include <cstddef>
#include <string>

namespace dslc::rt {

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

/// "" when the eager and graph medians (us; 0: not measured) of a call
/// moving `bytes` through one GPU are physically possible; else why not,
/// for the first that is not.
std::string phasesBelowFloor(double eagerUs, double graphUs, size_t bytes,
                             const MemoryRoof &roof);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_FLOOR_H
