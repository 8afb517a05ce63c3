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

} // namespace dslc
