//===- ToleranceTest.cpp - The one tolerance model ------------------------===//
#include "contract/Tolerance.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace dslc::contract;

TEST_CASE("tolerance grows with the world size", "[tolerance]") {
  CHECK(unitRoundoff(DType::BFloat16) == std::ldexp(1.0, -8));
  CHECK(unitRoundoff(DType::Float16) == std::ldexp(1.0, -11));
  CHECK(unitRoundoff(DType::Float32) == std::ldexp(1.0, -24));
  CHECK(unitRoundoff(DType::Float64) == std::ldexp(1.0, -53));
  CHECK(unitRoundoff(DType::Int32) == 0);
  CHECK(unitRoundoffForMantissa(3) == 1.0 / 16); // fp8 e4m3
  CHECK(unitRoundoff(DType::Float8E4M3FN) == 1.0 / 16);
  CHECK(unitRoundoff(DType::Float8E5M2) == 1.0 / 8);
  // bf16: 6.8e-3 at 2 ranks, 1.2e-2 at 8, 3.9e-2 at 100 (docs).
  CHECK(relativeTolerance(DType::BFloat16, 2) == Approx(6.77e-3).epsilon(1e-2));
  CHECK(relativeTolerance(DType::BFloat16, 8) == Approx(1.17e-2).epsilon(1e-2));
  CHECK(relativeTolerance(DType::BFloat16, 100) ==
        Approx(3.93e-2).epsilon(1e-2));
  CHECK(relativeTolerance(DType::Int64, 8) == 0);
  CHECK(toleranceText(0) == "exact");
  CHECK(toleranceText(relativeTolerance(DType::BFloat16, 2)) ==
        "tolerance 6.8e-03");
}

TEST_CASE("a result within the model passes, an outlier fails", "[tolerance]") {
  std::vector<double> want(1000), got(1000);
  for (int k = 0; k < 1000; ++k) {
    want[k] = std::sin(k) * 3;
    got[k] = want[k] * (1 + ((k % 3) - 1) * 2e-3); // bf16-like rounding
  }
  double tol = relativeTolerance(DType::BFloat16, 2);
  ToleranceCheck ok =
      checkWithTolerance(got.data(), want.data(), nullptr, 1000, tol);
  CHECK(ok.ok);
  CHECK(ok.mismatched > 0);
  CHECK(ok.relError < tol);
  // One wrong element: the L2 norm would average it away, its own bound
  // does not.
  got[999] = want[999] + 1.0;
  ToleranceCheck bad =
      checkWithTolerance(got.data(), want.data(), nullptr, 1000, tol);
  CHECK_FALSE(bad.ok);
  CHECK(bad.outliers == 1);
  CHECK(bad.worst == 999);
  CHECK(bad.maxAbsError == Approx(1.0).epsilon(1e-2));
}

TEST_CASE("NaN where the reference is finite fails; exact means exact",
          "[tolerance]") {
  std::vector<double> want = {1, 2, 3}, got = {1, NAN, 3};
  ToleranceCheck c =
      checkWithTolerance(got.data(), want.data(), nullptr, 3, 0.1);
  CHECK_FALSE(c.ok);
  CHECK(c.nonFinite == 1);
  CHECK(c.worst == 1);
  std::vector<double> ints = {5, 6, 7}, off = {5, 6, 8};
  ToleranceCheck e = checkWithTolerance(off.data(), ints.data(), nullptr, 3, 0);
  CHECK_FALSE(e.ok);
  CHECK(e.mismatched == 1);
  CHECK(e.worst == 2);
  CHECK(checkWithTolerance(ints.data(), ints.data(), nullptr, 3, 0).ok);
  // A given scale (the summands' norm) judges a sum near 0 fairly.
  std::vector<double> sum0 = {0}, got0 = {0.01}, scale = {4};
  CHECK(
      checkWithTolerance(got0.data(), sum0.data(), scale.data(), 1, 6.8e-3).ok);
  CHECK_FALSE(
      checkWithTolerance(got0.data(), sum0.data(), nullptr, 1, 6.8e-3).ok);
}
