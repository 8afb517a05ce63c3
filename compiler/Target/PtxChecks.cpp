//===- PtxChecks.cpp - What a kernel's PTX tells before ptxas runs --------===//
#include "compiler/Target/PtxChecks.h"

#include "llvm/ADT/SmallVector.h"

using namespace dslc;

std::optional<std::string> dslc::wgmmaSerialization(llvm::StringRef ptx) {
  if (!ptx.contains("wgmma.mma_async"))
    return std::nullopt;
  struct Cause {
    llvm::StringRef prefix, what;
  };
  static const Cause causes[] = {
      {"call", "a function call"},
      {"div.u64", "a 64-bit integer division by a run-time value"},
      {"div.s64", "a 64-bit integer division by a run-time value"},
      {"rem.u64", "a 64-bit integer remainder by a run-time value"},
      {"rem.s64", "a 64-bit integer remainder by a run-time value"},
      {"div.rn.f32", "an IEEE f32 division"},
      {"rcp.rn.f32", "an IEEE f32 reciprocal"},
      {"div.rn.f64", "an f64 division"},
      {"rcp.rn.f64", "an f64 reciprocal"},
  };
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::StringRef text = line.trim();
    // A predicate guard (@%p1 call ...) does not change the instruction.
    if (text.starts_with("@"))
      text =
          text.drop_until([](char c) { return c == ' ' || c == '\t'; }).trim();
    for (const Cause &c : causes) {
      if (!text.starts_with(c.prefix))
        continue;
      llvm::StringRef rest = text.drop_front(c.prefix.size());
      if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t' &&
          rest.front() != '.')
        continue;
      return c.what.str() + " (`" + text.rtrim(';').str() +
             "`), which ptxas assembles as a call of a subroutine";
    }
  }
  return std::nullopt;
}
