//===- Tolerance.cpp - How close a float result must be to its reference --===//
#include "contract/Tolerance.h"

#include <cmath>
#include <cstdio>

namespace dslc::contract {

double unitRoundoffForMantissa(int explicitMantissaBits) {
  return std::ldexp(1.0, -(explicitMantissaBits + 1));
}

double unitRoundoff(DType t) {
  switch (t) {
  case DType::BFloat16:
    return unitRoundoffForMantissa(7);
  case DType::Float16:
    return unitRoundoffForMantissa(10);
  case DType::Float32:
    return unitRoundoffForMantissa(23);
  case DType::Float64:
    return unitRoundoffForMantissa(52);
  case DType::Float8E4M3FN:
    return unitRoundoffForMantissa(3);
  case DType::Float8E5M2:
    return unitRoundoffForMantissa(2);
  default:
    return 0;
  }
}

double relativeTolerance(double u, int worldSize) {
  return u * std::sqrt(static_cast<double>(worldSize < 0 ? 0 : worldSize) + 1);
}

double relativeTolerance(DType t, int worldSize) {
  return relativeTolerance(unitRoundoff(t), worldSize);
}

namespace {

/// max(|want_k|, rms(want)) when no scale is given.
double rms(const double *want, int64_t n) {
  double sum = 0;
  int64_t finite = 0;
  for (int64_t k = 0; k < n; ++k)
    if (std::isfinite(want[k])) {
      sum += want[k] * want[k];
      ++finite;
    }
  return finite ? std::sqrt(sum / static_cast<double>(finite)) : 0;
}

} // namespace

ToleranceCheck checkWithTolerance(const double *got, const double *want,
                                  const double *scale, int64_t n, double tol) {
  ToleranceCheck c;
  c.elements = n;
  double meanScale = scale ? 0 : rms(want, n);
  double errSq = 0, scaleSq = 0, worstRatio = -1;
  for (int64_t k = 0; k < n; ++k) {
    double g = got[k], w = want[k];
    bool same = g == w || (std::isnan(g) && std::isnan(w));
    double s = scale ? scale[k] : std::fmax(std::fabs(w), meanScale);
    scaleSq += s * s;
    if (same)
      continue;
    ++c.mismatched;
    if (!std::isfinite(g) && std::isfinite(w)) {
      ++c.nonFinite;
      if (worstRatio < INFINITY) {
        worstRatio = INFINITY;
        c.worst = k;
      }
      continue;
    }
    double err = std::fabs(g - w);
    errSq += err * err;
    c.maxAbsError = std::fmax(c.maxAbsError, err);
    double bound = kElementToleranceFactor * tol * s;
    if (tol == 0 || err > bound)
      ++c.outliers;
    double ratio = bound > 0 ? err / bound : INFINITY;
    if (tol == 0 ? c.worst < 0 : ratio > worstRatio) {
      worstRatio = ratio;
      c.worst = k;
    }
  }
  c.relError =
      scaleSq > 0 ? std::sqrt(errSq / scaleSq) : (errSq > 0 ? INFINITY : 0);
  c.ok = c.nonFinite == 0 && c.outliers == 0 &&
         (tol == 0 ? c.mismatched == 0 : c.relError <= tol);
  return c;
}

std::string toleranceText(double tol) {
  if (tol == 0)
    return "exact";
  char buf[48];
  std::snprintf(buf, sizeof buf, "tolerance %.1e", tol);
  return buf;
}

} // namespace dslc::contract
