//===- ElementTypes.cpp - Host-side element helpers -----------------------===//
#include "tooling/harness/ElementTypes.h"

#include "contract/Numerics.h"
#include "runtime/Error.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace dslc::run {

using rt::DType;

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
