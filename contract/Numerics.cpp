//===- Numerics.cpp - Float formats: codecs, rounding, ulps, NaNs ---------===//
#include "contract/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace dslc::contract {

uint16_t floatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN: keep it quiet
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

float bf16ToFloat(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t floatToHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) // NaN
    return sign | 0x7e00u;
  if (a >= 0x477ff000u) // >= 65520 rounds to infinity (also inf itself)
    return sign | 0x7c00u;
  if (a >= 0x38800000u) {                       // normal in binary16 (>= 2^-14)
    uint32_t r = a + 0xfffu + ((a >> 13) & 1u); // round to nearest even
    return sign | static_cast<uint16_t>((r - 0x38000000u) >> 13);
  }
  // Subnormal (or zero): a multiple of 2^-24; scaling by 2^24 is exact and
  // nearbyint rounds to nearest even (the default rounding mode). 1024 is
  // the smallest normal, 0x0400, as it should be.
  float abs;
  std::memcpy(&abs, &a, 4);
  uint32_t q = static_cast<uint32_t>(std::nearbyint(abs * 16777216.0f));
  return sign | static_cast<uint16_t>(q);
}

float halfToFloat(uint16_t h) {
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

bool isFp8(DType t) {
  return t == DType::Float8E4M3FN || t == DType::Float8E5M2;
}

bool isFloatFormat(DType t) { return isFloating(t) || isFp8(t); }

namespace {

/// An fp8 format: significand bits after the point, the exponent of the
/// smallest normal value, the largest finite value and the exponent bias.
struct Fp8Format {
  int mantissa;
  int minExponent;
  double maxFinite;
  int bias;
};

constexpr Fp8Format kE4M3FN{3, -6, 448.0, 7};
constexpr Fp8Format kE5M2{2, -14, 57344.0, 15};

const Fp8Format &fp8Format(DType t) {
  return t == DType::Float8E4M3FN ? kE4M3FN : kE5M2;
}

} // namespace

double roundToFp8(double v, DType t) {
  const Fp8Format &f = fp8Format(t);
  if (std::isnan(v))
    return v;
  double a = std::fabs(v);
  if (a == 0)
    return v;
  if (std::isinf(a))
    return std::copysign(f.maxFinite, v);
  int exponent;
  std::frexp(a, &exponent);
  int e = std::max(exponent - 1, f.minExponent); // subnormals: fixed quantum
  double r =
      std::ldexp(std::nearbyint(std::ldexp(a, f.mantissa - e)), e - f.mantissa);
  return std::copysign(std::min(r, f.maxFinite), v);
}

uint8_t fp8Bits(double v, DType t) {
  const Fp8Format &f = fp8Format(t);
  if (std::isnan(v))
    return 0x7f;
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  double a = std::fabs(v);
  if (a == 0)
    return sign;
  if (std::isinf(a)) // e5m2 has infinities; e4m3fn saturates
    return sign | (f.mantissa == 2 ? 0x7c : 0x7e);
  int exponent;
  std::frexp(a, &exponent);
  int e = exponent - 1;
  if (e < f.minExponent) // subnormal: the significand in quanta
    return sign | uint8_t(std::ldexp(a, f.mantissa - f.minExponent));
  uint8_t mant =
      uint8_t(std::ldexp(a, f.mantissa - e)) & ((1u << f.mantissa) - 1);
  return sign | uint8_t((e + f.bias) << f.mantissa) | mant;
}

double fp8Value(uint8_t bits, DType t) {
  const Fp8Format &f = fp8Format(t);
  int expBits = 7 - f.mantissa;
  int e = (bits >> f.mantissa) & ((1 << expBits) - 1);
  int m = bits & ((1 << f.mantissa) - 1);
  int maxE = (1 << expBits) - 1;
  double v;
  if (f.mantissa == 3 && e == maxE && m == 7) // e4m3fn: S.1111.111 is NaN
    v = NAN;
  else if (f.mantissa == 2 && e == maxE) // e5m2: IEEE-like inf and NaNs
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(double(m), f.minExponent - f.mantissa);
  else
    v = std::ldexp(double(m | (1 << f.mantissa)), e - f.bias - f.mantissa);
  return (bits & 0x80) ? -v : v;
}

uint8_t doubleToFp8(double v, DType t) { return fp8Bits(roundToFp8(v, t), t); }

FloatLayout floatLayout(DType t) {
  switch (t) {
  case DType::Float8E4M3FN:
    return {4, 3};
  case DType::Float8E5M2:
    return {5, 2};
  case DType::BFloat16:
    return {8, 7};
  case DType::Float16:
    return {5, 10};
  case DType::Float32:
    return {8, 23};
  default:
    return {11, 52};
  }
}

bool isNaNBits(DType t, uint64_t bits) {
  if (t == DType::Float8E4M3FN) // no infinities: only S.1111.111 is NaN
    return (bits & 0x7f) == 0x7f;
  FloatLayout l = floatLayout(t);
  uint64_t expMask = ((uint64_t(1) << l.expBits) - 1) << l.mantBits;
  uint64_t mantMask = (uint64_t(1) << l.mantBits) - 1;
  return (bits & expMask) == expMask && (bits & mantMask) != 0;
}

uint64_t ulpDistance(DType t, uint64_t a, uint64_t b) {
  if (a == b)
    return 0;
  if (!isFloatFormat(t))
    return kUlpInfinite;
  if (isNaNBits(t, a) || isNaNBits(t, b))
    return kUlpInfinite;
  unsigned width = static_cast<unsigned>(dtypeSize(t)) * 8;
  uint64_t signBit = uint64_t(1) << (width - 1);
  uint64_t ma = a & (signBit - 1), mb = b & (signBit - 1);
  if ((a & signBit) == (b & signBit))
    return ma > mb ? ma - mb : mb - ma;
  return ma + mb; // across zero: both magnitudes (+0 and -0 are 0 apart)
}

double ulpAt(double m, DType t) {
  if (!isFloatFormat(t))
    return 0;
  FloatLayout l = floatLayout(t);
  int minExp = 2 - (1 << (l.expBits - 1)); // 1 - bias
  m = std::fabs(m);
  int e = minExp;
  if (m > 0) {
    int fe;
    (void)std::frexp(m, &fe); // m = f * 2^fe, f in [0.5, 1)
    e = std::max(fe - 1, minExp);
  }
  return std::ldexp(1.0, e - l.mantBits);
}

} // namespace dslc::contract
