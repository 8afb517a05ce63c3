//===- Reference.h - The float64 result a kernel must produce ---*- C++ -*-===//
//
// The collective a kernel's result O is checked against, computed from its
// data input I (Binding::collective, input and output; Binding.h says how
// they are chosen):
//   - all-reduce: on every rank, O equals the sum over ranks of I (same
//     sizes), computed in float64;
//   - reduce-scatter: I holds W x S elements, O holds S; on rank r, O
//     equals the float64 sum over ranks of I[r x S, (r + 1) x S);
// both pass when ‖out − ref‖₂ / ‖ref‖₂ is within the output dtype's
// tolerance (bf16 1e-2, f16 1e-3, f32 1e-5, f64 1e-12, integers exact), so
// any accumulation order and precision (fp32 included) passes;
//   - all-gather: I holds S elements, O holds W x S (1-d, or 2-d [W, S]);
//     on every rank, O's elements [p x S, (p + 1) x S) (row p) equal rank
//     p's I bitwise (a copy: no tolerance).
// `auto` checks the collective the binding chose, when its sizes fit and
// the kernel communicates (it has a peer table or an LL scratch); `none`
// otherwise (the run then only checks for deadlocks, races and
// out-of-bounds accesses, and that every output element was written). An
// explicit reference that does not fit is refused with the reason.
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
  /// "all-reduce", "reduce-scatter", "all-gather" or "none".
  std::string kind = "none";
  int output = -1; ///< Argument index of the checked output.
  int input = -1;  ///< Argument index of the reduced/gathered input.
  /// Elements of the output (reduce-scatter: of one rank's slice of I).
  int64_t outputElements = 0;
  /// Results must match bitwise (all-gather), not within a tolerance.
  bool bitwise = false;
};

/// Resolves --reference (auto, all-reduce, reduce-scatter, all-gather,
/// none). False with `error` when the kernel does not fit the requested
/// collective.
bool chooseReference(const std::string &requested,
                     const KernelDescription &desc, const Binding &binding,
                     unsigned worldSize, ReferenceSpec &spec,
                     std::string &error);

/// The expected output of `call` on `rank` (empty for "none").
std::vector<double> computeReference(const ReferenceSpec &spec,
                                     const Inputs &inputs, int64_t call,
                                     unsigned rank, unsigned worldSize);

struct Check {
  int64_t unwritten = 0;   ///< Output elements the launch never wrote.
  int64_t firstUnwritten = -1;
  int64_t overwritten = 0; ///< Elements a later launch already wrote.
  int64_t firstOverwritten = -1;
  int64_t overwrittenBy = -1; ///< The launch that wrote firstOverwritten.
  /// Elements this launch wrote that are NaN or (integers of 32 bits or
  /// more) the poison pattern, where the reference (if any) is not NaN.
  int64_t poisoned = 0;
  int64_t firstPoisoned = -1;
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
