//===- FuzzTargetFrontend.cpp - libFuzzer target: lexer, parser, printer
//---===//
//
// LLVMFuzzerTestOneInput for coverage-guided fuzzing of the frontend: the
// input is a source file; it is lexed, parsed, its diagnostics formatted and
// its AST printed, in process. An input is a finding (abort, so libFuzzer
// keeps it) when the frontend crashes or trips a sanitizer, when a
// diagnostic points outside the file, or when errors are counted but none
// is printed. Built as a libFuzzer binary by scripts/sanitize.sh and, with
// FuzzReplayMain.cpp, as a replayer of the checked-in corpus under ctest.
// docs/robustness.md.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/ASTPrinter.h"
#include "compiler/Frontend/Parser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

using namespace dslc;

namespace {
[[noreturn]] void finding(const std::string &what) {
  std::fprintf(stderr, "dslc fuzz-frontend: %s\n", what.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  SourceManager sm;
  uint32_t id = sm.addBuffer(
      "fuzz.py", std::string(reinterpret_cast<const char *>(data), size));
  std::ostringstream printed;
  DiagnosticEngine diags(sm, &printed);
  std::unique_ptr<ast::Module> module = parseFile(sm, id, diags);
  if (!module)
    finding("parseFile returned no module");
  std::string dump = printAST(*module);
  for (const ast::FunctionDef *fn : module->getFunctions())
    dump += printAST(*fn);
  if (dump.empty())
    finding("empty AST dump");
  const SourceBuffer *buffer = sm.getBuffer(id);
  for (const Diagnostic &d : diags.getDiagnostics()) {
    if (!d.range.isValid())
      continue;
    if (d.range.begin.line == 0 || d.range.begin.column == 0 ||
        d.range.begin.line > buffer->getNumLines() ||
        d.range.begin.offset > buffer->getText().size())
      finding("diagnostic outside the file: " + diags.format(d));
  }
  if (diags.hasErrors() && printed.str().find("error: ") == std::string::npos)
    finding("errors counted but none printed");
  return 0;
}
