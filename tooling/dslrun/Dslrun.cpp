//===- Dslrun.cpp - What dslrun does, given its options -------------------===//
#include "tooling/dslrun/Dslrun.h"

#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/Kernel.h"
#include "runtime/Rendezvous.h"
#include "tooling/harness/CollectiveHarness.h"
#include "tooling/harness/DslReference.h"
#include "tooling/harness/Floor.h"
#include "tooling/harness/KernelHarness.h"
#include "tooling/simdump/DifferentialCheck.h"
#include "tooling/simdump/SimulationDump.h"
#include "tooling/support/Dslc.h"
#include "tooling/support/Files.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace dslc::run {

namespace {

/// Compiles the DSL file for each local rank; returns the cubin pattern.
std::string compileDsl(const DslrunOptions &o, rt::Communicator &comm,
                       const std::string &dir) {
  std::string pattern = dir + "/kernel.r{rank}.cubin";
  for (int i = 0; i < comm.numLocal(); ++i) {
    int rank = comm.local(i).rank;
    tooling::DslcCompile c;
    c.dslc = o.dslc;
    c.file = o.dsl;
    c.kernel = o.kernelName;
    c.out = rt::expandRankPattern(pattern, rank);
    c.rank = rank;
    c.worldSize = comm.worldSize();
    c.extraArgs = o.dslcArgs;
    std::fprintf(stderr, "dslrun: %s\n",
                 tooling::displayCommand(c.argv()).c_str());
    tooling::ProcessResult r = tooling::runDslc(c);
    if (!r.ok())
      rt::raise(rt::ErrorCode::InvalidArgument,
                fmt::format("dslrun: rank {}: dslc {}:\n{}", rank, r.describe(),
                            r.output));
  }
  return pattern;
}

/// The differential check against a simulator dump; returns the status.
int runDifferential(const SimulationDump &dump, rt::Communicator &comm,
                    rt::Kernel &kernel, const std::string &tag) {
  std::printf("%sdslrun: inputs from %s (kernel %s, world size %d, seed "
              "%llu, launch 0 of %lld)\n",
              tag.c_str(), dump.dir.c_str(), dump.kernel.c_str(),
              dump.worldSize, static_cast<unsigned long long>(dump.seed),
              static_cast<long long>(dump.launches));
  std::fflush(stdout);
  DifferentialResult r = runDifferentialCheck(comm, kernel, dump);
  for (const std::string &line : r.verdicts)
    std::printf("%s%s\n", tag.c_str(), line.c_str());
  std::printf("%sdslrun: differential check %s: %d of %d output(s) bitwise "
              "equal to the simulator, %d failed\n",
              tag.c_str(), r.ok() ? "passed" : "FAILED", r.bitwiseEqual,
              r.outputs, r.failures);
  std::fflush(stdout);
  return r.ok() ? 0 : 1;
}

RunOptions runOptions(const DslrunOptions &o) {
  RunOptions ro;
  ro.iters = o.iters;
  ro.graphReplays = o.graphReplays;
  ro.callsPerGraph = o.callsPerGraph;
  ro.repetitions = o.repetitions;
  ro.seed = static_cast<uint32_t>(o.seed);
  return ro;
}

std::string us(const TimingStats &t) {
  return t.measured() ? fmt::format("{:.2f}", t.medianUs) : std::string("-");
}

/// One table row per size: the kernel (and NCCL) as a collective.
int runCollective(const DslrunOptions &o, rt::Communicator &comm,
                  rt::Kernel &kernel, const std::string &tag) {
  Collective coll =
      *parseCollective(o.collective.empty() ? "all_reduce" : o.collective);
  // Every size must fit the collective before any GPU work.
  int64_t maxN = 0;
  for (int64_t n : o.sizes) {
    (void)collectiveShape(coll, n, comm.worldSize());
    maxN = std::max(maxN, n);
  }
  CollectiveHarness harness(comm, kernel, coll, maxN);
  RunOptions ro = runOptions(o);
  std::printf("%sdslrun: %s of %s; n = total elements; us per call, median "
              "of %d repetitions of %d calls / %d calls through graphs of "
              "%d calls\n",
              tag.c_str(), collectiveName(coll), rt::dtypeName(harness.dtype()),
              o.repetitions, o.iters, o.graphReplays, o.callsPerGraph);
  std::printf("%s%10s %-9s %10s %10s %10s %10s %9s  %s\n", tag.c_str(), "n",
              "dtype", "eager", "graph", "nccl eager", "nccl graph",
              "graph k/n", "check");
  std::fflush(stdout);
  int failures = 0;
  for (int64_t n : o.sizes) {
    CollectiveResult r = harness.run(n, ro);
    std::optional<CollectiveResult> c;
    if (o.nccl)
      c = harness.runNccl(n, ro);
    // The verdict is the kernel's; a wrong NCCL result (the baseline, not
    // ours) is flagged and does not fail the run.
    // A time below the physical floor did not cover the work.
    std::string floor =
        timingBelowFloor(comm, r.eager, r.graph,
                         collectiveCallBytes(coll, n, comm.worldSize(),
                                             rt::dtypeSize(harness.dtype())));
    std::string verdict = r.ok() && floor.empty() ? "ok" : "FAILED";
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
    auto details = [&](const CollectiveResult &x, const char *who) {
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
    if (!floor.empty())
      std::printf("%s  kernel %lld: %s\n", tag.c_str(),
                  static_cast<long long>(n), floor.c_str());
    failures += !r.ok() || !floor.empty();
    std::fflush(stdout);
  }
  std::printf("%sdslrun: %s\n", tag.c_str(),
              failures ? "FAILED" : "all sizes correct");
  return failures ? 1 : 0;
}

/// The problem the command line describes (sizes and scalars).
ProblemSpec problemSpec(const DslrunOptions &o) {
  ProblemSpec spec;
  for (const std::string &s : o.sizeSpecs)
    if (contract::Expected<bool> ok = spec.addSize(s); !ok)
      rt::raise(rt::ErrorCode::InvalidArgument, ok.error());
  for (const std::string &s : o.scalarSpecs)
    if (contract::Expected<bool> ok = spec.addScalar(s); !ok)
      rt::raise(rt::ErrorCode::InvalidArgument, ok.error());
  spec.sumTerms = o.sumTerms;
  return spec;
}

/// The reference's cubin: --reference-cubin, or --reference compiled into
/// `dir` for the kernel `md` describes (before any GPU work when the
/// kernel is a cubin); "" without one.
std::string referenceCubin(const DslrunOptions &o, const rt::KernelMetadata &md,
                           int world, const std::string &dir) {
  if (o.reference.empty())
    return o.referenceCubin;
  std::string cubin = dir + "/reference.cubin";
  if (!std::filesystem::exists(cubin))
    compileReference(tooling::findDslc(o.dslc), o.reference, md, world, cubin,
                     o.dslcArgs);
  return cubin;
}

/// The reference (its binding checked against `plan`), or null.
std::unique_ptr<DslReference> loadReference(const DslrunOptions &o,
                                            rt::Communicator &comm,
                                            const rt::KernelMetadata &md,
                                            const KernelPlan &plan,
                                            const std::string &dir) {
  std::string cubin = referenceCubin(o, md, comm.worldSize(), dir);
  if (cubin.empty())
    return nullptr;
  auto kernel = rt::Kernel::load(comm, cubin);
  (void)bindReference(kernel->metadata(0), plan);
  return std::make_unique<DslReference>(
      comm, std::move(kernel), o.reference.empty() ? cubin : o.reference);
}

/// Any kernel: bound from its roles, checked against its reference.
int runGeneric(const DslrunOptions &o, rt::Communicator &comm,
               rt::Kernel &kernel, const std::string &tag,
               const std::string &dir) {
  const rt::KernelMetadata &md = kernel.metadata(0);
  KernelPlan plan = planKernel(md, comm.worldSize(), problemSpec(o));
  std::unique_ptr<DslReference> ref = loadReference(o, comm, md, plan, dir);
  std::printf("%sdslrun: %s with %s; checked against %s\n", tag.c_str(),
              md.kernel.c_str(), plan.spec.text().c_str(),
              ref ? ref->name().c_str()
                  : "nothing (no --reference: outputs must be written and "
                    "free of NaN)");
  for (const std::string &line : plan.describe())
    std::printf("%s  %s\n", tag.c_str(), line.c_str());
  KernelHarness harness(comm, kernel, std::move(plan));
  KernelResult r = harness.run(runOptions(o), ref.get());
  std::printf("%sdslrun: us per call, median of %d repetitions: eager %s, "
              "graph %s\n",
              tag.c_str(), o.repetitions, us(r.eager).c_str(),
              us(r.graph).c_str());
  // A time below the physical floor did not cover the work: a failure.
  std::string floor =
      timingBelowFloor(comm, r.eager, r.graph, outputBytes(harness.plan()));
  if (!floor.empty()) {
    std::printf("%sdslrun: %s\n", tag.c_str(), floor.c_str());
    if (r.firstFailure.empty())
      r.firstFailure = floor;
    r.failures += 1;
  }
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
void planEarly(const DslrunOptions &o, const std::string &dir) {
  std::string meta = o.meta.empty() ? o.cubin + ".json" : o.meta;
  rt::KernelMetadata md = rt::loadMetadataFile(rt::expandRankPattern(meta, 0));
  auto env = rt::readProcessEnv();
  int world = md.worldSize ? static_cast<int>(*md.worldSize)
              : env        ? env->worldSize
                           : 1;
  KernelPlan plan = planKernel(md, world, problemSpec(o));
  std::string ref = referenceCubin(o, md, world, dir);
  if (!ref.empty())
    (void)bindReference(rt::loadMetadataFile(ref + ".json"), plan);
}

} // namespace

int runDslrun(const DslrunOptions &o) {
  // A dump is read (and its files checked) before any GPU work; so are a
  // kernel's sizes.
  std::optional<SimulationDump> dump;
  if (!o.inputsFrom.empty())
    dump = loadSimulationDump(o.inputsFrom);
  tooling::TempDir tmp("dslrun");
  if (tmp.path().empty())
    rt::raise(rt::ErrorCode::Io, "dslrun: " + tmp.error());
  if (o.generic() && !o.cubin.empty())
    planEarly(o, tmp.path());
  auto env = rt::readProcessEnv();
  std::string tag = env ? fmt::format("[rank {}] ", env->rank) : "";
  std::vector<int> devices(o.devices.begin(), o.devices.end());
  std::unique_ptr<rt::Communicator> comm =
      o.virtualWorld ? rt::Communicator::createVirtual(
                           o.virtualWorld, devices.empty() ? 0 : devices[0])
      : env          ? rt::Communicator::createFromEnv(o.rendezvous)
                     : rt::Communicator::createAll(devices);
  std::string cubin =
      o.dsl.empty() ? o.cubin : compileDsl(o, *comm, tmp.path());
  rt::KernelOptions kopts;
  kopts.timeoutMs = o.timeoutMs;
  auto kernel = rt::Kernel::load(*comm, cubin, o.meta, kopts);
  std::printf("%sdslrun: kernel %s, world size %d, %d local rank(s), %s, "
              "spin timeout %lld ms\n",
              tag.c_str(), kernel->metadata().kernel.c_str(), comm->worldSize(),
              comm->numLocal(),
              comm->isVirtual()
                  ? fmt::format("a virtual world on GPU {} (every rank on "
                                "one GPU: times share its SMs and memory and "
                                "say nothing of NVLink)",
                                comm->local(0).device)
                        .c_str()
              : comm->singleProcess() ? "one process"
                                      : "one process per GPU",
              static_cast<long long>(kernel->timeoutMs()));
  int status = dump          ? runDifferential(*dump, *comm, *kernel, tag)
               : o.generic() ? runGeneric(o, *comm, *kernel, tag, tmp.path())
                             : runCollective(o, *comm, *kernel, tag);
  // The end is collective: a peer that died after its last call is an
  // error here (within the host timeout), not a silent success.
  kernel.reset();
  comm->finalize();
  return status;
}

} // namespace dslc::run
