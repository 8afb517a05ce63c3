//===- dslc.cpp - The dslc compiler driver --------------------------------===//
//
// dslc FILE [-k KERNEL] --emit=ast|tile|llvm|llvmir|ptx|cubin [-o OUT] ...
// dslc FILE --simulate --world-size N ...
//
// Parses FILE, reports syntax errors (exit 1), selects the kernel, then
// prints the AST itself (--emit=ast) or hands the rest to dslc::runBackend
// (compiler/Pipeline/Backend.h). See `dslc --help`.
//
//===----------------------------------------------------------------------===//

#include "compiler/Driver/DriverOptions.h"
#include "compiler/Frontend/ASTPrinter.h"
#include "compiler/Frontend/CompilerStack.h"
#include "compiler/Frontend/Parser.h"
#include "compiler/Pipeline/Backend.h"
#include "contract/AtomicFile.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <new>
#include <unistd.h>

using namespace dslc;

namespace {

int fail(const std::string &message) {
  std::cerr << "dslc: error: " << message << "\n";
  return 1;
}

/// LLVM reports what it cannot recover from through this handler, which
/// makes it a dslc error; dslc checks the preconditions it knows of first
/// (the --arch table, the option bounds), so this is the last resort.
/// LLVM removes output files and exits with status 1 after it returns.
void reportFatalError(void *, const char *reason, bool genCrashDiag) {
  llvm::errs() << "dslc: error: " << reason << "\n";
  if (genCrashDiag)
    llvm::errs() << "dslc: note: this is a bug in dslc; please report it "
                    "with the command line and the input file\n";
}

/// Out of memory (std::bad_alloc cannot be caught: LLVM builds without
/// exceptions).
void reportOutOfMemory() {
  static const char kMessage[] = "dslc: error: out of memory\n";
  (void)!::write(2, kMessage, sizeof kMessage - 1);
  std::_Exit(1);
}

std::string joinNames(const std::vector<const ast::FunctionDef *> &fns) {
  std::string out;
  for (const ast::FunctionDef *fn : fns) {
    if (!out.empty())
      out += ", ";
    out += fn->getName();
  }
  return out;
}

/// Python binds the last of two defs with one name; dslc's lookup would take
/// the first. Neither guess is safe, so two are an error at the second.
bool checkUniqueNames(const ast::Module &module, DiagnosticEngine &diags) {
  std::map<std::string, const ast::FunctionDef *> first;
  bool ok = true;
  for (const ast::FunctionDef *fn : module.getFunctions()) {
    auto [it, inserted] = first.emplace(fn->getName(), fn);
    if (inserted)
      continue;
    diags.error(fn->getNameRange(),
                "'" + fn->getName() + "' is defined twice in this file; " +
                    "Python would bind this definition, dslc takes "
                    "neither: rename one");
    diags.note(it->second->getNameRange(),
               "the first definition of '" + fn->getName() + "'");
    ok = false;
  }
  return ok;
}

/// The kernel -k names, or the file's only one. Null after an error.
const ast::FunctionDef *selectKernel(const ast::Module &module,
                                     const std::optional<std::string> &name) {
  const std::string &fileName = module.getFileName();
  std::vector<const ast::FunctionDef *> kernels = module.getKernels();
  if (name) {
    const ast::FunctionDef *kernel = module.lookupFunction(*name);
    if (!kernel) {
      fail(fmt::format("no kernel named '{}' in '{}' ({})", *name, fileName,
                       kernels.empty() ? "it defines no kernel"
                                       : "its kernels: " + joinNames(kernels)));
      return nullptr;
    }
    if (!kernel->isKernel()) {
      fail(fmt::format("'{}' in '{}' is not a kernel: it has no "
                       "@helion.kernel, @helion.jit or @dslc.kernel "
                       "decorator",
                       *name, fileName));
      return nullptr;
    }
    return kernel;
  }
  if (kernels.empty()) {
    fail(fmt::format("'{}' defines no kernel (a def decorated with "
                     "@helion.kernel, @helion.jit or @dslc.kernel)",
                     fileName));
    return nullptr;
  }
  if (kernels.size() > 1) {
    fail(fmt::format("'{}' defines {} kernels ({}); choose one with -k",
                     fileName, kernels.size(), joinNames(kernels)));
    return nullptr;
  }
  return kernels.front();
}

int writeOutput(const std::string &path, const std::string &text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return std::cout ? 0 : fail("cannot write to standard output");
  }
  contract::Expected<bool> ok = contract::writeFileAtomically(path, text);
  return ok ? 0 : fail(ok.error());
}

void printErrorCount(const DiagnosticEngine &diags) {
  unsigned n = diags.getNumErrors();
  if (n)
    std::cerr << n << (n == 1 ? " error" : " errors") << " generated.\n";
}

} // namespace

int compileFile(DriverOptions &opts);

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::setBugReportMsg("dslc crashed: this is a bug in dslc; please report "
                        "it with the command line and the input file.\n");
  llvm::install_fatal_error_handler(reportFatalError);
  std::set_new_handler(reportOutOfMemory);
  registerCommandLineOptions();
  DriverOptions opts;
  if (!parseCommandLine(argc, argv, opts))
    return 1;
  // Deep expressions need more stack than `ulimit -s` may give
  // (compiler/Frontend/CompilerStack.h).
  return runOnCompilerStack([&] { return compileFile(opts); });
}

int compileFile(DriverOptions &opts) {
  SourceManager sourceManager;
  std::string error;
  uint32_t fileId = sourceManager.addFile(opts.inputFile, error);
  if (fileId == 0)
    return fail(fmt::format("cannot read '{}': {}", opts.inputFile, error));
  DiagnosticEngine diags(sourceManager, &std::cerr);
  // A Helion file's host code (launchers, tests) is left out, except for
  // --emit=ast, which shows the whole file as DSL code.
  std::unique_ptr<ast::Module> module =
      parseFile(sourceManager, fileId, diags,
                /*allowHostCode=*/opts.emit != EmitKind::AST);
  if (diags.hasErrors()) {
    printErrorCount(diags);
    return 1;
  }

  if (opts.emit == EmitKind::AST) {
    const ast::FunctionDef *kernel =
        opts.kernel ? selectKernel(*module, opts.kernel) : nullptr;
    if (opts.kernel && !kernel)
      return 1;
    std::string text = kernel ? printAST(*kernel) : printAST(*module);
    return writeOutput(opts.output.value_or("-"), text);
  }
  if (!checkUniqueNames(*module, diags)) {
    printErrorCount(diags);
    return 1;
  }
  const ast::FunctionDef *kernel = selectKernel(*module, opts.kernel);
  if (!kernel)
    return 1;
  if (!isTextEmit(opts.emit) && !opts.output)
    return fail(fmt::format("--emit={} writes a binary file; give -o FILE",
                            getEmitKindName(opts.emit)));

  BackendOptions &backend = opts.backend;
  backend.kernel = kernel->getName();
  backend.emit = opts.emit;
  backend.outputPath = opts.output.value_or("-");
  backend.useMLIRCommandLine = true;
  int rc = runBackend(*module, diags, backend);
  printErrorCount(diags);
  return rc;
}
