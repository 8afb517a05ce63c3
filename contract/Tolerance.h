//===- Tolerance.h - How close a float result must be to its reference ---===//
//
// The one tolerance model for every check of a kernel's result against a
// float64 reference: the simulator's, dslrun's and the tuner's (a DSL
// reference kernel, a simulator dump). Summing W values in a precision of
// unit roundoff u (2^-8 bf16, 2^-11 f16, 2^-24 f32, 2^-53 f64; 2^-4 / 2^-3
// for fp8 e4m3 / e5m2), in any order, rounding every partial sum, leaves a
// relative error that grows as u * sqrt(W). W is the world size for a
// collective; a kernel whose outputs sum more terms inside one rank (a
// matmul's K) passes that count (dslrun --sum-terms). A float result passes
// when
//   ||out - ref||_2 / ||scale||_2 <= tol = u * sqrt(W + 1)
// and no element is off by more than kElementToleranceFactor * tol *
// scale_k, where scale_k is the magnitude element k's rounding errors grow
// with (the norm of the summands for a reduction; max(|ref_k|, rms(ref))
// for a reference kernel). A NaN or infinity where the reference is finite
// fails. Integers (tol 0) must match exactly.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_TOLERANCE_H
#define DSLC_CONTRACT_TOLERANCE_H

#include "contract/DType.h"

#include <cstdint>
#include <string>

namespace dslc::contract {

/// How far past the tolerance one element may be (times its scale).
inline constexpr double kElementToleranceFactor = 8.0;

/// 2^-(explicitMantissaBits + 1): the unit roundoff of a float format with
/// that many stored mantissa bits (bf16 7, f16 10, f32 23, f64 52, e4m3 3,
/// e5m2 2).
double unitRoundoffForMantissa(int explicitMantissaBits);
/// The unit roundoff of a floating dtype; 0 for integers and bool.
double unitRoundoff(DType t);
/// u * sqrt(worldSize + 1) (0 when u is 0).
double relativeTolerance(double unitRoundoff, int worldSize);
double relativeTolerance(DType t, int worldSize);

struct ToleranceCheck {
  int64_t elements = 0;
  int64_t mismatched = 0; ///< elements that differ at all
  int64_t outliers = 0;   ///< beyond kElementToleranceFactor x tol x scale
  int64_t nonFinite = 0;  ///< NaN/inf where the reference is finite
  double relError = 0;    ///< ||out - ref|| / ||scale||
  double maxAbsError = 0;
  /// The worst element (largest error relative to its bound; exact: the
  /// first that differs); -1 when none differs.
  int64_t worst = -1;
  bool ok = true;
};

/// Compares `n` values `got` with `want` within `tol` (0: exactly).
/// `scale` gives each element's magnitude, or is null for max(|want_k|,
/// rms(want)).
ToleranceCheck checkWithTolerance(const double *got, const double *want,
                                  const double *scale, int64_t n, double tol);

/// "exact" or "tolerance 6.8e-03".
std::string toleranceText(double tol);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_TOLERANCE_H
