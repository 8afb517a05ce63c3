//===- Numerics.cpp - Element types and their rounding -------------------===//

#include "compiler/Simulator/Numerics.h"

#include "contract/Numerics.h"
#include "contract/Tolerance.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace dslc;
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

/// The contract's DType of a float kind.
contract::DType floatDType(ElemType::Kind kind) {
  switch (kind) {
  case ElemType::Kind::F8E4M3FN:
    return contract::DType::Float8E4M3FN;
  case ElemType::Kind::F8E5M2:
    return contract::DType::Float8E5M2;
  case ElemType::Kind::BF16:
    return contract::DType::BFloat16;
  case ElemType::Kind::F16:
    return contract::DType::Float16;
  case ElemType::Kind::F32:
    return contract::DType::Float32;
  default:
    return contract::DType::Float64;
  }
}

} // namespace

double dslc::sim::roundFloat(ElemType::Kind kind, double value) {
  switch (kind) {
  case ElemType::Kind::F8E4M3FN:
  case ElemType::Kind::F8E5M2:
    return contract::roundToFp8(static_cast<float>(value), floatDType(kind));
  case ElemType::Kind::BF16:
    return contract::bf16ToFloat(
        contract::floatToBf16(static_cast<float>(value)));
  case ElemType::Kind::F16:
    // NaN rule: the simulator keeps a NaN as it is.
    if (std::isnan(value))
      return value;
    return contract::halfToFloat(
        contract::floatToHalf(static_cast<float>(value)));
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
    out[0] = contract::fp8Bits(f, floatDType(type.kind));
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
    // NaN rule: the simulator writes every f16 NaN as 0x7e00.
    uint16_t h =
        std::isnan(f) ? 0x7e00 : contract::floatToHalf(static_cast<float>(f));
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
    f = contract::fp8Value(in[0], floatDType(type.kind));
    if (std::isnan(f)) // NaN rule: the simulator holds NaN as std::nan("")
      f = std::nan("");
    return;
  case ElemType::Kind::BF16: {
    uint16_t h;
    std::memcpy(&h, in, 2);
    f = contract::bf16ToFloat(h);
    return;
  }
  case ElemType::Kind::F16: {
    uint16_t h;
    std::memcpy(&h, in, 2);
    f = contract::halfToFloat(h);
    if (std::isnan(f)) // NaN rule: the simulator holds NaN as std::nan("")
      f = std::nan("");
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
