//===- dslrun.cpp - Run a dslc collective kernel on every local GPU -------===//
//
// dslrun --cubin K.cubin [--meta K.cubin.json]      (paths may hold {rank})
// dslrun --dsl prog.py --dslc path/to/dslc [-k NAME] (compiles per rank)
//   [--collective all_reduce|reduce_scatter|all_gather] [--nccl]
//   [--sizes 1,8193,1M,...] [--iters N] [--graph-replays N]
//   [--calls-per-graph K] [--repetitions R] [--seed S] [--inputs-from DIR]
//   [--timeout-ms T] [--devices 0,1] [--launch N] [--rendezvous FILE]
//
// Sizes are N, the collective's total element count (reduce_scatter and
// all_gather: a multiple of the world size). For each size the kernel (and
// with --nccl the NCCL collective, on the same buffers) runs R timed loops of
// back-to-back calls and of graph replays (tools/harness/CollectiveHarness.h);
// one table row per size gives the median microseconds per call and the
// check.
//
// --inputs-from DIR (a dump of dslc FILE --simulate --dump-dir DIR) replaces
// the collective harness by the differential check: every argument comes from
// the dump, launch 0 runs once and each rank's outputs are compared with the
// simulator's (bitwise; floats may differ by at most 1 ulp), one verdict line
// per rank and output.
//
// Process models: without RANK/WORLD_SIZE in the environment one process
// drives every local GPU (ncclCommInitAll); with them (torchrun, mpirun) each
// process drives one; --launch N starts N such processes of itself with a
// rendezvous file in a fresh temporary directory. Each size's result is
// checked against a CPU reference; the exit status is 0 only if all are.
//
//===----------------------------------------------------------------------===//
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/Kernel.h"
#include "runtime/Rendezvous.h"
#include "tools/dslrun/DifferentialCheck.h"
#include "tools/dslrun/SimulationDump.h"
#include "tools/harness/CollectiveHarness.h"
#include "tools/harness/JobLauncher.h"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace dslc;

namespace {

struct Options {
  std::string cubin, meta, dsl, dslc, kernelName, inputsFrom;
  std::vector<std::string> dslcArgs;
  std::vector<int64_t> sizes = {1, 1000, 8191, 8192, 8193, 65536 + 3, 1 << 20};
  int iters = 10;
  int graphReplays = 10;
  int callsPerGraph = 20;
  int repetitions = 5;
  uint32_t seed = 1;
  run::Collective collective = run::Collective::AllReduce;
  int64_t timeoutMs = -1;
  std::vector<int> devices;
  int launch = 0;
  std::string rendezvous;
  bool nccl = false; ///< Also time the NCCL collective on the same buffers.
};

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(stderr,
               "dslrun: %s\n"
               "usage: dslrun (--cubin K.cubin [--meta K.cubin.json] | --dsl "
               "prog.py --dslc DSLC [-k NAME] [--dslc-arg ARG]...)\n"
               "              [--collective all_reduce|reduce_scatter|"
               "all_gather] [--nccl]\n"
               "              [--sizes 1,8193,1M] [--iters N] "
               "[--graph-replays N] [--calls-per-graph K] [--repetitions R] "
               "[--seed S]\n"
               "              [--inputs-from SIMULATION_DUMP_DIR]\n"
               "              [--timeout-ms T] [--devices 0,1] [--launch N] "
               "[--rendezvous FILE]\n"
               "sizes are total element counts N (reduce_scatter, all_gather: "
               "a multiple of the world size)\n",
               why.c_str());
  std::exit(2);
}

int64_t parseSize(const std::string &s) {
  if (s.empty())
    usage("empty size");
  int64_t mult = 1;
  std::string num = s;
  char last = s.back();
  if (last == 'K' || last == 'k')
    mult = 1024;
  else if (last == 'M' || last == 'm')
    mult = 1024 * 1024;
  else if (last == 'G' || last == 'g')
    mult = 1024ll * 1024 * 1024;
  if (mult != 1)
    num = s.substr(0, s.size() - 1);
  char *end = nullptr;
  long long v = std::strtoll(num.c_str(), &end, 10);
  if (end == num.c_str() || *end || v < 0)
    usage(fmt::format("bad size '{}'", s));
  return v * mult;
}

template <typename T, typename F>
std::vector<T> parseList(const std::string &s, F parse) {
  std::vector<T> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    std::string item = s.substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty())
      out.push_back(parse(item));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return out;
}

Options parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--cubin")
      o.cubin = value();
    else if (a == "--meta")
      o.meta = value();
    else if (a == "--dsl")
      o.dsl = value();
    else if (a == "--dslc")
      o.dslc = value();
    else if (a == "-k" || a == "--kernel")
      o.kernelName = value();
    else if (a == "--dslc-arg")
      o.dslcArgs.push_back(value());
    else if (a == "--sizes")
      o.sizes = parseList<int64_t>(value(), parseSize);
    else if (a == "--iters")
      o.iters = static_cast<int>(parseSize(value()));
    else if (a == "--graph-replays")
      o.graphReplays = static_cast<int>(parseSize(value()));
    else if (a == "--calls-per-graph")
      o.callsPerGraph = static_cast<int>(parseSize(value()));
    else if (a == "--repetitions")
      o.repetitions = static_cast<int>(parseSize(value()));
    else if (a == "--collective") {
      std::string name = value();
      auto c = run::parseCollective(name);
      if (!c)
        usage(fmt::format("unknown collective '{}' (all_reduce, "
                          "reduce_scatter or all_gather)",
                          name));
      o.collective = *c;
    } else if (a == "--seed")
      o.seed = static_cast<uint32_t>(parseSize(value()));
    else if (a == "--timeout-ms")
      o.timeoutMs = parseSize(value());
    else if (a == "--devices")
      o.devices = parseList<int>(value(), [](const std::string &s) {
        return static_cast<int>(parseSize(s));
      });
    else if (a == "--launch")
      o.launch = static_cast<int>(parseSize(value()));
    else if (a == "--rendezvous")
      o.rendezvous = value();
    else if (a == "--inputs-from")
      o.inputsFrom = value();
    else if (a == "--nccl")
      o.nccl = true;
    else if (a == "-h" || a == "--help")
      usage("help");
    else
      usage(fmt::format("unknown argument '{}'", a));
  }
  if (o.cubin.empty() == o.dsl.empty())
    usage("give exactly one of --cubin and --dsl");
  if (!o.dsl.empty() && o.dslc.empty())
    usage("--dsl needs --dslc PATH (the compiler)");
  if (o.sizes.empty())
    usage("no sizes");
  for (int64_t n : o.sizes)
    if (n < 1)
      usage("sizes must be >= 1");
  if (o.repetitions < 1)
    usage("--repetitions must be >= 1");
  return o;
}


/// Compiles the DSL file for each local rank; returns the cubin pattern.
std::string compileDsl(const Options &o, rt::Communicator &comm,
                       std::string &tmpDir) {
  char tmpl[] = "/tmp/dslrun-dslc-XXXXXX";
  if (!mkdtemp(tmpl))
    rt::raise(rt::ErrorCode::Io, "dslrun: cannot create a temporary directory");
  tmpDir = tmpl;
  std::string pattern = tmpDir + "/kernel.r{rank}.cubin";
  for (int i = 0; i < comm.numLocal(); ++i) {
    int rank = comm.local(i).rank;
    std::string out = rt::expandRankPattern(pattern, rank);
    std::string cmd = fmt::format("'{}' '{}'", o.dslc, o.dsl);
    if (!o.kernelName.empty())
      cmd += fmt::format(" -k '{}'", o.kernelName);
    cmd += fmt::format(" -D my_rank={} -D world_size={} --emit=cubin -o '{}'",
                       rank, comm.worldSize(), out);
    for (const std::string &a : o.dslcArgs)
      cmd += fmt::format(" '{}'", a);
    std::fprintf(stderr, "dslrun: %s\n", cmd.c_str());
    int rc = std::system(cmd.c_str());
    if (rc != 0)
      rt::raise(rt::ErrorCode::InvalidArgument,
                fmt::format("dslrun: rank {}: dslc failed (status {}): {}",
                            rank, rc, cmd));
  }
  return pattern;
}

/// The differential check against a simulator dump; returns the exit status.
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

int runJob(const Options &o) {
  // A dump is read (and its files checked) before any GPU work.
  std::optional<run::SimulationDump> dump;
  if (!o.inputsFrom.empty())
    dump = run::loadSimulationDump(o.inputsFrom);
  auto env = rt::readProcessEnv();
  std::string tag = env ? fmt::format("[rank {}] ", env->rank) : "";
  std::unique_ptr<rt::Communicator> comm;
  if (env)
    comm = rt::Communicator::createFromEnv(o.rendezvous);
  else
    comm = rt::Communicator::createAll(o.devices);
  std::string tmpDir;
  std::string cubin = o.cubin, meta = o.meta;
  if (!o.dsl.empty())
    cubin = compileDsl(o, *comm, tmpDir);
  rt::KernelOptions kopts;
  kopts.timeoutMs = o.timeoutMs;
  auto kernel = rt::Kernel::load(*comm, cubin, meta, kopts);
  std::printf("%sdslrun: kernel %s, world size %d, %d local rank(s), %s, "
              "spin timeout %lld ms\n",
              tag.c_str(), kernel->metadata().kernel.c_str(), comm->worldSize(),
              comm->numLocal(),
              comm->singleProcess() ? "one process" : "one process per GPU",
              static_cast<long long>(kernel->timeoutMs()));
  if (dump) {
    int rc = runDifferential(*dump, *comm, *kernel, tag);
    if (!tmpDir.empty())
      std::system(fmt::format("rm -rf '{}'", tmpDir).c_str());
    return rc;
  }
  // Every size must fit the collective before any GPU work.
  for (int64_t n : o.sizes)
    (void)run::collectiveShape(o.collective, n, comm->worldSize());
  int64_t maxN = 0;
  for (int64_t n : o.sizes)
    maxN = std::max(maxN, n);
  int failures = 0;
  {
    run::CollectiveHarness harness(*comm, *kernel, o.collective, maxN);
    run::RunOptions ro;
    ro.iters = o.iters;
    ro.graphReplays = o.graphReplays;
    ro.callsPerGraph = o.callsPerGraph;
    ro.repetitions = o.repetitions;
    ro.seed = o.seed;
    std::printf("%sdslrun: %s of %s; n = total elements; us per call, median "
                "of %d repetitions of %d calls / %d calls through graphs of "
                "%d calls\n",
                tag.c_str(), run::collectiveName(o.collective),
                rt::dtypeName(harness.dtype()), o.repetitions, o.iters,
                o.graphReplays, o.callsPerGraph);
    std::printf("%s%10s %-9s %10s %10s %10s %10s %9s  %s\n", tag.c_str(), "n",
                "dtype", "eager", "graph", "nccl eager", "nccl graph",
                "graph k/n", "check");
    std::fflush(stdout);
    auto us = [](const run::TimingStats &t) {
      return t.measured() ? fmt::format("{:.2f}", t.medianUs)
                          : std::string("-");
    };
    for (int64_t n : o.sizes) {
      run::CollectiveResult r = harness.run(n, ro);
      std::optional<run::CollectiveResult> c;
      if (o.nccl)
        c = harness.runNccl(n, ro);
      // The verdict is the kernel's; a wrong NCCL result (the baseline, not
      // ours) is flagged on its own line and in the verdict, and does not
      // fail the run.
      bool ok = r.ok();
      std::string verdict = ok ? "ok" : "FAILED";
      if (c && !c->ok())
        verdict += ok ? " (nccl wrong)" : ", nccl wrong";
      std::string ratio = "-";
      if (c && r.graph.measured() && c->graph.measured() &&
          c->graph.medianUs > 0)
        ratio = fmt::format("{:.2f}", r.graph.medianUs / c->graph.medianUs);
      std::printf("%s%10lld %-9s %10s %10s %10s %10s %9s  %s\n", tag.c_str(),
                  static_cast<long long>(n), rt::dtypeName(harness.dtype()),
                  us(r.eager).c_str(), us(r.graph).c_str(),
                  c ? us(c->eager).c_str() : "-",
                  c ? us(c->graph).c_str() : "-", ratio.c_str(),
                  verdict.c_str());
      auto details = [&](const run::CollectiveResult &x, const char *who) {
        if (!x.error.empty())
          std::printf("%s  %s %lld: cannot run: %s\n", tag.c_str(), who,
                      static_cast<long long>(n), x.error.c_str());
        else if (x.mismatches)
          std::printf("%s  %s %lld: %lld mismatches; first: %s\n",
                      tag.c_str(), who, static_cast<long long>(n),
                      static_cast<long long>(x.mismatches),
                      x.firstMismatch.c_str());
      };
      details(r, "kernel");
      if (c)
        details(*c, "nccl");
      if (!ok)
        ++failures;
      std::fflush(stdout);
    }
  }
  if (!tmpDir.empty())
    std::system(fmt::format("rm -rf '{}'", tmpDir).c_str());
  std::printf("%sdslrun: %s\n", tag.c_str(),
              failures ? "FAILED" : "all sizes correct");
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o = parseArgs(argc, argv);
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
