//===- Cli.h - Command lines of the MLIR-free tools (CLI11) -----*- C++ -*-===//
//
// dslrun and tuner parse their options with CLI11 (Debian's libcli11-dev)
// through these helpers, so every tool spells sizes the same way
// (Sizes.h), prints a real --help per (sub)command on standard output
// with status 0, and reports a usage error as "TOOL: error: WHAT" plus a
// hint on standard error with status 2.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_SUPPORT_CLI_H
#define DSLC_TOOLING_SUPPORT_CLI_H

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dslc::tooling {

/// Exit status of a usage error.
inline constexpr int kUsageError = 2;

/// Parses `argv` with `app`. Returns nullopt when the tool should go on,
/// otherwise the status to exit with: 0 after printing help, kUsageError
/// after a usage error. Options in `valueOptions` take the next argument
/// as their value even when it starts with '-' (e.g. --dslc-arg
/// --multicast=nvls).
std::optional<int>
parseCommandLine(CLI::App &app, int argc, char **argv,
                 const std::vector<std::string> &valueOptions = {});

/// Prints "TOOL: error: WHAT" and the --help hint; returns kUsageError.
int usageError(const CLI::App &app, const std::string &what);

/// An option holding one size (Sizes.h: 8191, 1K, 4M), at least `minimum`.
CLI::Option *addSize(CLI::App &app, const std::string &names, int64_t &target,
                     const std::string &help, int64_t minimum = 0);
/// The same for an int (at most 2^31 - 1).
CLI::Option *addCount(CLI::App &app, const std::string &names, int &target,
                      const std::string &help, int minimum = 0);
/// A list of sizes: "1K,64K" or "1K..64M" (repeatable: the lists join).
CLI::Option *addSizeList(CLI::App &app, const std::string &names,
                         std::vector<int64_t> &target, const std::string &help,
                         int64_t minimum = 1);
/// A number (seconds, a value).
CLI::Option *addNumber(CLI::App &app, const std::string &names, double &target,
                       const std::string &help);
/// A string option restricted to `choices`.
CLI::Option *addChoice(CLI::App &app, const std::string &names,
                       std::string &target,
                       const std::vector<std::string> &choices,
                       const std::string &help);

} // namespace dslc::tooling

#endif // DSLC_TOOLING_SUPPORT_CLI_H
