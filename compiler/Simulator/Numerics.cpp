//===- Numerics.cpp - Element types and their rounding -------------------===//

#include "compiler/Simulator/Numerics.h"

#include "contract/Tolerance.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace dslc::sim;

unsigned ElemType::byteSize() const {
  switch (kind) {
  case Kind::F8E4M3FN:
  case Kind::F8E5M2:
    return 1;
  case Kind::BF16:
  case Kind::F16:
    return 2;
  case Kind::F32:
    return 4;
  case Kind::F64:
  case Kind::Index:
    return 8;
  case Kind::Int:
    return bits <= 8 ? 1 : bits / 8;
  }
  return 8;
}

std::string ElemType::name() const {
  switch (kind) {
  case Kind::F8E4M3FN:
    return "float8_e4m3fn";
  case Kind::F8E5M2:
    return "float8_e5m2";
  case Kind::BF16:
    return "bfloat16";
  case Kind::F16:
    return "float16";
  case Kind::F32:
    return "float32";
  case Kind::F64:
    return "float64";
  case Kind::Index:
    return "index";
  case Kind::Int:
    if (bits == 1)
      return "bool";
    return (isUnsigned ? "uint" : "int") + std::to_string(bits);
  }
  return "?";
}

ElemType ElemType::fromType(mlir::Type type) {
  ElemType t;
  if (mlir::isa<mlir::Float8E4M3FNType>(type))
    t.kind = Kind::F8E4M3FN, t.bits = 8;
  else if (mlir::isa<mlir::Float8E5M2Type>(type))
    t.kind = Kind::F8E5M2, t.bits = 8;
  else if (type.isBF16())
    t.kind = Kind::BF16, t.bits = 16;
  else if (type.isF16())
    t.kind = Kind::F16, t.bits = 16;
  else if (type.isF32())
    t.kind = Kind::F32, t.bits = 32;
  else if (type.isF64())
    t.kind = Kind::F64, t.bits = 64;
  else if (type.isIndex())
    t.kind = Kind::Index, t.bits = 64;
  else if (auto i = mlir::dyn_cast<mlir::IntegerType>(type))
    t.kind = Kind::Int, t.bits = i.getWidth(), t.isUnsigned = i.isUnsigned();
  return t;
}

ElemType ElemType::fromDType(const std::string &dtype) {
  ElemType t;
  if (dtype == "float8_e4m3fn")
    t.kind = Kind::F8E4M3FN, t.bits = 8;
  else if (dtype == "float8_e5m2")
    t.kind = Kind::F8E5M2, t.bits = 8;
  else if (dtype == "bfloat16")
    t.kind = Kind::BF16, t.bits = 16;
  else if (dtype == "float16")
    t.kind = Kind::F16, t.bits = 16;
  else if (dtype == "float32")
    t.kind = Kind::F32, t.bits = 32;
  else if (dtype == "float64")
    t.kind = Kind::F64, t.bits = 64;
  else if (dtype == "bool")
    t.kind = Kind::Int, t.bits = 1, t.isUnsigned = true;
  else {
    t.kind = Kind::Int;
    t.isUnsigned = dtype.rfind("uint", 0) == 0;
    std::string digits = dtype.substr(t.isUnsigned ? 4 : 3);
    t.bits = digits.empty() ? 64 : static_cast<unsigned>(std::stoi(digits));
  }
  return t;
}

namespace {

float toBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) {
    u = (u | 0x00400000u) & 0xffff0000u; // quiet NaN
  } else {
    u += 0x7fffu + ((u >> 16) & 1u);
    u &= 0xffff0000u;
  }
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

/// Round to nearest even with an 11-bit significand, f16's range.
double toF16(double v) {
  if (std::isnan(v) || std::isinf(v) || v == 0)
    return v;
  int exponent;
  std::frexp(v, &exponent); // v = m * 2^exponent, 0.5 <= |m| < 1
  int e = exponent - 1;     // v = 1.x * 2^e
  if (e < -14)
    e = -14; // subnormals: fixed quantum 2^-24
  double scaled = std::ldexp(v, 10 - e);
  double r = std::ldexp(std::nearbyint(scaled), e - 10);
  if (std::fabs(r) > 65504.0)
    return std::copysign(INFINITY, v);
  return r;
}

uint16_t f16Bits(double v) {
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
  if (e < -14) // subnormal
    return sign | static_cast<uint16_t>(std::ldexp(a, 24));
  uint16_t mant = static_cast<uint16_t>(std::ldexp(a, 10 - e)) & 0x3ff; // exact
  return sign | static_cast<uint16_t>((e + 15) << 10) | mant;
}

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

const Fp8Format &fp8Format(ElemType::Kind kind) {
  return kind == ElemType::Kind::F8E4M3FN ? kE4M3FN : kE5M2;
}

/// cvt.rn.satfinite from the f32 value `v`.
double toFp8(const Fp8Format &f, float v) {
  if (std::isnan(v))
    return v;
  double a = std::fabs(double(v));
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

/// The bits of an fp8 value (already representable); NaN is 0x7f.
uint8_t fp8Bits(const Fp8Format &f, double v) {
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

double fp8Value(const Fp8Format &f, uint8_t bits) {
  double sign = (bits & 0x80) ? -1.0 : 1.0;
  int expBits = 7 - f.mantissa;
  int e = (bits >> f.mantissa) & ((1 << expBits) - 1);
  int m = bits & ((1 << f.mantissa) - 1);
  int maxE = (1 << expBits) - 1;
  if (f.mantissa == 3 && e == maxE && m == 7) // e4m3fn: S.1111.111 is NaN
    return std::nan("");
  if (f.mantissa == 2 && e == maxE) // e5m2: IEEE-like infinities and NaNs
    return m ? std::nan("") : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(double(m), f.minExponent - f.mantissa);
  return sign *
         std::ldexp(double(m | (1 << f.mantissa)), e - f.bias - f.mantissa);
}

} // namespace

double dslc::sim::roundFloat(ElemType::Kind kind, double value) {
  switch (kind) {
  case ElemType::Kind::F8E4M3FN:
  case ElemType::Kind::F8E5M2:
    return toFp8(fp8Format(kind), static_cast<float>(value));
  case ElemType::Kind::BF16:
    return toBF16(static_cast<float>(value));
  case ElemType::Kind::F16:
    return toF16(static_cast<float>(value));
  case ElemType::Kind::F32:
    return static_cast<float>(value);
  default:
    return value;
  }
}

int64_t dslc::sim::wrapInt(const ElemType &type, int64_t value) {
  if (type.kind == ElemType::Kind::Index || type.bits >= 64)
    return value;
  if (type.bits == 1)
    return value & 1;
  uint64_t mask = (uint64_t(1) << type.bits) - 1;
  uint64_t u = static_cast<uint64_t>(value) & mask;
  if (!type.isUnsigned && (u >> (type.bits - 1)))
    u |= ~mask;
  return static_cast<int64_t>(u);
}

double dslc::sim::unitRoundoff(const ElemType &type) {
  // The contract's one formula, by the format's stored mantissa bits.
  switch (type.kind) {
  case ElemType::Kind::F8E4M3FN:
    return contract::unitRoundoffForMantissa(3);
  case ElemType::Kind::F8E5M2:
    return contract::unitRoundoffForMantissa(2);
  case ElemType::Kind::BF16:
    return contract::unitRoundoffForMantissa(7);
  case ElemType::Kind::F16:
    return contract::unitRoundoffForMantissa(10);
  case ElemType::Kind::F32:
    return contract::unitRoundoffForMantissa(23);
  case ElemType::Kind::F64:
    return contract::unitRoundoffForMantissa(52);
  default:
    return 0;
  }
}

void dslc::sim::encode(const ElemType &type, double f, int64_t i,
                       unsigned char *out) {
  switch (type.kind) {
  case ElemType::Kind::F8E4M3FN:
  case ElemType::Kind::F8E5M2:
    out[0] = fp8Bits(fp8Format(type.kind), f);
    return;
  case ElemType::Kind::BF16: {
    float x = static_cast<float>(f);
    uint32_t u;
    std::memcpy(&u, &x, 4);
    uint16_t h = static_cast<uint16_t>(u >> 16);
    std::memcpy(out, &h, 2);
    return;
  }
  case ElemType::Kind::F16: {
    uint16_t h = f16Bits(f);
    std::memcpy(out, &h, 2);
    return;
  }
  case ElemType::Kind::F32: {
    float x = static_cast<float>(f);
    std::memcpy(out, &x, 4);
    return;
  }
  case ElemType::Kind::F64:
    std::memcpy(out, &f, 8);
    return;
  default:
    std::memcpy(out, &i, type.byteSize()); // little endian
  }
}

void dslc::sim::decode(const ElemType &type, const unsigned char *in, double &f,
                       int64_t &i) {
  f = 0;
  i = 0;
  switch (type.kind) {
  case ElemType::Kind::F8E4M3FN:
  case ElemType::Kind::F8E5M2:
    f = fp8Value(fp8Format(type.kind), in[0]);
    return;
  case ElemType::Kind::BF16: {
    uint16_t h;
    std::memcpy(&h, in, 2);
    uint32_t u = uint32_t(h) << 16;
    float x;
    std::memcpy(&x, &u, 4);
    f = x;
    return;
  }
  case ElemType::Kind::F16: {
    uint16_t h;
    std::memcpy(&h, in, 2);
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    int e = (h >> 10) & 0x1f;
    int m = h & 0x3ff;
    if (e == 0x1f)
      f = m ? std::nan("") : sign * INFINITY;
    else if (e == 0)
      f = sign * std::ldexp(double(m), -24);
    else
      f = sign * std::ldexp(double(m | 0x400), e - 25);
    return;
  }
  case ElemType::Kind::F32: {
    float x;
    std::memcpy(&x, in, 4);
    f = x;
    return;
  }
  case ElemType::Kind::F64:
    std::memcpy(&f, in, 8);
    return;
  default: {
    uint64_t u = 0;
    std::memcpy(&u, in, type.byteSize()); // little endian
    i = wrapInt(type, int64_t(u));
  }
  }
}
