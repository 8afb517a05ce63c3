//===- Numerics.cpp - Element types and their rounding -------------------===//

#include "compiler/Simulator/Numerics.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <cstring>

using namespace dslc::sim;

unsigned ElemType::byteSize() const {
  switch (kind) {
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
  if (type.isBF16())
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
  if (dtype == "bfloat16")
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
  uint16_t mant =
      static_cast<uint16_t>(std::ldexp(a, 10 - e)) & 0x3ff; // exact
  return sign | static_cast<uint16_t>((e + 15) << 10) | mant;
}

} // namespace

double dslc::sim::roundFloat(ElemType::Kind kind, double value) {
  switch (kind) {
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

double dslc::sim::tolerance(const ElemType &type) {
  switch (type.kind) {
  case ElemType::Kind::BF16:
    return 1e-2;
  case ElemType::Kind::F16:
    return 1e-3;
  case ElemType::Kind::F32:
    return 1e-5;
  case ElemType::Kind::F64:
    return 1e-12;
  default:
    return 0;
  }
}

void dslc::sim::encode(const ElemType &type, double f, int64_t i,
                       unsigned char *out) {
  switch (type.kind) {
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

void dslc::sim::decode(const ElemType &type, const unsigned char *in,
                       double &f, int64_t &i) {
  f = 0;
  i = 0;
  switch (type.kind) {
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
