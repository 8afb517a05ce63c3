//===- DType.cpp - Element types of kernel tensors ------------------------===//
#include "contract/DType.h"

#include <utility>

namespace dslc::contract {

namespace {
struct Entry {
  DType type;
  const char *name;
  const char *shortName;
  size_t size;
};
constexpr Entry kTypes[] = {
    {DType::BFloat16, "bfloat16", "bf16", 2},
    {DType::Float16, "float16", "f16", 2},
    {DType::Float32, "float32", "f32", 4},
    {DType::Float64, "float64", "f64", 8},
    {DType::Int8, "int8", "i8", 1},
    {DType::UInt8, "uint8", "u8", 1},
    {DType::Int16, "int16", "i16", 2},
    {DType::Int32, "int32", "i32", 4},
    {DType::UInt32, "uint32", "u32", 4},
    {DType::Int64, "int64", "i64", 8},
    {DType::UInt64, "uint64", "u64", 8},
    {DType::Bool, "bool", "b8", 1},
    {DType::Float8E4M3FN, "float8_e4m3fn", "f8e4m3", 1},
    {DType::Float8E5M2, "float8_e5m2", "f8e5m2", 1},
};
} // namespace

const char *dtypeName(DType t) {
  for (const Entry &e : kTypes)
    if (e.type == t)
      return e.name;
  return "?";
}

std::optional<DType> parseDType(const std::string &raw) {
  std::string name = raw;
  if (name.rfind("torch.", 0) == 0)
    name = name.substr(6);
  for (const Entry &e : kTypes)
    if (name == e.name || name == e.shortName)
      return e.type;
  if (name == "half")
    return DType::Float16;
  if (name == "float")
    return DType::Float32;
  if (name == "double")
    return DType::Float64;
  if (name == "short")
    return DType::Int16;
  if (name == "int")
    return DType::Int32;
  if (name == "long")
    return DType::Int64;
  return std::nullopt;
}

std::string dtypeNameList() {
  std::string names;
  for (const Entry &e : kTypes)
    names += (names.empty() ? "" : " ") + std::string(e.name);
  return names;
}

size_t dtypeSize(DType t) {
  for (const Entry &e : kTypes)
    if (e.type == t)
      return e.size;
  return 0;
}

bool isFloating(DType t) {
  return t == DType::BFloat16 || t == DType::Float16 || t == DType::Float32 ||
         t == DType::Float64;
}

} // namespace dslc::contract
