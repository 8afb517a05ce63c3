//===- NumericsTest.cpp - Element types and their rounding ---------------===//
//
// fp8 conversions as PTX cvt.rn.satfinite does them (round to nearest
// even, saturate to the largest finite value, NaN stays NaN), bf16/f16
// rounding from the f32 result, and the bytes the GPU holds.
//
//===----------------------------------------------------------------------===//

#include "compiler/Simulator/Numerics.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace dslc::sim;

namespace {

uint8_t fp8(ElemType::Kind kind, double v) {
  ElemType t;
  t.kind = kind;
  t.bits = 8;
  unsigned char byte = 0;
  encode(t, roundFloat(kind, v), 0, &byte);
  return byte;
}

double fp8Value(ElemType::Kind kind, uint8_t bits) {
  ElemType t;
  t.kind = kind;
  t.bits = 8;
  double f;
  int64_t i;
  decode(t, &bits, f, i);
  return f;
}

constexpr auto E4M3 = ElemType::Kind::F8E4M3FN;
constexpr auto E5M2 = ElemType::Kind::F8E5M2;

} // namespace

TEST_CASE("f8E4M3FN: nearest even, saturating, NaN kept", "[fp8]") {
  CHECK(fp8(E4M3, 1.0) == 0x38);
  CHECK(fp8(E4M3, -1.0) == 0xb8);
  CHECK(fp8(E4M3, 0.1) == 0x1d); // 0.1015625
  CHECK(roundFloat(E4M3, 0.1) == 0.1015625);
  CHECK(fp8(E4M3, 17.0) == 0x58); // tie 16 | 18: even 16
  CHECK(fp8(E4M3, 19.0) == 0x5a); // tie 18 | 20: even 20
  CHECK(fp8(E4M3, 448.0) == 0x7e);
  CHECK(fp8(E4M3, 464.0) == 0x7e); // tie 448 | 480: even 448
  CHECK(fp8(E4M3, 500.0) == 0x7e); // beyond: the largest finite
  CHECK(fp8(E4M3, 1e30) == 0x7e);
  CHECK(fp8(E4M3, INFINITY) == 0x7e);
  CHECK(fp8(E4M3, -INFINITY) == 0xfe);
  CHECK(std::isnan(roundFloat(E4M3, NAN)));
  CHECK(fp8(E4M3, NAN) == 0x7f);
  // Subnormals: quanta of 2^-9; ties to even.
  CHECK(fp8(E4M3, std::ldexp(1.0, -9)) == 0x01);
  CHECK(fp8(E4M3, std::ldexp(1.0, -10)) == 0x00);
  CHECK(fp8(E4M3, 3 * std::ldexp(1.0, -10)) == 0x02);
  CHECK(fp8(E4M3, -0.0) == 0x80);
}

TEST_CASE("f8E5M2: nearest even, saturating, NaN kept", "[fp8]") {
  CHECK(fp8(E5M2, 1.0) == 0x3c);
  CHECK(fp8(E5M2, 0.1) == 0x2e); // 0.09375
  CHECK(fp8(E5M2, 57344.0) == 0x7b);
  CHECK(fp8(E5M2, 60000.0) == 0x7b);
  CHECK(fp8(E5M2, INFINITY) == 0x7b); // satfinite: no infinity out
  CHECK(fp8(E5M2, -1e9) == 0xfb);
  CHECK(std::isnan(roundFloat(E5M2, NAN)));
  CHECK(fp8(E5M2, std::ldexp(1.0, -16)) == 0x01);
  CHECK(fp8(E5M2, std::ldexp(1.0, -17)) == 0x00);
}

TEST_CASE("fp8 rounds the f32 value, not the double", "[fp8]") {
  // 1 + 2^-4 + 2^-30 is above the e4m3 tie 1 + 2^-4 in double, but its f32
  // value is the tie itself, which rounds to even (1.0).
  CHECK(roundFloat(E4M3, 1.0 + std::ldexp(1.0, -4) + std::ldexp(1.0, -30)) ==
        1.0);
}

TEST_CASE("every fp8 value decodes and encodes back to its bits", "[fp8]") {
  for (auto kind : {E4M3, E5M2})
    for (int bits = 0; bits < 256; ++bits) {
      double v = fp8Value(kind, uint8_t(bits));
      INFO("kind " << int(kind) << " bits " << bits << " value " << v);
      if (std::isnan(v)) {
        CHECK(fp8(kind, v) == 0x7f);
        continue;
      }
      if (std::isinf(v)) { // e5m2 only; the conversion saturates
        CHECK(kind == E5M2);
        CHECK(fp8(kind, v) == (v > 0 ? 0x7b : 0xfb));
        continue;
      }
      CHECK(roundFloat(kind, v) == v); // fp8 -> f16 -> f32 is exact
      CHECK(fp8(kind, v) == bits);
    }
  CHECK(std::isnan(fp8Value(E4M3, 0x7f)));
  CHECK(std::isnan(fp8Value(E4M3, 0xff)));
  CHECK(fp8Value(E4M3, 0x7e) == 448.0);
  CHECK(std::isinf(fp8Value(E5M2, 0x7c)));
}

TEST_CASE("bf16 and f16 round the f32 result to nearest even", "[round]") {
  using K = ElemType::Kind;
  CHECK(roundFloat(K::BF16, 1.0 + std::ldexp(1.0, -8)) == 1.0);
  CHECK(roundFloat(K::BF16, 1.0 + 3 * std::ldexp(1.0, -8)) ==
        1.0 + std::ldexp(1.0, -6));
  // Above the tie in double, the tie itself in f32: even (1.0), as the
  // GPU's f32 arithmetic then cvt.rn.bf16 gives.
  CHECK(roundFloat(K::BF16, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)) ==
        1.0);
  CHECK(roundFloat(K::F16, 1.0 + std::ldexp(1.0, -11)) == 1.0);
  CHECK(roundFloat(K::F16, 65504.0) == 65504.0);
  CHECK(std::isinf(roundFloat(K::F16, 65520.0)));
  CHECK(roundFloat(K::F32, 0.1) == double(0.1f));
}

TEST_CASE("dtype names of the fp8 types", "[fp8]") {
  CHECK(ElemType::fromDType("float8_e4m3fn").kind == E4M3);
  CHECK(ElemType::fromDType("float8_e5m2").kind == E5M2);
  CHECK(ElemType::fromDType("float8_e4m3fn").byteSize() == 1);
  CHECK(ElemType::fromDType("float8_e5m2").name() == "float8_e5m2");
  CHECK(ElemType::fromDType("float8_e4m3fn").isFloat());
}
