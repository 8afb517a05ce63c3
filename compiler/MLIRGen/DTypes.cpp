//===- DTypes.cpp - dtype names and MLIR element types --------------------===//

#include "compiler/MLIRGen/Generator.h"

using namespace mlir;

namespace dslc::mlirgen {

std::optional<std::string> canonicalDType(llvm::StringRef name) {
  static const std::pair<const char *, const char *> aliases[] = {
      {"bfloat16", "bfloat16"}, {"bf16", "bfloat16"}, {"float16", "float16"},
      {"half", "float16"},      {"f16", "float16"},   {"float32", "float32"},
      {"float", "float32"},     {"f32", "float32"},   {"float64", "float64"},
      {"double", "float64"},    {"f64", "float64"},   {"int8", "int8"},
      {"i8", "int8"},           {"uint8", "uint8"},   {"u8", "uint8"},
      {"int16", "int16"},       {"i16", "int16"},     {"int32", "int32"},
      {"i32", "int32"},         {"int", "int64"},     {"uint32", "uint32"},
      {"u32", "uint32"},        {"int64", "int64"},   {"i64", "int64"},
      {"long", "int64"},        {"uint64", "uint64"}, {"u64", "uint64"},
      {"bool", "bool"}};
  for (auto [alias, canon] : aliases)
    if (name == alias)
      return std::string(canon);
  return std::nullopt;
}

std::string typeToDType(Type t) {
  if (t.isBF16())
    return "bfloat16";
  if (t.isF16())
    return "float16";
  if (t.isF32())
    return "float32";
  if (t.isF64())
    return "float64";
  if (t.isInteger(1))
    return "bool";
  return "int" + std::to_string(t.getIntOrFloatBitWidth());
}

Type dtypeToType(MLIRContext *ctx, llvm::StringRef dtype) {
  Builder b(ctx);
  if (dtype == "bfloat16")
    return b.getBF16Type();
  if (dtype == "float16")
    return b.getF16Type();
  if (dtype == "float32")
    return b.getF32Type();
  if (dtype == "float64")
    return b.getF64Type();
  if (dtype == "int8" || dtype == "uint8")
    return b.getI8Type();
  if (dtype == "int16")
    return b.getI16Type();
  if (dtype == "int32" || dtype == "uint32")
    return b.getI32Type();
  if (dtype == "int64" || dtype == "uint64")
    return b.getI64Type();
  if (dtype == "bool")
    return b.getI1Type();
  return {};
}

} // namespace dslc::mlirgen
