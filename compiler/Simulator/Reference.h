//===- Reference.h - The float64 result a kernel must produce ---*- C++ -*-===//
//
// `--reference all-reduce`: every rank's output equals the sum over ranks
// of the symmetric input it is `like` (torch.empty_like(input)), computed in
// float64; passes when ‖out − ref‖₂ / ‖ref‖₂ is within the output dtype's
// tolerance (bf16 1e-2, f16 1e-3, f32 1e-5, f64 1e-12, integers exact).
// `--reference all-gather`: the kernel's result is the 2-d tensor G stored
// into through a stack view (Binding.h); on every rank r, row p of G equals
// rank p's shard, the 1-d input of G's dtype whose size is G's dimension 1.
// A copy, so it passes only when every element is bitwise equal.
// `auto` picks all-reduce when the kernel has one output made like a
// symmetric input; all-gather when it has no torch.empty_like output, one
// tensor G is stored into through a stack view, G is 2-d with dimension 0
// bound to the world size, and exactly one 1-d input has G's dtype and
// G's dimension 1 as its size; `none` otherwise (the run then only checks
// for deadlocks, races and out-of-bounds accesses, and that every output
// element was written).
// With every reference, no output element may be left unwritten by the
// launch (or already overwritten by a peer's next launch).
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
  std::string kind = "none"; ///< "all-reduce", "all-gather" or "none".
  int output = -1;           ///< Argument index of the checked output.
  int input = -1;            ///< Argument index of the reduced/gathered input.
  /// Results must match bitwise (all-gather), not within a tolerance.
  bool bitwise = false;
};

/// Resolves --reference (auto/all-reduce/all-gather/none). False with `error` when the
/// kernel does not fit the requested collective.
bool chooseReference(const std::string &requested,
                     const KernelDescription &desc, const Binding &binding,
                     unsigned worldSize, ReferenceSpec &spec,
                     std::string &error);

/// The expected output of `call` (empty for "none").
std::vector<double> computeReference(const ReferenceSpec &spec,
                                     const Inputs &inputs, int64_t call,
                                     unsigned worldSize);

struct Check {
  int64_t unwritten = 0;   ///< Output elements the launch never wrote.
  int64_t firstUnwritten = -1;
  int64_t overwritten = 0; ///< Elements a later launch already wrote.
  int64_t firstOverwritten = -1;
  int64_t overwrittenBy = -1; ///< The launch that wrote firstOverwritten.
  int64_t mismatched = 0;  ///< Elements that differ from the reference.
  double relError = 0;   ///< ‖out − ref‖ / ‖ref‖ (0 without a reference).
  double maxAbsError = 0;
  int64_t worstIndex = -1;
  bool ok = true;
};

/// Compares output `out` after launch `call` (values and the launch that
/// wrote each element) with `ref` (empty: only the written check), within
/// the dtype's tolerance or, when `bitwise`, exactly.
Check checkOutput(const Buffer &out, const std::vector<double> &ref,
                  int64_t call, bool bitwise);

/// The tolerance text of a check: "bitwise" or "tolerance 1e-02".
std::string toleranceText(const ElemType &type, bool bitwise);

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_REFERENCE_H
