//===- Reference.h - The float64 result a kernel must produce ---*- C++ -*-===//
//
// `--reference all-reduce`: every rank's output equals the sum over ranks
// of the symmetric input it is `like` (torch.empty_like(input)), computed in
// float64. `auto` picks all-reduce when the kernel has one output made like
// a symmetric input, and `none` otherwise (the run then only checks for
// deadlocks, races and out-of-bounds accesses, and that every output
// element was written).
// A result passes when ‖out − ref‖₂ / ‖ref‖₂ is within the output dtype's
// tolerance (bf16 1e-2, f16 1e-3, f32 1e-5, f64 1e-12, integers exact) and
// no element was left unwritten.
//
//===----------------------------------------------------------------------===//

#ifndef DSLC_COMPILER_SIMULATOR_REFERENCE_H
#define DSLC_COMPILER_SIMULATOR_REFERENCE_H

#include "compiler/MLIRGen/KernelDescription.h"
#include "compiler/Simulator/Binding.h"
#include "compiler/Simulator/Inputs.h"

#include <optional>
#include <string>
#include <vector>

namespace dslc::sim {

struct ReferenceSpec {
  std::string kind = "none"; ///< "all-reduce" or "none".
  int output = -1;           ///< Argument index of the checked output.
  int input = -1;            ///< Argument index of the reduced input.
};

/// Resolves --reference (auto/all-reduce/none). False with `error` when the
/// kernel does not fit the requested collective.
bool chooseReference(const std::string &requested,
                     const KernelDescription &desc, const Binding &binding,
                     ReferenceSpec &spec, std::string &error);

/// The expected output of `call` (empty for "none").
std::vector<double> computeReference(const ReferenceSpec &spec,
                                     const Inputs &inputs, int64_t call,
                                     unsigned worldSize);

struct Check {
  int64_t unwritten = 0; ///< Output elements the launch never wrote.
  double relError = 0;   ///< ‖out − ref‖ / ‖ref‖ (0 without a reference).
  double maxAbsError = 0;
  int64_t worstIndex = -1;
  bool ok = true;
};

/// Compares output `out` (values and written flags) with `ref`.
Check checkOutput(const Buffer &out, const std::vector<double> &ref);

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_REFERENCE_H
