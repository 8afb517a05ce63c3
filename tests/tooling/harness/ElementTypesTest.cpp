//===- ElementTypesTest.cpp - fp8 elements on the host (no GPU) -----------===//
//
// The harness reads fp8 outputs (a fused kernel's quantized rows) as their
// values, so they are compared with the reference and not taken for zero;
// the encoding rounds and saturates as cvt.rn.satfinite does.
//
//===----------------------------------------------------------------------===//
#include "tooling/harness/ElementTypes.h"
#include "contract/Tolerance.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace dslc::rt;
using namespace dslc::run;

TEST_CASE("fp8 e4m3fn values", "[harness][fp8]") {
  const DType t = DType::Float8E4M3FN;
  CHECK(fp8ToDouble(0x00, t) == 0.0);
  CHECK(std::signbit(fp8ToDouble(0x80, t)));
  CHECK(fp8ToDouble(0x38, t) == 1.0);
  CHECK(fp8ToDouble(0x39, t) == 1.125);
  CHECK(fp8ToDouble(0xb8, t) == -1.0);
  CHECK(fp8ToDouble(0x7e, t) == 448.0);               // largest finite
  CHECK(fp8ToDouble(0x08, t) == std::ldexp(1.0, -6)); // smallest normal
  CHECK(fp8ToDouble(0x01, t) == std::ldexp(1.0, -9)); // smallest subnormal
  CHECK(fp8ToDouble(0x07, t) == 7 * std::ldexp(1.0, -9));
  CHECK(std::isnan(fp8ToDouble(0x7f, t)));
  CHECK(std::isnan(fp8ToDouble(0xff, t))); // the harness's output poison

  // Every finite code round-trips; values are increasing in the code.
  for (int c = 0; c <= 0x7e; ++c) {
    CHECK(doubleToFp8(fp8ToDouble(c, t), t) == c);
    CHECK(doubleToFp8(-fp8ToDouble(c, t), t) == (c | 0x80));
    if (c > 0)
      CHECK(fp8ToDouble(c, t) > fp8ToDouble(c - 1, t));
  }
  // Nearest, ties to even; saturation; NaN.
  CHECK(doubleToFp8(1.0625, t) == 0x38); // halfway 1 .. 1.125: even code
  CHECK(doubleToFp8(1.1875, t) == 0x3a); // halfway 1.125 .. 1.25: even code
  CHECK(doubleToFp8(1.06, t) == 0x38);
  CHECK(doubleToFp8(1.07, t) == 0x39);
  CHECK(doubleToFp8(464.0, t) == 0x7e); // beyond the largest finite
  CHECK(doubleToFp8(-1e30, t) == 0xfe);
  CHECK(doubleToFp8(INFINITY, t) == 0x7e);
  CHECK(doubleToFp8(std::ldexp(1.0, -11), t) ==
        0x00); // below half the smallest
  CHECK(std::isnan(fp8ToDouble(doubleToFp8(NAN, t), t)));
}

TEST_CASE("fp8 e5m2 values", "[harness][fp8]") {
  const DType t = DType::Float8E5M2;
  CHECK(fp8ToDouble(0x3c, t) == 1.0);
  CHECK(fp8ToDouble(0x3d, t) == 1.25);
  CHECK(fp8ToDouble(0x7b, t) == 57344.0);
  CHECK(fp8ToDouble(0x01, t) == std::ldexp(1.0, -16));
  CHECK(std::isinf(fp8ToDouble(0x7c, t)));
  CHECK(std::isnan(fp8ToDouble(0x7d, t)));
  for (int c = 0; c <= 0x7b; ++c)
    CHECK(doubleToFp8(fp8ToDouble(c, t), t) == c);
  CHECK(doubleToFp8(1e9, t) == 0x7b);
}

TEST_CASE("fp8 outputs are read as their values and compared",
          "[harness][fp8]") {
  std::vector<uint8_t> buf = {0x38, 0xc0, 0x7e, 0x00};
  CHECK(loadAny(buf.data(), 0, DType::Float8E4M3FN) == 1.0);
  CHECK(loadAny(buf.data(), 1, DType::Float8E4M3FN) == -2.0);
  CHECK(loadAny(buf.data(), 2, DType::Float8E4M3FN) == 448.0);
  storeAny(buf.data(), 3, DType::Float8E4M3FN, 0.5);
  CHECK(buf[3] == 0x30);
  // The tolerance of an fp8 output is its format's (2^-4 e4m3), not exact
  // and not zero.
  CHECK(dslc::contract::relativeTolerance(DType::Float8E4M3FN, 1) ==
        std::sqrt(2.0) / 16);
}
