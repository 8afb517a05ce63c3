//===- NumericsTest.cpp - Float codecs against the ones they replaced -----===//
//
// contract/Numerics replaced two fp8 codecs and two bf16/f16 codecs (the
// simulator's and the harness's). The old implementations are frozen here
// (namespace old) and every fp8 bit pattern, every f16 bit pattern, every
// bf16 pattern widened to f32 and a dense sample of f32 and f64 values are
// checked to give bit for bit what they gave.
//
//===----------------------------------------------------------------------===//
#include "contract/Numerics.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace dslc::contract;

namespace {
namespace old {

// --- compiler/Simulator/Numerics.cpp before contract/Numerics ---
float simToBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) {
    u = (u | 0x00400000u) & 0xffff0000u;
  } else {
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
  }
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

double simToF16(double v) {
  if (std::isnan(v) || std::isinf(v) || v == 0)
    return v;
  int exponent;
  std::frexp(v, &exponent);
  int e = exponent - 1;
  if (e < -14)
    e = -14;
  double scaled = std::ldexp(v, 10 - e);
  double r = std::ldexp(std::nearbyint(scaled), e - 10);
  if (std::fabs(r) > 65504.0)
    return std::copysign(INFINITY, v);
  return r;
}

uint16_t simF16Bits(double v) {
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (std::isnan(v))
    return 0x7e00;
  double a = std::fabs(v);
  if (std::isinf(a))
    return sign | 0x7c00;
  if (a == 0)
    return sign;
  int exponent;
  std::frexp(a, &exponent);
  int e = exponent - 1;
  if (e < -14)
    return sign | static_cast<uint16_t>(std::ldexp(a, 24));
  uint16_t mant = static_cast<uint16_t>(std::ldexp(a, 10 - e)) & 0x3ff;
  return sign | static_cast<uint16_t>((e + 15) << 10) | mant;
}

double simF16Value(uint16_t h) {
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  int e = (h >> 10) & 0x1f;
  int m = h & 0x3ff;
  if (e == 0x1f)
    return m ? std::nan("") : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(double(m), -24);
  return sign * std::ldexp(double(m | 0x400), e - 25);
}

struct SimFp8 {
  int mantissa;
  int minExponent;
  double maxFinite;
  int bias;
};
constexpr SimFp8 kE4M3FN{3, -6, 448.0, 7};
constexpr SimFp8 kE5M2{2, -14, 57344.0, 15};
const SimFp8 &simFormat(DType t) {
  return t == DType::Float8E4M3FN ? kE4M3FN : kE5M2;
}

double simToFp8(const SimFp8 &f, float v) {
  if (std::isnan(v))
    return v;
  double a = std::fabs(double(v));
  if (a == 0)
    return v;
  if (std::isinf(a))
    return std::copysign(f.maxFinite, v);
  int exponent;
  std::frexp(a, &exponent);
  int e = std::max(exponent - 1, f.minExponent);
  double r =
      std::ldexp(std::nearbyint(std::ldexp(a, f.mantissa - e)), e - f.mantissa);
  return std::copysign(std::min(r, f.maxFinite), v);
}

uint8_t simFp8Bits(const SimFp8 &f, double v) {
  if (std::isnan(v))
    return 0x7f;
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  double a = std::fabs(v);
  if (a == 0)
    return sign;
  if (std::isinf(a))
    return sign | (f.mantissa == 2 ? 0x7c : 0x7e);
  int exponent;
  std::frexp(a, &exponent);
  int e = exponent - 1;
  if (e < f.minExponent)
    return sign | uint8_t(std::ldexp(a, f.mantissa - f.minExponent));
  uint8_t mant =
      uint8_t(std::ldexp(a, f.mantissa - e)) & ((1u << f.mantissa) - 1);
  return sign | uint8_t((e + f.bias) << f.mantissa) | mant;
}

double simFp8Value(const SimFp8 &f, uint8_t bits) {
  double sign = (bits & 0x80) ? -1.0 : 1.0;
  int expBits = 7 - f.mantissa;
  int e = (bits >> f.mantissa) & ((1 << expBits) - 1);
  int m = bits & ((1 << f.mantissa) - 1);
  int maxE = (1 << expBits) - 1;
  if (f.mantissa == 3 && e == maxE && m == 7)
    return std::nan("");
  if (f.mantissa == 2 && e == maxE)
    return m ? std::nan("") : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(double(m), f.minExponent - f.mantissa);
  return sign *
         std::ldexp(double(m | (1 << f.mantissa)), e - f.bias - f.mantissa);
}

// --- tooling/harness/ElementTypes.cpp before contract/Numerics ---
uint16_t harnessFloatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

uint16_t harnessFloatToHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)
    return sign | 0x7e00u;
  if (a >= 0x477ff000u)
    return sign | 0x7c00u;
  if (a >= 0x38800000u) {
    uint32_t r = a + 0xfffu + ((a >> 13) & 1u);
    return sign | static_cast<uint16_t>((r - 0x38000000u) >> 13);
  }
  float abs;
  std::memcpy(&abs, &a, 4);
  uint32_t q = static_cast<uint32_t>(std::nearbyint(abs * 16777216.0f));
  return sign | static_cast<uint16_t>(q);
}

float harnessHalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t u;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31)
    u = sign | 0x7f800000u | (mant << 13);
  else
    u = sign | ((exp + 112) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct HarnessFp8 {
  int bias, mantissa;
  uint8_t maxFinite, nan;
};
HarnessFp8 harnessFormat(DType t) {
  if (t == DType::Float8E4M3FN)
    return {7, 3, 0x7e, 0x7f};
  return {15, 2, 0x7b, 0x7f};
}

double harnessFp8ToDouble(uint8_t bits, DType t) {
  HarnessFp8 f = harnessFormat(t);
  bool negative = bits & 0x80;
  int code = bits & 0x7f;
  int exponent = code >> f.mantissa;
  int mantissa = code & ((1 << f.mantissa) - 1);
  double v;
  if (code > f.maxFinite)
    v = t == DType::Float8E5M2 && code == 0x7c ? INFINITY : NAN;
  else if (exponent == 0)
    v = std::ldexp(mantissa, 1 - f.bias - f.mantissa);
  else
    v = std::ldexp(mantissa + (1 << f.mantissa),
                   exponent - f.bias - f.mantissa);
  return negative ? -v : v;
}

uint8_t harnessDoubleToFp8(double v, DType t) {
  HarnessFp8 f = harnessFormat(t);
  if (std::isnan(v))
    return f.nan;
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  double a = std::fabs(v);
  int lo = 0, hi = f.maxFinite;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (harnessFp8ToDouble(static_cast<uint8_t>(mid), t) <= a)
      lo = mid;
    else
      hi = mid - 1;
  }
  int code = lo;
  if (code < f.maxFinite) {
    double below = harnessFp8ToDouble(static_cast<uint8_t>(code), t);
    double above = harnessFp8ToDouble(static_cast<uint8_t>(code + 1), t);
    if (a - below > above - a || (a - below == above - a && (code & 1)))
      ++code;
  }
  return sign | static_cast<uint8_t>(code);
}

double harnessUlpAt(double m, DType t) {
  int digits, minExp;
  switch (t) {
  case DType::BFloat16:
    digits = 8, minExp = -126;
    break;
  case DType::Float16:
    digits = 11, minExp = -14;
    break;
  default:
    digits = 24, minExp = -126;
    break;
  }
  m = std::fabs(m);
  int e = minExp;
  if (m > 0) {
    int fe;
    (void)std::frexp(m, &fe);
    e = std::max(fe - 1, minExp);
  }
  return std::ldexp(1.0, e - (digits - 1));
}

} // namespace old

uint64_t bitsOf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// A dense sample of f32 bit patterns: a stride over all 2^32, every bf16
/// pattern widened, and the neighbours of every f16 and fp8 value.
std::vector<float> floatSample() {
  std::vector<float> out;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4099)
    out.push_back(floatOf(static_cast<uint32_t>(u)));
  for (uint32_t h = 0; h < 65536; ++h) {
    uint32_t u = h << 16;
    for (int d = -2; d <= 2; ++d)
      out.push_back(floatOf(u + static_cast<uint32_t>(d)));
    float v = old::harnessHalfToFloat(static_cast<uint16_t>(h));
    uint32_t hv = bitsOf(v);
    for (uint32_t d : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x2000u})
      out.push_back(floatOf(hv + d));
  }
  return out;
}

constexpr DType kFp8[] = {DType::Float8E4M3FN, DType::Float8E5M2};

} // namespace

TEST_CASE("every fp8 bit pattern decodes as the harness decoded it, and as "
          "the simulator did but for the sign of NaN",
          "[numerics]") {
  for (DType t : kFp8)
    for (int b = 0; b < 256; ++b) {
      uint8_t bits = static_cast<uint8_t>(b);
      double v = fp8Value(bits, t);
      CHECK(bitsOf(v) == bitsOf(old::harnessFp8ToDouble(bits, t)));
      double s = old::simFp8Value(old::simFormat(t), bits);
      if (std::isnan(s))
        CHECK(std::isnan(v));
      else
        CHECK(bitsOf(v) == bitsOf(s));
      // Round trip: every value's bits are its own (any NaN is 0x7f);
      // rounding saturates e5m2's infinities.
      uint8_t again = fp8Bits(roundToFp8(v, t), t);
      if (std::isinf(v))
        CHECK((again & 0x7f) == 0x7b);
      else if (std::isnan(v))
        CHECK(again == 0x7f);
      else
        CHECK(again == bits);
      CHECK(isNaNBits(t, bits) == std::isnan(v));
    }
}

TEST_CASE("fp8 encoding matches both old codecs", "[numerics]") {
  std::vector<double> values = {0.0,  -0.0,   INFINITY, -INFINITY, NAN,   -NAN,
                                1e30, -1e30,  1e-30,    -1e-30,    448.0, 464.,
                                465., 57344., 61440.,   61441.};
  for (DType t : kFp8)
    for (int b = 0; b < 256; ++b) {
      double v = fp8Value(static_cast<uint8_t>(b), t);
      double w = fp8Value(static_cast<uint8_t>(b + 1), t);
      if (std::isnan(v) || std::isinf(v))
        continue;
      values.push_back(v);
      if (b != 0x7f && b != 0xff && !std::isnan(w) && !std::isinf(w)) {
        double mid = (v + w) / 2; // exact: fp8 values are short
        values.push_back(mid);
        values.push_back(std::nextafter(mid, -INFINITY));
        values.push_back(std::nextafter(mid, INFINITY));
      }
    }
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> exponent(-30, 20);
  for (int k = 0; k < 200000; ++k) {
    double v = std::exp2(exponent(rng)) * ((rng() & 1) ? -1 : 1);
    values.push_back(v);
  }
  for (DType t : kFp8) {
    const old::SimFp8 &f = old::simFormat(t);
    for (double v : values) {
      // The harness rounds a double directly.
      CHECK(doubleToFp8(v, t) == old::harnessDoubleToFp8(v, t));
      // The simulator rounds the f32 value.
      float x = static_cast<float>(v);
      double r = roundToFp8(x, t);
      double o = old::simToFp8(f, x);
      CHECK(bitsOf(r) == bitsOf(o));
      CHECK(fp8Bits(r, t) == old::simFp8Bits(f, o));
    }
  }
}

TEST_CASE("bf16 matches both old codecs", "[numerics]") {
  for (float x : floatSample()) {
    uint16_t h = floatToBf16(x);
    CHECK(h == old::harnessFloatToBf16(x));
    CHECK(bitsOf(bf16ToFloat(h)) == bitsOf(old::simToBF16(x)));
  }
}

TEST_CASE("f16 matches both old codecs", "[numerics]") {
  for (uint32_t h = 0; h < 65536; ++h) {
    uint16_t b = static_cast<uint16_t>(h);
    float v = halfToFloat(b);
    CHECK(bitsOf(v) == bitsOf(old::harnessHalfToFloat(b)));
    double s = old::simF16Value(b);
    if (std::isnan(s)) {
      CHECK(std::isnan(v));
      continue;
    }
    CHECK(bitsOf(double(v)) == bitsOf(s));
    CHECK(floatToHalf(v) == old::simF16Bits(s)); // representable values
  }
  for (float x : floatSample()) {
    uint16_t h = floatToHalf(x);
    CHECK(h == old::harnessFloatToHalf(x));
    if (std::isnan(x))
      continue;
    CHECK(bitsOf(double(halfToFloat(h))) == bitsOf(old::simToF16(x)));
  }
}

TEST_CASE("ulps: spacing and distance", "[numerics]") {
  for (DType t : {DType::BFloat16, DType::Float16, DType::Float32})
    for (double m : {0.0, 1e-45, 1e-40, 6e-8, 1e-5, 0.1, 1.0, 1.5, 2.0, 3.0,
                     1000.0, 65504.0, 1e20})
      CHECK(ulpAt(m, t) == old::harnessUlpAt(m, t));
  CHECK(ulpAt(1.0, DType::Float8E4M3FN) == 0.125);
  CHECK(ulpAt(1.0, DType::Float8E5M2) == 0.25);
  CHECK(ulpAt(1.0, DType::Int32) == 0);
  CHECK(ulpDistance(DType::BFloat16, 0x3f80, 0x3f81) == 1);
  CHECK(ulpDistance(DType::BFloat16, 0x0001, 0x8001) == 2);
  CHECK(ulpDistance(DType::BFloat16, 0x0000, 0x8000) == 0);
  CHECK(ulpDistance(DType::BFloat16, 0x7fc0, 0x3f80) == kUlpInfinite);
  CHECK(ulpDistance(DType::Float8E4M3FN, 0x7f, 0x7e) == kUlpInfinite);
  CHECK(ulpDistance(DType::Float8E4M3FN, 0x7e, 0x7d) == 1);
  CHECK(ulpDistance(DType::Int32, 1, 2) == kUlpInfinite);
  CHECK(ulpDistance(DType::Int32, 2, 2) == 0);
  CHECK(isNaNBits(DType::Float8E5M2, 0x7d));
  CHECK_FALSE(isNaNBits(DType::Float8E5M2, 0x7c));
  CHECK(isFloatFormat(DType::Float8E5M2));
  CHECK_FALSE(isFloatFormat(DType::Int8));
}
