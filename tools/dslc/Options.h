//===- Options.h - dslc command-line parsing --------------------*- C++ -*-===//
//
// Hand-written (no llvm::cl) so the driver builds without MLIR/LLVM.
// Accepted forms: `--name=value` and `--name value` for long options,
// `-kNAME`/`-k NAME`, `-oOUT`/`-o OUT`, `-DNAME=V`/`-D NAME=V`; `--` ends
// the options.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLS_DSLC_OPTIONS_H
#define DSLC_TOOLS_DSLC_OPTIONS_H

#include "compiler/Frontend/CompileOptions.h"

#include <optional>
#include <string>

namespace dslc {

struct DriverOptions {
  std::string inputFile;
  /// -k, when given (otherwise the file's only kernel is compiled).
  std::optional<std::string> kernel;
  /// --emit, when given.
  std::optional<EmitKind> emit;
  /// -o, when given.
  std::optional<std::string> output;
  /// Everything else, collected for the backend.
  CompileOptions compile;
  bool help = false;
  bool version = false;
};

/// Parses argv. On failure returns false and sets `error` (one line, no
/// "dslc: error:" prefix).
bool parseCommandLine(int argc, const char *const *argv, DriverOptions &opts,
                      std::string &error);

/// The --help text.
const char *getUsage();

} // namespace dslc

#endif // DSLC_TOOLS_DSLC_OPTIONS_H
