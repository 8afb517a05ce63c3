//===- dslrun.cpp - Run and check a dslc kernel on every local GPU --------===//
//
// Three modes (docs/runtime.md, "dslrun"):
//   --collective C --sizes ...   a collective kernel against its built-in
//                                reference, beside NCCL with --nccl;
//   --size NAME=AxB --scalar N=V [--reference FILE.py:REF]
//                                any kernel, bound from its metadata's roles,
//                                checked against a DSL reference kernel (or
//                                only for written, NaN-free outputs);
//   --inputs-from DIR            the simulator's inputs, compared with its
//                                outputs (the differential check).
// The logic is in tooling/harness and tooling/simdump; this is the main.
//
//===----------------------------------------------------------------------===//
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/Kernel.h"
#include "runtime/Rendezvous.h"
#include "tooling/harness/CollectiveHarness.h"
#include "tooling/harness/DslReference.h"
#include "tooling/harness/JobLauncher.h"
#include "tooling/harness/KernelHarness.h"
#include "tooling/simdump/DifferentialCheck.h"
#include "tooling/simdump/SimulationDump.h"
#include "tooling/support/Cli.h"
#include "tooling/support/Dslc.h"
#include "tooling/support/Files.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

using namespace dslc;

namespace {

struct Options {
  std::string cubin, meta, dsl, dslc, kernelName, inputsFrom;
  std::vector<std::string> dslcArgs;
  std::string collective;
  std::vector<int64_t> sizes = {1, 1000, 8191, 8192, 8193, 65536 + 3, 1 << 20};
  std::vector<std::string> sizeSpecs, scalarSpecs;
  std::string reference, referenceCubin;
  int iters = 10, graphReplays = 10, callsPerGraph = 20, repetitions = 5;
  int64_t seed = 1, timeoutMs = -1;
  std::vector<int64_t> devices;
  int launch = 0;
  std::string rendezvous;
  bool nccl = false;

  bool generic() const {
    return !sizeSpecs.empty() || !scalarSpecs.empty() || !reference.empty() ||
           !referenceCubin.empty();
  }
};

void addOptions(CLI::App &app, Options &o) {
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
  app.add_option("--rendezvous", o.rendezvous, "rendezvous file (--launch)")
      ->type_name("FILE");
}

/// Cross-option checks; nullopt or a usage error's status.
std::optional<int> checkOptions(const CLI::App &app, const Options &o) {
  if (o.cubin.empty() == o.dsl.empty())
    return tooling::usageError(app, "give exactly one of --cubin and --dsl");
  if (!o.dsl.empty() && o.dslc.empty())
    return tooling::usageError(app, "--dsl needs --dslc PATH (the compiler)");
  if (!o.reference.empty() && !o.referenceCubin.empty())
    return tooling::usageError(app, "give --reference or --reference-cubin, "
                                    "not both");
  if (o.generic() && (!o.collective.empty() || o.nccl))
    return tooling::usageError(
        app, "--collective and --nccl check a collective over --sizes; "
             "--size, --scalar and --reference check any kernel");
  if (!o.inputsFrom.empty() && o.generic())
    return tooling::usageError(app, "--inputs-from takes every argument from "
                                    "the dump: no --size, --scalar or "
                                    "--reference");
  return std::nullopt;
}

/// Compiles the DSL file for each local rank; returns the cubin pattern.
std::string compileDsl(const Options &o, rt::Communicator &comm,
                       const std::string &dir) {
  std::string pattern = dir + "/kernel.r{rank}.cubin";
  for (int i = 0; i < comm.numLocal(); ++i) {
    int rank = comm.local(i).rank;
    tooling::DslcCompile c;
    c.dslc = o.dslc;
    c.file = o.dsl;
    c.kernel = o.kernelName;
    c.out = rt::expandRankPattern(pattern, rank);
    c.defines = {{"my_rank", std::to_string(rank)},
                 {"world_size", std::to_string(comm.worldSize())}};
    c.extraArgs = o.dslcArgs;
    std::fprintf(stderr, "dslrun: %s\n",
                 tooling::displayCommand(c.argv()).c_str());
    tooling::ProcessResult r = tooling::runDslc(c);
    if (!r.ok())
      rt::raise(rt::ErrorCode::InvalidArgument,
                fmt::format("dslrun: rank {}: dslc {}:\n{}", rank,
                            r.describe(), r.output));
  }
  return pattern;
}

/// The differential check against a simulator dump; returns the status.
int runDifferential(const run::SimulationDump &dump, rt::Communicator &comm,
                    rt::Kernel &kernel, const std::string &tag) {
  std::printf("%sdslrun: inputs from %s (kernel %s, world size %d, seed "
              "%llu, launch 0 of %lld)\n",
              tag.c_str(), dump.dir.c_str(), dump.kernel.c_str(),
              dump.worldSize, static_cast<unsigned long long>(dump.seed),
              static_cast<long long>(dump.launches));
  std::fflush(stdout);
  run::DifferentialResult r = run::runDifferentialCheck(comm, kernel, dump);
  for (const std::string &line : r.verdicts)
    std::printf("%s%s\n", tag.c_str(), line.c_str());
  std::printf("%sdslrun: differential check %s: %d of %d output(s) bitwise "
              "equal to the simulator, %d failed\n",
              tag.c_str(), r.ok() ? "passed" : "FAILED", r.bitwiseEqual,
              r.outputs, r.failures);
  std::fflush(stdout);
  return r.ok() ? 0 : 1;
}

run::RunOptions runOptions(const Options &o) {
  run::RunOptions ro;
  ro.iters = o.iters;
  ro.graphReplays = o.graphReplays;
  ro.callsPerGraph = o.callsPerGraph;
  ro.repetitions = o.repetitions;
  ro.seed = static_cast<uint32_t>(o.seed);
  return ro;
}

std::string us(const run::TimingStats &t) {
  return t.measured() ? fmt::format("{:.2f}", t.medianUs) : std::string("-");
}

/// One table row per size: the kernel (and NCCL) as a collective.
int runCollective(const Options &o, rt::Communicator &comm, rt::Kernel &kernel,
                  const std::string &tag) {
  run::Collective coll =
      *run::parseCollective(o.collective.empty() ? "all_reduce" : o.collective);
  // Every size must fit the collective before any GPU work.
  int64_t maxN = 0;
  for (int64_t n : o.sizes) {
    (void)run::collectiveShape(coll, n, comm.worldSize());
    maxN = std::max(maxN, n);
  }
  run::CollectiveHarness harness(comm, kernel, coll, maxN);
  run::RunOptions ro = runOptions(o);
  std::printf("%sdslrun: %s of %s; n = total elements; us per call, median "
              "of %d repetitions of %d calls / %d calls through graphs of "
              "%d calls\n",
              tag.c_str(), run::collectiveName(coll),
              rt::dtypeName(harness.dtype()), o.repetitions, o.iters,
              o.graphReplays, o.callsPerGraph);
  std::printf("%s%10s %-9s %10s %10s %10s %10s %9s  %s\n", tag.c_str(), "n",
              "dtype", "eager", "graph", "nccl eager", "nccl graph",
              "graph k/n", "check");
  std::fflush(stdout);
  int failures = 0;
  for (int64_t n : o.sizes) {
    run::CollectiveResult r = harness.run(n, ro);
    std::optional<run::CollectiveResult> c;
    if (o.nccl)
      c = harness.runNccl(n, ro);
    // The verdict is the kernel's; a wrong NCCL result (the baseline, not
    // ours) is flagged and does not fail the run.
    std::string verdict = r.ok() ? "ok" : "FAILED";
    if (c && !c->ok())
      verdict += r.ok() ? " (nccl wrong)" : ", nccl wrong";
    std::string ratio = "-";
    if (c && r.graph.measured() && c->graph.measured() && c->graph.medianUs > 0)
      ratio = fmt::format("{:.2f}", r.graph.medianUs / c->graph.medianUs);
    std::printf("%s%10lld %-9s %10s %10s %10s %10s %9s  %s\n", tag.c_str(),
                static_cast<long long>(n), rt::dtypeName(harness.dtype()),
                us(r.eager).c_str(), us(r.graph).c_str(),
                c ? us(c->eager).c_str() : "-", c ? us(c->graph).c_str() : "-",
                ratio.c_str(), verdict.c_str());
    auto details = [&](const run::CollectiveResult &x, const char *who) {
      if (!x.error.empty())
        std::printf("%s  %s %lld: cannot run: %s\n", tag.c_str(), who,
                    static_cast<long long>(n), x.error.c_str());
      else if (x.mismatches)
        std::printf("%s  %s %lld: %lld mismatches; first: %s\n", tag.c_str(),
                    who, static_cast<long long>(n),
                    static_cast<long long>(x.mismatches),
                    x.firstMismatch.c_str());
    };
    details(r, "kernel");
    if (c)
      details(*c, "nccl");
    failures += !r.ok();
    std::fflush(stdout);
  }
  std::printf("%sdslrun: %s\n", tag.c_str(),
              failures ? "FAILED" : "all sizes correct");
  return failures ? 1 : 0;
}

/// The problem the command line describes (sizes and scalars).
run::ProblemSpec problemSpec(const Options &o) {
  run::ProblemSpec spec;
  for (const std::string &s : o.sizeSpecs)
    if (contract::Expected<bool> ok = spec.addSize(s); !ok)
      rt::raise(rt::ErrorCode::InvalidArgument, ok.error());
  for (const std::string &s : o.scalarSpecs)
    if (contract::Expected<bool> ok = spec.addScalar(s); !ok)
      rt::raise(rt::ErrorCode::InvalidArgument, ok.error());
  return spec;
}

/// The reference's cubin: --reference-cubin, or --reference compiled into
/// `dir` for the kernel `md` describes (before any GPU work when the
/// kernel is a cubin); "" without one.
std::string referenceCubin(const Options &o, const rt::KernelMetadata &md,
                           int world, const std::string &dir) {
  if (o.reference.empty())
    return o.referenceCubin;
  std::string cubin = dir + "/reference.cubin";
  if (!std::filesystem::exists(cubin))
    run::compileReference(tooling::findDslc(o.dslc), o.reference, md, world,
                          cubin, o.dslcArgs);
  return cubin;
}

/// The reference (its binding checked against `plan`), or null.
std::unique_ptr<run::DslReference>
loadReference(const Options &o, rt::Communicator &comm,
              const rt::KernelMetadata &md, const run::KernelPlan &plan,
              const std::string &dir) {
  std::string cubin = referenceCubin(o, md, comm.worldSize(), dir);
  if (cubin.empty())
    return nullptr;
  auto kernel = rt::Kernel::load(comm, cubin);
  (void)run::bindReference(kernel->metadata(0), plan);
  return std::make_unique<run::DslReference>(
      comm, std::move(kernel), o.reference.empty() ? cubin : o.reference);
}

/// Any kernel: bound from its roles, checked against its reference.
int runGeneric(const Options &o, rt::Communicator &comm, rt::Kernel &kernel,
               const std::string &tag, const std::string &dir) {
  const rt::KernelMetadata &md = kernel.metadata(0);
  run::KernelPlan plan = run::planKernel(md, comm.worldSize(), problemSpec(o));
  std::unique_ptr<run::DslReference> ref =
      loadReference(o, comm, md, plan, dir);
  std::printf("%sdslrun: %s with %s; checked against %s\n", tag.c_str(),
              md.kernel.c_str(), plan.spec.text().c_str(),
              ref ? ref->name().c_str()
                  : "nothing (no --reference: outputs must be written and "
                    "free of NaN)");
  for (const std::string &line : plan.describe())
    std::printf("%s  %s\n", tag.c_str(), line.c_str());
  run::KernelHarness harness(comm, kernel, std::move(plan));
  run::KernelResult r = harness.run(runOptions(o), ref.get());
  std::printf("%sdslrun: us per call, median of %d repetitions: eager %s, "
              "graph %s\n",
              tag.c_str(), o.repetitions, us(r.eager).c_str(),
              us(r.graph).c_str());
  for (const std::string &line : r.verdicts)
    std::printf("%s%s\n", tag.c_str(), line.c_str());
  if (!r.ok())
    std::printf("%sdslrun: first failure: %s\n", tag.c_str(),
                r.firstFailure.c_str());
  std::printf("%sdslrun: %s\n", tag.c_str(),
              r.ok() ? "all outputs correct" : "FAILED");
  return r.ok() ? 0 : 1;
}

/// Any kernel given as a cubin: its sizes and scalars, and its reference
/// (compiled into `dir`), are checked against rank 0's metadata before any
/// GPU work.
void planEarly(const Options &o, const std::string &dir) {
  std::string meta = o.meta.empty() ? o.cubin + ".json" : o.meta;
  rt::KernelMetadata md = rt::loadMetadataFile(rt::expandRankPattern(meta, 0));
  auto env = rt::readProcessEnv();
  int world = md.worldSize ? static_cast<int>(*md.worldSize)
                           : env ? env->worldSize : 1;
  run::KernelPlan plan = run::planKernel(md, world, problemSpec(o));
  std::string ref = referenceCubin(o, md, world, dir);
  if (!ref.empty())
    (void)run::bindReference(rt::loadMetadataFile(ref + ".json"), plan);
}

int runJob(const Options &o) {
  // A dump is read (and its files checked) before any GPU work; so are a
  // kernel's sizes.
  std::optional<run::SimulationDump> dump;
  if (!o.inputsFrom.empty())
    dump = run::loadSimulationDump(o.inputsFrom);
  tooling::TempDir tmp("dslrun");
  if (tmp.path().empty())
    rt::raise(rt::ErrorCode::Io, "dslrun: " + tmp.error());
  if (o.generic() && !o.cubin.empty())
    planEarly(o, tmp.path());
  auto env = rt::readProcessEnv();
  std::string tag = env ? fmt::format("[rank {}] ", env->rank) : "";
  std::vector<int> devices(o.devices.begin(), o.devices.end());
  std::unique_ptr<rt::Communicator> comm =
      env ? rt::Communicator::createFromEnv(o.rendezvous)
          : rt::Communicator::createAll(devices);
  std::string cubin = o.dsl.empty() ? o.cubin : compileDsl(o, *comm, tmp.path());
  rt::KernelOptions kopts;
  kopts.timeoutMs = o.timeoutMs;
  auto kernel = rt::Kernel::load(*comm, cubin, o.meta, kopts);
  std::printf("%sdslrun: kernel %s, world size %d, %d local rank(s), %s, "
              "spin timeout %lld ms\n",
              tag.c_str(), kernel->metadata().kernel.c_str(), comm->worldSize(),
              comm->numLocal(),
              comm->singleProcess() ? "one process" : "one process per GPU",
              static_cast<long long>(kernel->timeoutMs()));
  if (dump)
    return runDifferential(*dump, *comm, *kernel, tag);
  if (o.generic())
    return runGeneric(o, *comm, *kernel, tag, tmp.path());
  return runCollective(o, *comm, *kernel, tag);
}

} // namespace

int main(int argc, char **argv) {
  Options o;
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
    return runJob(o);
  } catch (const rt::Error &e) {
    std::fprintf(stderr, "dslrun: error (%s): %s\n",
                 rt::errorCodeName(e.code()), e.what());
    std::fflush(stderr);
    return e.code() == rt::ErrorCode::NoDevice ? 77 : 1;
  }
}
