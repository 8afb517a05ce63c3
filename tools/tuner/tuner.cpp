//===- tuner.cpp - Pick the fastest kernel and config per problem ---------===//
//
//   tuner compile -k FILE.py:KERNEL [-k ...] (--collective C | --reference
//                 FILE.py:REF) --world-size W [--dtype D] --out DIR
//   tuner run     --candidates DIR (--sizes 1K,64K | --shape x=4x8192,...)
//   tuner bench   --candidates DIR [--sizes 1K..64M | --shape ...]
//   tuner         -k ... --sizes ...          (compile + run, one shot)
//   tuner __worker ...                         (the measuring child)
//
// The logic is tooling/tuner (Session.h; its command line CommandLine.h);
// docs/tuner.md, docs/benchmark.md.
//
//===----------------------------------------------------------------------===//
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/Rendezvous.h"
#include "runtime/TuningCache.h"
#include "tooling/harness/JobLauncher.h"
#include "tooling/support/Cli.h"
#include "tooling/tuner/CommandLine.h"
#include "tooling/tuner/NcclTests.h"
#include "tooling/tuner/Session.h"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <unistd.h>

using namespace dslc;
using namespace dslc::tune;

namespace {
/// One shot: compile (rank 0; the other ranks wait for its manifest), run.
/// A tuner of one process compiles a space of more than
/// kCompileAllUpTo configs as its search visits them (a matmul's space
/// holds ~66,000: hours of compiles up front, a few hundred visited).
constexpr size_t kCompileAllUpTo = 512;
int oneShot(TunerOptions o) {
  if (!rt::readProcessEnv())
    o.compileAllUpTo = kCompileAllUpTo;
  std::string name = o.kernels.front();
  for (char &ch : name)
    if (ch == '/' || ch == ':')
      ch = '_';
  std::string dir =
      o.out.empty()
          ? fmt::format("{}/candidates/{}-{}-w{}",
                        rt::TuningCache(o.cacheDir).dir(), name,
                        o.dtype.empty() ? "default" : o.dtype, o.worldSize)
          : o.out;
  if (isRankZero()) {
    Progress prog(!o.quiet && isatty(2));
    doCompile(o, dir, prog);
  } else {
    for (int i = 0;
         i < 600 && !std::filesystem::exists(contract::manifestFile(dir)); ++i)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return doRun(o, loadManifest(dir));
}

/// tuner bench --process-models both: the one-process run here, then the
/// same command as a per-GPU job (`--launch W`), its rank 0 writing its
/// rows for this process to merge.
int benchBothModels(const TunerOptions &o, int argc, char **argv) {
  Manifest m = loadManifest(o.candidates);
  TunerOptions bo = o;
  if (bo.minBytes)
    bo.sizes = sweepSizes(bo, m);
  if (m.worldSize == 1) { // one process per GPU is this one process
    std::fprintf(stderr, "tuner: world size 1: the one-process and per-GPU "
                         "models are the same run; measured once\n");
    return doBench(bo, m);
  }
  return doBenchBothModels(bo, m, [&](const std::string &rowsFile) {
    std::vector<std::string> args;
    for (int i = 0; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--process-models" && i + 1 < argc) {
        ++i;
        continue;
      }
      if (a.rfind("--process-models=", 0) == 0)
        continue;
      args.push_back(a);
    }
    for (const char *extra :
         {"--process-models", "per-gpu", "--quiet", "--rows-out"})
      args.push_back(extra);
    args.push_back(rowsFile);
    std::vector<char *> cargs;
    for (std::string &a : args)
      cargs.push_back(a.data());
    cargs.push_back(nullptr);
    return run::launchJob("tuner", m.worldSize, static_cast<int>(args.size()),
                          cargs.data());
  });
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "__worker")
    return workerMain(argc, argv);
  std::signal(SIGPIPE, SIG_IGN);
  TunerOptions o;
  CLI::App app("tuner: picks the fastest kernel and config per size or "
               "shape, caches it, benchmarks it (docs/tuner.md)",
               "tuner");
  TunerCommands c = buildTunerCli(app, o);
  if (auto status = tooling::parseCommandLine(
          app, argc, argv, {"--dslc-arg", "--kernel-arg", "--reference-arg"}))
    return *status;
  if (auto status = checkTunerOptions(app, c, o))
    return *status;
  rt::Communicator::applySafeEnvironment();
  try {
    if (c.compile->parsed()) {
      Progress prog(!o.quiet && isatty(2));
      doCompile(o, o.out, prog);
      return 0;
    }
    if (c.bench->parsed() && o.processModels == "both" && !rt::readProcessEnv())
      return benchBothModels(o, argc, argv);
    if (o.launch > 0 && !rt::readProcessEnv())
      return run::launchJob("tuner", o.launch, argc, argv);
    if (c.run->parsed())
      return doRun(o, loadManifest(o.candidates));
    if (c.bench->parsed()) {
      Manifest m = loadManifest(o.candidates);
      TunerOptions bo = o;
      if (bo.minBytes)
        bo.sizes = sweepSizes(bo, m);
      return doBench(bo, m);
    }
    return oneShot(o);
  } catch (const rt::Error &e) {
    std::fprintf(stderr, "tuner: error (%s): %s\n", rt::errorCodeName(e.code()),
                 e.what());
    return e.code() == rt::ErrorCode::NoDevice ? 77 : 1;
  }
}
