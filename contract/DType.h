//===- DType.h - Element types of kernel tensors ----------------*- C++ -*-===//
//
// The element types a kernel's tensors and scalars may have, with their
// metadata spelling ("bfloat16", "int32", ...) and size. One table
// (DType.cpp) serves the compiler, the runtime and the tools.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_CONTRACT_DTYPE_H
#define DSLC_CONTRACT_DTYPE_H

#include <cstddef>
#include <optional>
#include <string>

namespace dslc::contract {

enum class DType {
  BFloat16,
  Float16,
  Float32,
  Float64,
  Int8,
  UInt8,
  Int16,
  Int32,
  UInt32,
  Int64,
  UInt64,
  Bool,
  Float8E4M3FN, ///< fp8 storage types: loaded, stored, converted
  Float8E5M2,
};

/// The metadata spelling ("bfloat16", "int32", ...).
const char *dtypeName(DType t);
/// Parses a metadata spelling; also accepts "torch." prefixes, the short
/// names bf16/f16/f32/f64/i8/u8/i16/i32/u32/i64/u64/f8e4m3/f8e5m2 and
/// torch's aliases half, float, double, short, int (int32), long (int64).
std::optional<DType> parseDType(const std::string &name);
/// The metadata spellings, space-separated (for messages).
std::string dtypeNameList();
size_t dtypeSize(DType t);
/// bfloat16, float16, float32 or float64.
bool isFloating(DType t);

} // namespace dslc::contract

#endif // DSLC_CONTRACT_DTYPE_H
