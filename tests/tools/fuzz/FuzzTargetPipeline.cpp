//===- FuzzTargetPipeline.cpp - libFuzzer target: the whole compiler ------===//
//
// LLVMFuzzerTestOneInput for coverage-guided fuzzing of everything after
// the parser, in process: every kernel of an input that parses (at most
// four) goes through MLIRGen, the pass pipeline, LLVM IR and PTX, compiled
// as `dslc FILE -k KERNEL --emit=ptx -D my_rank=0 -D world_size=2
// --world-size 2 --rank 0` would. An input is a finding (abort, so
// libFuzzer keeps it) when the compiler crashes, trips a sanitizer, hits an
// LLVM fatal error, reports an internal error, fails without an error, or
// reports a program error without a file:line:col. Run time and memory are
// bounded by libFuzzer's -timeout and -rss_limit_mb (scripts/sanitize.sh).
// docs/robustness.md.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/CompilerStack.h"
#include "compiler/Frontend/Parser.h"
#include "compiler/Pipeline/Backend.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace dslc;

namespace {
[[noreturn]] void finding(const std::string &what) {
  std::fprintf(stderr, "dslc fuzz-pipeline: %s\n", what.c_str());
  std::abort();
}

void onFatalError(void *, const char *reason, bool) {
  finding(std::string("LLVM fatal error: ") + reason);
}

std::string outputPath() {
  return "dslc-fuzz-pipeline." + std::to_string(::getpid()) + ".ptx";
}

void compileKernel(const ast::Module &module, const SourceManager &sm,
                   const std::string &kernel) {
  std::ostringstream printed;
  DiagnosticEngine diags(sm, &printed);
  BackendOptions options;
  options.kernel = kernel;
  options.emit = EmitKind::PTX;
  options.outputPath = outputPath();
  options.compile.defines = {{"my_rank", "0"}, {"world_size", "2"}};
  options.compile.worldSize = 2;
  options.compile.rank = 0;
  int rc = runBackend(module, diags, options);
  std::string text = printed.str();
  for (const char *bad : {"internal error", "LLVM ERROR", "Assertion"})
    if (text.find(bad) != std::string::npos)
      finding(std::string("'") + bad + "' reported:\n" + text);
  if (rc != 0 && !diags.hasErrors())
    finding("compilation failed without an error");
  for (const Diagnostic &d : diags.getDiagnostics())
    if (d.severity == Severity::Error && !d.range.isValid())
      finding("an error without a source location: " + d.message);
}
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  llvm::install_fatal_error_handler(onFatalError);
  return 0;
}

static int compileInput(const uint8_t *data, size_t size) {
  SourceManager sm;
  uint32_t id = sm.addBuffer(
      "fuzz.py", std::string(reinterpret_cast<const char *>(data), size));
  DiagnosticEngine parseDiags(sm, nullptr);
  std::unique_ptr<ast::Module> module = parseFile(sm, id, parseDiags);
  if (!module || parseDiags.hasErrors())
    return 0; // the frontend target's concern
  std::set<std::string> seen;
  int compiled = 0;
  for (const ast::FunctionDef *fn : module->getKernels()) {
    // dslc refuses two defs of one name before the backend.
    if (!seen.insert(fn->getName()).second || compiled++ == 4)
      break;
    compileKernel(*module, sm, fn->getName());
  }
  std::string out = outputPath();
  ::unlink(out.c_str());
  ::unlink((out + ".json").c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // On the compiler's stack, as dslc runs (compiler/Frontend/CompilerStack.h).
  return runOnCompilerStack([&] { return compileInput(data, size); });
}
