//===- CompileOptions.cpp - What the dslc driver asks the backend for -----===//

#include "compiler/Frontend/CompileOptions.h"

namespace dslc {

namespace {
struct EmitName {
  EmitKind kind;
  const char *name;
};
constexpr EmitName kEmitNames[] = {
    {EmitKind::AST, "ast"},   {EmitKind::Tile, "tile"},
    {EmitKind::LLVM, "llvm"}, {EmitKind::LLVMIR, "llvmir"},
    {EmitKind::PTX, "ptx"},   {EmitKind::Cubin, "cubin"},
};
} // namespace

const char *getEmitKindName(EmitKind kind) {
  for (const EmitName &e : kEmitNames)
    if (e.kind == kind)
      return e.name;
  return "?";
}

std::optional<EmitKind> parseEmitKind(std::string_view name) {
  for (const EmitName &e : kEmitNames)
    if (name == e.name)
      return e.kind;
  return std::nullopt;
}

bool isTextEmit(EmitKind kind) { return kind != EmitKind::Cubin; }

std::optional<std::string> canonicalDTypeName(std::string_view name) {
  static const std::pair<const char *, const char *> aliases[] = {
      {"bfloat16", "bfloat16"},
      {"bf16", "bfloat16"},
      {"float16", "float16"},
      {"half", "float16"},
      {"f16", "float16"},
      {"float32", "float32"},
      {"float", "float32"},
      {"f32", "float32"},
      {"float64", "float64"},
      {"double", "float64"},
      {"f64", "float64"},
      {"int8", "int8"},
      {"i8", "int8"},
      {"uint8", "uint8"},
      {"u8", "uint8"},
      {"int16", "int16"},
      {"i16", "int16"},
      {"int32", "int32"},
      {"i32", "int32"},
      {"int", "int64"},
      {"uint32", "uint32"},
      {"u32", "uint32"},
      {"int64", "int64"},
      {"i64", "int64"},
      {"long", "int64"},
      {"uint64", "uint64"},
      {"u64", "uint64"},
      {"bool", "bool"},
      {"float8_e4m3fn", "float8_e4m3fn"},
      {"f8e4m3", "float8_e4m3fn"},
      {"float8_e5m2", "float8_e5m2"},
      {"f8e5m2", "float8_e5m2"}};
  for (auto [alias, canon] : aliases)
    if (name == alias)
      return std::string(canon);
  return std::nullopt;
}

const char *canonicalDTypeNames() {
  return "bfloat16 float16 float32 float64 int8 uint8 int16 int32 uint32 "
         "int64 uint64 bool float8_e4m3fn float8_e5m2";
}

} // namespace dslc
