//===- DTypes.cpp - dtype names and MLIR element types --------------------===//

#include "compiler/MLIRGen/Generator.h"

#include "contract/DType.h"

using namespace mlir;

namespace dslc::mlirgen {

std::optional<std::string> canonicalDType(llvm::StringRef name) {
  if (std::optional<contract::DType> t = contract::parseDType(name.str()))
    return std::string(contract::dtypeName(*t));
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
  if (isa<Float8E4M3FNType>(t))
    return "float8_e4m3fn";
  if (isa<Float8E5M2Type>(t))
    return "float8_e5m2";
  if (t.isIndex())
    return "int64";
  if (t.isInteger(1))
    return "bool";
  return "int" + std::to_string(t.getIntOrFloatBitWidth());
}

bool isFP8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

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
  if (dtype == "float8_e4m3fn")
    return Float8E4M3FNType::get(ctx);
  if (dtype == "float8_e5m2")
    return Float8E5M2Type::get(ctx);
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
