//===- Options.h - dslc command-line parsing --------------------*- C++ -*-===//
//
// dslc's options are llvm::cl options (Options.cpp), shown by `dslc --help`
// in three groups: compilation, simulation, and MLIR's own (pass manager,
// IR printing, timing, context). Forms: `--name=value` and `--name value`;
// `-kNAME`/`-k NAME`, `-oOUT`/`-o OUT`, `-DNAME=V`/`-D NAME=V`; `--` ends
// the options. Every error is one `dslc: error: ...` line.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLS_DSLC_OPTIONS_H
#define DSLC_TOOLS_DSLC_OPTIONS_H

#include "compiler/Pipeline/Backend.h"

#include <optional>
#include <string>

namespace dslc {

struct DriverOptions {
  std::string inputFile;
  /// -k, when given (otherwise the file's only kernel is compiled).
  std::optional<std::string> kernel;
  /// --emit (Tile for --simulate).
  EmitKind emit = EmitKind::AST;
  /// -o, when given.
  std::optional<std::string> output;
  /// Everything the backend needs but the kernel, emit kind and output.
  BackendOptions backend;
};

/// Registers MLIR's command-line options and sorts every option into the
/// groups --help shows. Call once, before parseCommandLine.
void registerCommandLineOptions();

/// Parses and checks argv (--help and --version print and exit). On a
/// problem prints `dslc: error: ...` and a hint to stderr and returns
/// false.
bool parseCommandLine(int argc, const char *const *argv, DriverOptions &opts);

} // namespace dslc

#endif // DSLC_TOOLS_DSLC_OPTIONS_H
