//===- Reference.h - The float64 result a kernel must produce ---*- C++ -*-===//
//
// The collective a kernel's result O is checked against, computed from its
// data input I (Binding::collective, input and output; Binding.h says how
// they are chosen):
//   - all-reduce: on every rank, O equals the sum over ranks of I (same
//     sizes), computed in float64;
//   - reduce-scatter: I holds W x S elements, O holds S; on rank r, O
//     equals the float64 sum over ranks of I[r x S, (r + 1) x S);
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
// Floats pass within the contract's tolerance model (contract/Tolerance.h,
// the one model for the simulator, dslrun and the tuner): summing W values
// in a precision of unit roundoff u, in any order, leaves a relative error
// that grows as u * sqrt(W) (about 0.3 u sqrt(W) for uniform inputs: the
// bf16 one-shot at 2, 8, 32, 100 ranks measures 1.8e-3, 3.7e-3, 7.0e-3,
// 1.2e-2), so the L2 error relative to the summands' norm must stay within
// u * sqrt(W + 1) and no element beyond 8 times that of its own magnitude
// (the norm of the values summed into it; max(|ref_k|, rms(ref)) for a user
// reference). Integers and all-gathers match exactly.
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
  /// "all-reduce", "reduce-scatter", "all-gather", "user" (a reference
  /// kernel, UserReference.h) or "none".
  std::string kind = "none";
  /// A user reference: "FILE.py:NAME" (messages), and the outputs it
  /// checks (argument indices; `output` is the first).
  std::string userName;
  std::vector<int> outputs;
  int output = -1; ///< Argument index of the checked output.
  /// `auto` found no reference: why (for the verdict).
  std::string why;
  int input = -1; ///< Argument index of the reduced/gathered input.
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

/// What one output of one rank must hold after one launch.
struct Expected {
  std::vector<double> values;
  /// Per element, the magnitude its rounding errors grow with (tolerance
  /// model above); empty: max(|value|, rms of the values).
  std::vector<double> scale;
};

/// The expected output of `call` on `rank` (empty for "none").
Expected computeReference(const ReferenceSpec &spec, const Inputs &inputs,
                          int64_t call, unsigned rank, unsigned worldSize);

/// The relative tolerance of a float result of `type` made from the data of
/// `worldSize` ranks (contract::relativeTolerance); 0 for integers.
double tolerance(const ElemType &type, unsigned worldSize);

struct Check {
  int64_t unwritten = 0; ///< Output elements the launch never wrote.
  int64_t firstUnwritten = -1;
  int64_t overwritten = 0; ///< Elements a later launch already wrote.
  int64_t firstOverwritten = -1;
  int64_t overwrittenBy = -1; ///< The launch that wrote firstOverwritten.
  /// Elements this launch wrote that are NaN or (integers of 32 bits or
  /// more) the poison pattern, where the reference (if any) is not NaN.
  int64_t poisoned = 0;
  int64_t firstPoisoned = -1;
  int64_t mismatched = 0; ///< Elements that differ from the reference.
  /// Elements off by more than contract::kElementToleranceFactor x tol x
  /// scale (exact checks: every one that differs).
  int64_t outliers = 0;
  int64_t nonFinite = 0; ///< NaN or infinite where the reference is finite.
  double relError = 0;   ///< ||out - ref|| / ||scale|| (0 without reference).
  double maxAbsError = 0;
  /// The worst element: the first that is not finite, else the largest
  /// error relative to its bound (exact checks: the first that differs).
  int64_t worstIndex = -1;
  bool valuesOk = true; ///< Within the tolerance (or exact).
  bool ok = true;
};

/// Compares output `out` after launch `call` (values and the launch that
/// wrote each element) with `ref` (null: only the written check), within
/// `tol` (tolerance model above) or, when `bitwise`, exactly.
Check checkOutput(const Buffer &out, const Expected *ref, int64_t call,
                  bool bitwise, double tol);

/// The tolerance text of a check: "bitwise", "exact" or "tolerance
/// 3.9e-02".
std::string toleranceText(const ElemType &type, bool bitwise, double tol);

} // namespace dslc::sim

#endif // DSLC_COMPILER_SIMULATOR_REFERENCE_H
