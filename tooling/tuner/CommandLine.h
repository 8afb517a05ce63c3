//===- CommandLine.h - tuner's command line ---------------------*- C++ -*-===//
//
// `tuner [compile|run|bench] ...`: the CLI11 options (into a TunerOptions)
// and the checks of what they say about each other (docs/tuner.md).
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_TUNER_COMMANDLINE_H
#define DSLC_TOOLING_TUNER_COMMANDLINE_H

#include "tooling/tuner/Session.h"

#include <optional>

namespace CLI {
class App;
} // namespace CLI

namespace dslc::tune {

/// The subcommands (none parsed: compile, then run, in one shot).
struct TunerCommands {
  CLI::App *compile = nullptr, *run = nullptr, *bench = nullptr;
};

/// Declares every option of `app` and its subcommands, writing into `o`.
TunerCommands buildTunerCli(CLI::App &app, TunerOptions &o);

/// After parsing: what the options say about each other. An exit status
/// (with the usage error printed) when they disagree.
std::optional<int> checkTunerOptions(CLI::App &app, const TunerCommands &c,
                                     TunerOptions &o);

} // namespace dslc::tune

#endif // DSLC_TOOLING_TUNER_COMMANDLINE_H
