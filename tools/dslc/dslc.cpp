//===- dslc.cpp - The dslc compiler driver --------------------------------===//
//
// dslc FILE [-k KERNEL] --emit=ast|tile|llvm|llvmir|ptx|cubin [-o OUT] ...
//
// Parses FILE, reports syntax errors (exit 1), resolves the kernel, then
// prints the AST itself (--emit=ast) or hands a CompileOptions to
// dslc::runBackend for everything else. See `dslc --help`.
//
//===----------------------------------------------------------------------===//

#include "compiler/Frontend/ASTPrinter.h"
#include "compiler/Frontend/Backend.h"
#include "compiler/Frontend/Parser.h"
#include "tools/dslc/Options.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

using namespace dslc;

namespace {

constexpr const char *kVersion = "0.1.0";

int fail(const std::string &message) {
  std::cerr << "dslc: error: " << message << "\n";
  return 1;
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

int writeOutput(const std::string &path, const std::string &text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return std::cout ? 0 : fail("cannot write to standard output");
  }
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return fail(
        fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  out << text;
  out.close();
  if (!out)
    return fail(fmt::format("cannot write '{}'", path));
  return 0;
}

void printErrorCount(const DiagnosticEngine &diags) {
  unsigned n = diags.getNumErrors();
  if (n)
    std::cerr << n << (n == 1 ? " error" : " errors") << " generated.\n";
}

} // namespace

int main(int argc, char **argv) {
  DriverOptions opts;
  std::string error;
  if (!parseCommandLine(argc, argv, opts, error)) {
    fail(error);
    std::cerr << "Run 'dslc --help' for usage.\n";
    return 1;
  }
  if (opts.help) {
    std::cout << getUsage();
    return 0;
  }
  if (opts.version) {
    std::cout << "dslc version " << kVersion << "\n";
    return 0;
  }

  SourceManager sourceManager;
  uint32_t fileId = sourceManager.addFile(opts.inputFile, error);
  if (fileId == 0)
    return fail(fmt::format("cannot read '{}': {}", opts.inputFile, error));
  DiagnosticEngine diags(sourceManager, &std::cerr);
  std::unique_ptr<ast::Module> module = parseFile(sourceManager, fileId, diags);
  if (diags.hasErrors()) {
    printErrorCount(diags);
    return 1;
  }

  const std::string &fileName = module->getFileName();
  EmitKind emit = *opts.emit;
  const ast::FunctionDef *kernel = nullptr;
  if (opts.kernel) {
    kernel = module->lookupFunction(*opts.kernel);
    std::vector<const ast::FunctionDef *> kernels = module->getKernels();
    if (!kernel)
      return fail(fmt::format(
          "no kernel named '{}' in '{}' ({})", *opts.kernel, fileName,
          kernels.empty() ? "it defines no kernel"
                          : "its kernels: " + joinNames(kernels)));
    if (!kernel->isKernel())
      return fail(fmt::format("'{}' in '{}' is not a kernel: it has no "
                              "@helion.kernel, @helion.jit or @dslc.kernel "
                              "decorator",
                              *opts.kernel, fileName));
  } else if (emit != EmitKind::AST) {
    std::vector<const ast::FunctionDef *> kernels = module->getKernels();
    if (kernels.empty())
      return fail(fmt::format("'{}' defines no kernel (a def decorated with "
                              "@helion.kernel, @helion.jit or @dslc.kernel)",
                              fileName));
    if (kernels.size() > 1)
      return fail(fmt::format("'{}' defines {} kernels ({}); choose one with "
                              "-k",
                              fileName, kernels.size(), joinNames(kernels)));
    kernel = kernels.front();
  }

  if (emit == EmitKind::AST) {
    std::string text = kernel ? printAST(*kernel) : printAST(*module);
    return writeOutput(opts.output.value_or("-"), text);
  }

  if (!isTextEmit(emit) && !opts.output)
    return fail(fmt::format("--emit={} writes a binary file; give -o FILE",
                            getEmitKindName(emit)));
  CompileOptions &compile = opts.compile;
  compile.inputPath = opts.inputFile;
  compile.kernel = kernel->getName();
  compile.emit = emit;
  compile.outputPath = opts.output.value_or("-");
  int rc = runBackend(*module, diags, compile);
  printErrorCount(diags);
  return rc;
}
