//===- Inputs.h - Seeded input values per launch and rank -------*- C++ -*-===//
//
// The values the host writes into each input before each launch: uniform
// in [-1, 1) rounded to the element type for floats, in [-100, 100] (or
// [0, 200] unsigned) for integers; a function of (seed, launch, rank,
// parameter) only, so a dump can be replayed on the GPU.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_INPUTS_H
#define DSLC_COMPILER_SIMULATOR_INPUTS_H

#include "compiler/Simulator/Binding.h"

#include <vector>

namespace dslc::sim {

struct InputData {
  std::vector<double> f;
  std::vector<int64_t> i;
};

class Inputs {
public:
  Inputs(const Binding &binding, unsigned worldSize, int64_t calls,
         uint64_t seed);
  /// Values of argument `arg` (an input tensor) on `rank` for `call`.
  const InputData &get(int64_t call, unsigned rank, unsigned arg) const {
    return data[(call * worldSize + rank) * numArgs + arg];
  }

private:
  unsigned worldSize;
  unsigned numArgs;
  std::vector<InputData> data;
};

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_INPUTS_H
