//===- dslrun.cpp - Run and check a dslc kernel on every local GPU --------===//
//
// The main: the command line (CLI11), then tooling/dslrun's runDslrun
// (docs/runtime.md, "dslrun").
//
//===----------------------------------------------------------------------===//
#include "tooling/dslrun/Dslrun.h"
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/Rendezvous.h"
#include "tooling/harness/JobLauncher.h"
#include "tooling/support/Cli.h"

#include <cstdio>
#include <optional>

using namespace dslc;
using run::DslrunOptions;

namespace {

void addOptions(CLI::App &app, DslrunOptions &o) {
  app.add_option("--cubin", o.cubin,
                 "the kernel's cubin; {rank} in the path: one per rank")
      ->type_name("FILE")
      ->group("Kernel");
  app.add_option("--meta", o.meta, "its metadata (default: CUBIN.json)")
      ->type_name("FILE")
      ->group("Kernel");
  app.add_option("--dsl", o.dsl, "a DSL file, compiled per rank with --dslc")
      ->type_name("FILE.py")
      ->group("Kernel");
  app.add_option("--dslc", o.dslc, "the compiler (--dsl, --reference)")
      ->type_name("PATH")
      ->group("Kernel");
  app.add_option("-k,--kernel", o.kernelName, "the kernel of --dsl")
      ->type_name("NAME")
      ->group("Kernel");
  app.add_option("--dslc-arg", o.dslcArgs, "passed to every dslc call")
      ->type_name("ARG")
      ->group("Kernel");
  tooling::addChoice(app, "--collective", o.collective,
                     {"all_reduce", "reduce_scatter", "all_gather"},
                     "check as this collective (the default mode, "
                     "all_reduce)")
      ->group("Collective");
  tooling::addSizeList(app, "--sizes", o.sizes,
                       "total element counts N (1K,1M or 1K..64M)")
      ->group("Collective");
  app.add_flag("--nccl", o.nccl, "also time NCCL's collective")
      ->group("Collective");
  app.add_option("--size", o.sizeSpecs,
                 "a tensor's shape (or NAME=V: an int scalar); repeat")
      ->type_name("NAME=AxB")
      ->group("Any kernel");
  app.add_option("--scalar", o.scalarSpecs, "a scalar's value; repeat")
      ->type_name("NAME=V")
      ->group("Any kernel");
  app.add_option("--reference", o.reference,
                 "a DSL reference over stacked [world, ...] "
                 "inputs and outputs, compiled with --dslc")
      ->type_name("FILE.py:NAME")
      ->group("Any kernel");
  app.add_option("--reference-cubin", o.referenceCubin,
                 "the same reference, compiled already")
      ->type_name("FILE")
      ->group("Any kernel");
  tooling::addCount(app, "--sum-terms", o.sumTerms,
                    "terms in the longest sum behind one output element (a "
                    "matmul's K): the tolerance against the reference is "
                    "u * sqrt(N + 1) (default: the world size)",
                    1)
      ->group("Any kernel");
  app.add_option("--inputs-from", o.inputsFrom,
                 "a dslc --simulate --dump-dir DIR: run on its inputs, "
                 "compare with its outputs")
      ->type_name("DIR")
      ->group("Differential");
  tooling::addCount(app, "--iters", o.iters, "back-to-back calls per sample");
  tooling::addCount(app, "--graph-replays", o.graphReplays,
                    "calls through graphs per sample");
  tooling::addCount(app, "--calls-per-graph", o.callsPerGraph,
                    "calls in one graph", 1);
  tooling::addCount(app, "--repetitions", o.repetitions, "samples", 1);
  tooling::addSize(app, "--seed", o.seed, "seed of the inputs");
  tooling::addSize(app, "--timeout-ms", o.timeoutMs,
                   "bound on each spin in the kernel (0: none)");
  tooling::addSizeList(app, "--devices", o.devices, "GPUs (one process)", 0);
  tooling::addCount(app, "--launch", o.launch,
                    "start N processes, one per GPU");
  tooling::addCount(app, "--virtual-world", o.virtualWorld,
                    "run N ranks in this process on one GPU (the first of "
                    "--devices, else 0), without NCCL: every rank's own "
                    "buffers, stream and cubin; times share one GPU",
                    1);
  app.add_option("--rendezvous", o.rendezvous, "rendezvous file (--launch)")
      ->type_name("FILE");
}

/// Cross-option checks; nullopt or a usage error's status.
std::optional<int> checkOptions(const CLI::App &app, const DslrunOptions &o) {
  if (o.cubin.empty() == o.dsl.empty())
    return tooling::usageError(app, "give exactly one of --cubin and --dsl");
  if (!o.dsl.empty() && o.dslc.empty())
    return tooling::usageError(app, "--dsl needs --dslc PATH (the compiler)");
  if (!o.reference.empty() && !o.referenceCubin.empty())
    return tooling::usageError(app, "give --reference or --reference-cubin, "
                                    "not both");
  if (o.sumTerms && o.reference.empty() && o.referenceCubin.empty())
    return tooling::usageError(app, "--sum-terms sets the tolerance against "
                                    "--reference or --reference-cubin: give "
                                    "one");
  if (o.generic() && (!o.collective.empty() || o.nccl))
    return tooling::usageError(
        app, "--collective and --nccl check a collective over --sizes; "
             "--size, --scalar and --reference check any kernel");
  if (o.virtualWorld && (o.launch || o.nccl || o.devices.size() > 1))
    return tooling::usageError(
        app, "--virtual-world runs every rank in this process on one GPU "
             "without NCCL: no --launch, no --nccl, at most one --devices");
  if (!o.inputsFrom.empty() && o.generic())
    return tooling::usageError(app, "--inputs-from takes every argument from "
                                    "the dump: no --size, --scalar or "
                                    "--reference");
  return std::nullopt;
}

} // namespace

int main(int argc, char **argv) {
  run::DslrunOptions o;
  CLI::App app("dslrun: runs a dslc kernel on every local GPU and checks it "
               "(docs/runtime.md)",
               "dslrun");
  addOptions(app, o);
  if (auto status = tooling::parseCommandLine(app, argc, argv, {"--dslc-arg"}))
    return *status;
  if (auto status = checkOptions(app, o))
    return *status;
  rt::Communicator::applySafeEnvironment();
  if (o.launch > 0 && !rt::readProcessEnv())
    return run::launchJob("dslrun", o.launch, argc, argv);
  try {
    return run::runDslrun(o);
  } catch (const rt::Error &e) {
    std::fprintf(stderr, "dslrun: error (%s): %s\n",
                 rt::errorCodeName(e.code()), e.what());
    std::fflush(stderr);
    return e.code() == rt::ErrorCode::NoDevice ? 77 : 1;
  }
}
