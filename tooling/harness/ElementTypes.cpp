//===- ElementTypes.cpp - Host-side bf16/f16/f32 element helpers ----------===//
#include "tooling/harness/ElementTypes.h"

#include "runtime/Error.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace dslc::run {

using rt::DType;

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

bool isHarnessFloat(DType t) {
  return t == DType::BFloat16 || t == DType::Float16 || t == DType::Float32;
}

namespace {
[[noreturn]] void unsupported(DType t) {
  rt::raise(rt::ErrorCode::InvalidArgument,
            fmt::format("element type {} is not bfloat16, float16 or float32",
                        rt::dtypeName(t)));
}
} // namespace

float roundTo(float v, DType t) {
  switch (t) {
  case DType::BFloat16:
    return bf16ToFloat(floatToBf16(v));
  case DType::Float16:
    return halfToFloat(floatToHalf(v));
  case DType::Float32:
    return v;
  default:
    unsupported(t);
  }
}

float loadElement(const void *base, int64_t i, DType t) {
  const char *p = static_cast<const char *>(base);
  switch (t) {
  case DType::BFloat16:
  case DType::Float16: {
    uint16_t h;
    std::memcpy(&h, p + i * 2, 2);
    return t == DType::BFloat16 ? bf16ToFloat(h) : halfToFloat(h);
  }
  case DType::Float32: {
    float f;
    std::memcpy(&f, p + i * 4, 4);
    return f;
  }
  default:
    unsupported(t);
  }
}

void storeElement(void *base, int64_t i, DType t, float v) {
  char *p = static_cast<char *>(base);
  switch (t) {
  case DType::BFloat16:
  case DType::Float16: {
    uint16_t h = t == DType::BFloat16 ? floatToBf16(v) : floatToHalf(v);
    std::memcpy(p + i * 2, &h, 2);
    return;
  }
  case DType::Float32:
    std::memcpy(p + i * 4, &v, 4);
    return;
  default:
    unsupported(t);
  }
}

uint32_t elementBits(const void *base, int64_t i, DType t) {
  const char *p = static_cast<const char *>(base);
  if (rt::dtypeSize(t) == 2) {
    uint16_t h;
    std::memcpy(&h, p + i * 2, 2);
    return h;
  }
  if (rt::dtypeSize(t) == 4) {
    uint32_t u;
    std::memcpy(&u, p + i * 4, 4);
    return u;
  }
  unsupported(t);
}

double ulpAt(double m, DType t) {
  int digits, minExp; // significand bits (with the implicit one), emin
  switch (t) {
  case DType::BFloat16:
    digits = 8, minExp = -126;
    break;
  case DType::Float16:
    digits = 11, minExp = -14;
    break;
  case DType::Float32:
    digits = 24, minExp = -126;
    break;
  default:
    unsupported(t);
  }
  m = std::fabs(m);
  int e = minExp;
  if (m > 0) {
    int fe;
    (void)std::frexp(m, &fe); // m = f * 2^fe, f in [0.5, 1)
    e = std::max(fe - 1, minExp);
  }
  return std::ldexp(1.0, e - (digits - 1));
}

namespace {
/// A 64-bit mix of (seed, stream, rank, k).
uint64_t mix(uint32_t seed, uint32_t stream, int rank, int64_t k) {
  uint64_t x = static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull ^
               (static_cast<uint64_t>(rank + 1) * 0xBF58476D1CE4E5B9ull) ^
               seed ^ (static_cast<uint64_t>(stream) << 32);
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return x;
}
} // namespace

float seededValue(uint32_t seed, int rank, int64_t k, DType t) {
  uint64_t x = mix(seed, 0, rank, k);
  float v = static_cast<float>(static_cast<int64_t>(x % 2001) - 1000) / 37.0f;
  return roundTo(v, t);
}

double seededElement(uint32_t seed, int rank, int64_t k, DType t,
                     uint32_t stream) {
  uint64_t x = mix(seed, stream, rank, k);
  if (t == DType::Bool)
    return static_cast<double>(x & 1);
  if (!rt::isFloating(t))
    return static_cast<double>(x % 8);
  double v = static_cast<double>(static_cast<int64_t>(x % 2001) - 1000) / 37.0;
  return t == DType::Float64 ? v : roundTo(static_cast<float>(v), t);
}

namespace {
/// Exponent bias, stored mantissa bits and the largest finite code of an
/// fp8 type (its positive finite codes 0 .. max are in increasing order).
struct Fp8Format {
  int bias, mantissa;
  uint8_t maxFinite, nan;
};

Fp8Format fp8Format(DType t) {
  if (t == DType::Float8E4M3FN)
    return {7, 3, 0x7e, 0x7f};
  if (t == DType::Float8E5M2)
    return {15, 2, 0x7b, 0x7f};
  unsupported(t);
}
} // namespace

double fp8ToDouble(uint8_t bits, DType t) {
  Fp8Format f = fp8Format(t);
  bool negative = bits & 0x80;
  int code = bits & 0x7f;
  int exponent = code >> f.mantissa;
  int mantissa = code & ((1 << f.mantissa) - 1);
  double v;
  if (code > f.maxFinite) // e4m3fn: 0x7f is NaN; e5m2: infinity, then NaNs
    v = t == DType::Float8E5M2 && code == 0x7c ? INFINITY : NAN;
  else if (exponent == 0) // subnormal
    v = std::ldexp(mantissa, 1 - f.bias - f.mantissa);
  else
    v = std::ldexp(mantissa + (1 << f.mantissa),
                   exponent - f.bias - f.mantissa);
  return negative ? -v : v;
}

uint8_t doubleToFp8(double v, DType t) {
  Fp8Format f = fp8Format(t);
  if (std::isnan(v))
    return f.nan;
  uint8_t sign = std::signbit(v) ? 0x80 : 0;
  double a = std::fabs(v);
  // The largest code whose value is <= a (codes are ordered by value).
  int lo = 0, hi = f.maxFinite;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (fp8ToDouble(static_cast<uint8_t>(mid), t) <= a)
      lo = mid;
    else
      hi = mid - 1;
  }
  int code = lo;
  if (code < f.maxFinite) {
    double below = fp8ToDouble(static_cast<uint8_t>(code), t);
    double above = fp8ToDouble(static_cast<uint8_t>(code + 1), t);
    if (a - below > above - a || (a - below == above - a && (code & 1)))
      ++code;
  }
  return sign | static_cast<uint8_t>(code);
}

double loadAny(const void *base, int64_t i, DType t) {
  const char *p = static_cast<const char *>(base) + i * rt::dtypeSize(t);
  auto get = [&](auto v) {
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  switch (t) {
  case DType::BFloat16:
  case DType::Float16:
  case DType::Float32:
    return loadElement(base, i, t);
  case DType::Float64:
    return get(double());
  case DType::Float8E4M3FN:
  case DType::Float8E5M2:
    return fp8ToDouble(static_cast<uint8_t>(*p), t);
  case DType::Int8:
    return get(int8_t());
  case DType::UInt8:
  case DType::Bool:
    return get(uint8_t());
  case DType::Int16:
    return get(int16_t());
  case DType::Int32:
    return get(int32_t());
  case DType::UInt32:
    return get(uint32_t());
  case DType::Int64:
    return get(int64_t());
  case DType::UInt64:
    return get(uint64_t());
  }
  return 0;
}

void storeAny(void *base, int64_t i, DType t, double v) {
  char *p = static_cast<char *>(base) + i * rt::dtypeSize(t);
  auto put = [&](auto x) { std::memcpy(p, &x, sizeof x); };
  switch (t) {
  case DType::BFloat16:
  case DType::Float16:
  case DType::Float32:
    storeElement(base, i, t, static_cast<float>(v));
    return;
  case DType::Float64:
    return put(v);
  case DType::Float8E4M3FN:
  case DType::Float8E5M2:
    return put(doubleToFp8(v, t));
  case DType::Int8:
    return put(static_cast<int8_t>(v));
  case DType::UInt8:
    return put(static_cast<uint8_t>(v));
  case DType::Bool:
    return put(static_cast<uint8_t>(v != 0));
  case DType::Int16:
    return put(static_cast<int16_t>(v));
  case DType::Int32:
    return put(static_cast<int32_t>(v));
  case DType::UInt32:
    return put(static_cast<uint32_t>(v));
  case DType::Int64:
    return put(static_cast<int64_t>(v));
  case DType::UInt64:
    return put(static_cast<uint64_t>(v));
  }
}

} // namespace dslc::run
