//===- DriverOptions.h - What dslc's command line asks for ------*- C++ -*-===//
//
// dslc's command line (CommandLine.cpp: llvm::cl options, shown by
// `dslc --help` in three groups: compilation, simulation, MLIR's own) is
// read in two steps: llvm::cl fills a RawOptions with what was written, and
// readDriverOptions (OptionValues.cpp) checks every value and what options
// say about each other into a DriverOptions. Forms: `--name=value` and
// `--name value`; `-kNAME`/`-k NAME`, `-oOUT`/`-o OUT`, `-DNAME=V`/
// `-D NAME=V`; `--` ends the options. Every error is one `dslc: error:`
// line.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_COMPILER_DRIVER_DRIVEROPTIONS_H
#define DSLC_COMPILER_DRIVER_DRIVEROPTIONS_H

#include "compiler/Pipeline/Backend.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

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

/// The command line as written: each option's text when given (lists in
/// order), before any check.
struct RawOptions {
  std::vector<std::string> inputFiles;
  std::optional<std::string> kernel, output, config, cacheDir, arch, reference,
      dumpDir;
  std::optional<EmitKind> emit;
  std::vector<std::string> defines, signatures, shapes, sizes, scalars,
      dimOrders;
  /// The numeric options given, by name: world-size, rank, timeout-ms,
  /// seed, ctas, calls, schedules.
  std::map<std::string, std::string> numbers;
  MulticastMode multicast = MulticastMode::Software;
  CubinRoute cubinVia = CubinRoute::NvJitLink;
  bool werrorSpills = false;
  bool issueLoadsEarly = true;
  bool specializeShapes = false;
  bool preciseMath = false;
  bool simulate = false;
  bool configFromCache = false;
};

/// Checks `raw` and fills `opts`; the message of the first problem
/// otherwise (without the `dslc: error: ` prefix).
std::optional<std::string> readDriverOptions(const RawOptions &raw,
                                             DriverOptions &opts);

/// Registers MLIR's command-line options and sorts every option into the
/// groups --help shows. Call once, before parseCommandLine.
void registerCommandLineOptions();

/// Parses and checks argv (--help and --version print and exit). On a
/// problem prints `dslc: error: ...` and a hint to stderr and returns
/// false.
bool parseCommandLine(int argc, const char *const *argv, DriverOptions &opts);

} // namespace dslc

#endif // DSLC_COMPILER_DRIVER_DRIVEROPTIONS_H
