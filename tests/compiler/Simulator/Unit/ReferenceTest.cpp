//===- ReferenceTest.cpp - The tolerance model ---------------------------===//
//
// Reference.h: a float result passes when its L2 error relative to the
// summands' norm is within u * sqrt(W + 1) and no element is off by more
// than 8 times that relative to its own summand norm.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Reference.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace dslc::sim;

namespace {

ElemType bf16() { return ElemType::fromDType("bfloat16"); }

/// A bf16 all-reduce result over `w` ranks accumulated in bf16, rank by
/// rank (the one-shot's order), with its float64 expectation.
struct Sum {
  Buffer out;
  Expected want;
  Sum(unsigned w, int64_t n, uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    out.type = bf16();
    out.numel = n;
    out.f.assign(n, 0);
    out.writtenIn.assign(n, 0);
    want.values.assign(n, 0);
    want.scale.assign(n, 0);
    for (unsigned p = 0; p < w; ++p)
      for (int64_t k = 0; k < n; ++k) {
        double v = roundFloat(ElemType::Kind::BF16, u(rng));
        out.f[k] = p ? roundFloat(ElemType::Kind::BF16, out.f[k] + v) : v;
        want.values[k] += v;
        want.scale[k] += v * v;
      }
    for (double &s : want.scale)
      s = std::sqrt(s);
  }
};

} // namespace

TEST_CASE("bf16 accumulation passes at every world size", "[tolerance]") {
  for (unsigned w : {1u, 2u, 8u, 32u, 100u, 512u}) {
    Sum s(w, 4096, w);
    double tol = tolerance(bf16(), w);
    Check c = checkOutput(s.out, &s.want, 0, false, tol);
    INFO("world size " << w << ": relative error " << c.relError
                       << ", tolerance " << tol);
    CHECK(c.ok);
    CHECK(c.outliers == 0);
    // The model's constant: about 0.3 u sqrt(W), well inside u sqrt(W + 1).
    CHECK(c.relError < tol / 2);
  }
  CHECK(tolerance(bf16(), 100) == Approx(std::ldexp(1.0, -8) * std::sqrt(101)));
}

TEST_CASE("a missing peer fails; one wrong element fails", "[tolerance]") {
  Sum s(8, 4096, 3);
  double tol = tolerance(bf16(), 8);
  SECTION("a rank's contribution missing everywhere") {
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<double> u(-1, 1);
    for (double &v : s.out.f)
      v = roundFloat(ElemType::Kind::BF16, v - u(rng));
    Check c = checkOutput(s.out, &s.want, 0, false, tol);
    CHECK_FALSE(c.ok);
    CHECK(c.relError > tol);
  }
  SECTION("one element of 4096 off by one summand: below the L2 bound, "
          "caught per element") {
    s.out.f[4095] += 0.75;
    Check c = checkOutput(s.out, &s.want, 0, false, tol);
    CHECK(c.relError < tol);
    CHECK(c.outliers == 1);
    CHECK(c.worstIndex == 4095);
    CHECK_FALSE(c.ok);
  }
}

TEST_CASE("a sum that cancels to 0 is judged by its summands", "[tolerance]") {
  Buffer out;
  out.type = bf16();
  out.numel = 1;
  out.f = {std::ldexp(1.0, -9)}; // 0.5 + (-0.5 + 2^-9) rounded
  out.writtenIn = {0};
  Expected want{{std::ldexp(1.0, -9) * 1.001}, {std::sqrt(0.5)}};
  Check c = checkOutput(out, &want, 0, false, tolerance(bf16(), 2));
  CHECK(c.ok);
}

TEST_CASE("integers and copies match exactly", "[tolerance]") {
  Buffer out;
  out.type = ElemType::fromDType("int32");
  out.numel = 2;
  out.i = {3, 5};
  out.writtenIn = {0, 0};
  Expected want{{3, 6}, {}};
  Check c = checkOutput(out, &want, 0, false, 0);
  CHECK_FALSE(c.ok);
  CHECK(c.mismatched == 1);
  CHECK(c.worstIndex == 1);
  CHECK(toleranceText(out.type, false, 0) == "exact");
  CHECK(toleranceText(bf16(), true, 0) == "bitwise");
  CHECK(toleranceText(bf16(), false, tolerance(bf16(), 8)) ==
        "tolerance 1.2e-02");
}
