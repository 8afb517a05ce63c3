//===- DifferentialCheck.h - Run a kernel on a simulator dump ---*- C++ -*-===//
//
// The GPU half of the simulator/GPU differential check: binds every argument
// of a kernel from a dslc --simulate dump (inputs copied from the dump,
// signal pads zeroed, peer tables of the symmetric buffers, scalars by
// value), runs the dump's launch 0 once on every local rank and compares each
// rank's outputs with the simulator's (SimulationDump.h: bitwise for
// integers, at most 1 ulp for floats).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_SIMDUMP_DIFFERENTIALCHECK_H
#define DSLC_TOOLING_SIMDUMP_DIFFERENTIALCHECK_H

#include "runtime/Communicator.h"
#include "runtime/Kernel.h"
#include "tooling/simdump/SimulationDump.h"

#include <string>
#include <vector>

namespace dslc::run {

struct DifferentialResult {
  std::vector<std::string> verdicts; ///< one line per local rank and output
  int failures = 0;                  ///< outputs not acceptable
  int bitwiseEqual = 0;              ///< outputs bitwise equal
  int outputs = 0;
  bool ok() const { return failures == 0 && outputs > 0; }
};

/// Checks the dump against every local rank's metadata, runs launch 0 once
/// and compares. Throws Error on mismatched dumps (InvalidArgument), CUDA or
/// NCCL failures and timed-out spins (KernelTimeout).
DifferentialResult runDifferentialCheck(rt::Communicator &comm,
                                        rt::Kernel &kernel,
                                        const SimulationDump &dump);

} // namespace dslc::run

#endif // DSLC_TOOLING_SIMDUMP_DIFFERENTIALCHECK_H
