//===- CommandLine.cpp - tuner's command line ----------------------------===//
//
// The options of `tuner compile|run|bench` (CLI11) and the checks of what
// they say about each other; tools/tuner is the main that calls them.
//
//===----------------------------------------------------------------------===//
#include "tooling/tuner/CommandLine.h"

#include "contract/Candidates.h"
#include "runtime/Rendezvous.h"
#include "tooling/support/Cli.h"
#include "tooling/tuner/NcclTests.h"

#include <fmt/format.h>

#include <cstdio>

using namespace dslc;
using namespace dslc::tune;

namespace {

void addKernelOptions(CLI::App &app, TunerOptions &o) {
  app.add_option("-k,--kernel", o.kernels,
                 "a kernel (NAME of --dsl, or FILE.py:NAME); repeat for a "
                 "choice among several")
      ->type_name("KERNEL");
  app.add_option("--dsl", o.dsl, "the file of -k NAME")->type_name("FILE.py");
  tooling::addChoice(app, "--collective", o.collective,
                     {"all_reduce", "reduce_scatter", "all_gather"},
                     "the collective the kernels implement (default "
                     "all_reduce without --reference)");
  app.add_option("--reference", o.reference,
                 "a DSL reference kernel over stacked [world, ...] inputs "
                 "and outputs, for kernels that are no collective; 'caller': "
                 "the process measuring (--measurer-fds) checks them")
      ->type_name("FILE.py:NAME|caller");
  tooling::addCount(app, "--world-size", o.worldSize, "ranks", 1);
  app.add_option("--dtype", o.dtype,
                 "retype every floating tensor parameter (--signature); "
                 "default bf16 for collectives, as annotated otherwise")
      ->type_name("bf16|f16|f32");
  app.add_option("--dslc", o.dslc,
                 "the compiler (default: next to tuner, else on PATH)")
      ->type_name("PATH");
  app.add_option("--dslc-arg", o.dslcArgs,
                 "passed to every dslc call (candidates and reference)")
      ->type_name("ARG");
  app.add_option("--kernel-arg", o.kernelArgs,
                 "passed to the candidates' dslc calls only (--signature, "
                 "--config, ...)")
      ->type_name("ARG");
  app.add_option("--reference-arg", o.referenceArgs,
                 "passed to the reference's dslc call only")
      ->type_name("ARG");
  tooling::addCount(app, "-j,--jobs", o.jobs, "parallel compiles", 1);
  app.add_option("--set", o.set, "cache key of a kernel set")
      ->type_name("NAME");
}

void addProblemOptions(CLI::App &app, TunerOptions &o) {
  tooling::addSizeList(app, "--sizes", o.sizes,
                       "a collective's total element counts N (1K,64K or "
                       "1K..64M)");
  app.add_option("--shape", o.shapes,
                 "one problem of a kernel with a reference: its tensors' "
                 "shapes; repeat for several")
      ->type_name("NAME=AxB,...");
  app.add_option("--size", o.sizeSpecs, "a shape every --shape shares")
      ->type_name("NAME=AxB");
  app.add_option("--scalar", o.scalarSpecs, "a scalar's value")
      ->type_name("NAME=V");
}

void addMeasureOptions(CLI::App &app, TunerOptions &o, bool tuning) {
  if (tuning) {
    app.add_flag("--force", o.force, "re-tune what the cache has");
    tooling::addNumber(app, "--budget-s", o.budgetS,
                       "search time per problem (default 30)");
    tooling::addCount(app, "--exhaustive-limit", o.exhaustiveLimit,
                      "search every point up to this many (default 64)");
    app.add_option("--trace", o.trace,
                   "append every point the search visits to FILE: "
                   "problem, kernel, config (its cache hints too), time "
                   "in us or why it was skipped")
        ->type_name("FILE");
  }
  app.add_option("--cache-dir", o.cacheDir, "the tuning cache")
      ->type_name("DIR");
  tooling::addCount(app, "--samples", o.samples, "timed samples", 1);
  tooling::addCount(app, "--iters", o.iters, "calls per eager sample");
  tooling::addCount(app, "--graph-replays", o.replays,
                    "calls per graph sample");
  tooling::addChoice(app, "--objective", o.objective, {"graph", "eager"},
                     "the median minimized (default graph; eager for a "
                     "kernel with --l2-cold)");
  app.add_flag("--l2-cold", o.l2Cold,
               "time from a cold L2: a collective's input and output "
               "rotate over copies whose total exceeds twice the L2 "
               "size (cudaDevAttrL2CacheSize); any other kernel's "
               "eager calls each follow a write of twice the L2");
  tooling::addSizeList(app, "--devices", o.devices, "GPUs (one process)", 0);
  tooling::addCount(app, "--launch", o.launch, "one process per GPU");
  tooling::addCount(app, "--virtual-world", o.virtualWorld,
                    "run N ranks in one process on one GPU (the first of "
                    "--devices, else 0), without NCCL: times are labelled "
                    "and cached apart from a real world's",
                    1);
  app.add_option("--rendezvous", o.rendezvous, "rendezvous file")
      ->type_name("FILE");
  app.add_option("--measurer-fds", o.measurerFds,
                 "the process that started the tuner measures: replies "
                 "from fd R, requests to fd W (the worker protocol; "
                 "dslc.kernel(..., reference=callable) does this)")
      ->type_name("R,W");
  tooling::addSize(app, "--kernel-timeout-ms", o.kernelTimeoutMs,
                   "bound on a kernel's spins (default 2000)");
  tooling::addNumber(app, "--candidate-timeout-s", o.candidateTimeoutS,
                     "bound on one measurement (default 120)");
  app.add_flag("--quiet", o.quiet, "no progress bar");
}

/// nccl-tests' spellings (docs/benchmark.md) and the baselines.
void addBenchOptions(CLI::App &bench, TunerOptions &o) {
  tooling::addSize(bench, "-b,--minbytes", o.minBytes,
                   "smallest size in bytes (nccl-tests' -b; with -e and -f, "
                   "instead of --sizes)",
                   1);
  tooling::addSize(bench, "-e,--maxbytes", o.maxBytes,
                   "largest size in bytes (nccl-tests' -e)", 1);
  tooling::addSize(bench, "-f,--stepfactor", o.stepFactor,
                   "size multiplier from -b to -e (default 2)", 0);
  tooling::addCount(bench, "-w,--warmup_iters", o.warmup,
                    "warm-up calls per phase before timing (default 3)");
  tooling::addCount(bench, "-n", o.iters,
                    "calls per timed sample, eager and graph (nccl-tests' "
                    "-n; --iters and --graph-replays apart)",
                    1);
  tooling::addCount(bench, "-G,--cudagraph", o.graphMode,
                    "nccl-tests tables: N > 0 CUDA-graph times (N timed graph "
                    "launches, as --samples N), 0 eager times (default 1)");
  tooling::addChoice(bench, "--nccl-buffers", o.ncclBuffers,
                     {"plain", "window", "both"},
                     "NCCL baselines: cudaMalloc'ed buffers, buffers in the "
                     "symmetric window, or both columns (default both)");
  tooling::addChoice(bench, "--process-models", o.processModels,
                     {"one", "per-gpu", "both"},
                     "one process for every GPU, one per GPU (--launch), or "
                     "a run of each merged (default: as launched)");
  bench.add_option("--rows-out", o.rowsOut)->group(""); // internal
}

/// tuner bench: nccl-tests' options against each other and --sizes.
std::optional<int> checkBenchOptions(CLI::App &bench, TunerOptions &o) {
  bool bytes = bench.count("--minbytes") || bench.count("--maxbytes");
  if (bytes && (!o.sizes.empty() || !o.shapes.empty()))
    return tooling::usageError(bench, "give sizes in bytes (-b/-e/-f) or "
                                      "elements (--sizes), not both");
  if (!bytes && bench.count("--stepfactor"))
    return tooling::usageError(bench, "-f/--stepfactor needs -b and/or -e");
  if (bytes) {
    if (!o.minBytes)
      o.minBytes = o.maxBytes;
    if (!o.maxBytes)
      o.maxBytes = o.minBytes;
    Expected<std::vector<int64_t>> sweep =
        byteSweep(o.minBytes, o.maxBytes, o.stepFactor);
    if (!sweep)
      return tooling::usageError(bench, sweep.error());
  } else if (o.sizes.empty() && o.shapes.empty() && o.sizeSpecs.empty()) {
    o.sizes = *tooling::parseSizeList("1K..64M");
  }
  if (bench.count("-n") && !bench.count("--graph-replays"))
    o.replays = o.iters;
  if (o.graphMode > 0) {
    if (bench.count("--cudagraph") && !bench.count("--samples"))
      o.samples = o.graphMode;
    o.graphMode = 1;
  }
  if (o.processModels == "per-gpu" && o.launch == 0 && !rt::readProcessEnv())
    return tooling::usageError(bench, "--process-models per-gpu: give "
                                      "--launch N (or start the ranks with "
                                      "torchrun)");
  if (o.processModels == "both" && o.launch > 0)
    return tooling::usageError(bench, "--process-models both starts its own "
                                      "per-GPU job: leave out --launch");
  return std::nullopt;
}

/// Checks across options; nullopt or a usage error's status.
} // namespace

TunerCommands dslc::tune::buildTunerCli(CLI::App &app, TunerOptions &o) {
  TunerCommands c;
  app.require_subcommand(0, 1);
  // Without a subcommand: compile, then run (one shot).
  addKernelOptions(app, o);
  addProblemOptions(app, o);
  addMeasureOptions(app, o, true);
  app.add_option("-o,--out", o.out, "where the candidates go")
      ->type_name("DIR");
  c.compile = app.add_subcommand(
      "compile", "compile every candidate config (no GPU needed)");
  addKernelOptions(*c.compile, o);
  c.compile->add_option("-o,--out", o.out, "the candidates' directory")
      ->type_name("DIR")
      ->required();
  c.compile->add_flag("--quiet", o.quiet, "no progress bar");
  c.run = app.add_subcommand(
      "run", "measure the candidates, cache the fastest per problem");
  c.run->add_option("--candidates", o.candidates, "made by tuner compile")
      ->type_name("DIR")
      ->required();
  addProblemOptions(*c.run, o);
  addMeasureOptions(*c.run, o, true);
  c.bench = app.add_subcommand(
      "bench", "time NCCL, each kernel's tuned config and the pick");
  c.bench->add_option("--candidates", o.candidates, "made by tuner compile")
      ->type_name("DIR")
      ->required();
  addProblemOptions(*c.bench, o);
  addMeasureOptions(*c.bench, o, false);
  c.bench->add_option("--csv", o.csv, "write the rows here")->type_name("FILE");
  addBenchOptions(*c.bench, o);
  return c;
}

std::optional<int> dslc::tune::checkTunerOptions(CLI::App &app,
                                                 const TunerCommands &c,
                                                 TunerOptions &o) {
  bool compiles =
      c.compile->parsed() || (!c.run->parsed() && !c.bench->parsed());
  CLI::App &used = c.compile->parsed() ? *c.compile
                   : c.run->parsed()   ? *c.run
                   : c.bench->parsed() ? *c.bench
                                       : app;
  if (compiles && o.kernels.empty())
    return tooling::usageError(used, "at least one -k KERNEL (with --dsl "
                                     "FILE) or -k FILE.py:KERNEL is needed");
  if (compiles && !o.collective.empty() && !o.reference.empty())
    return tooling::usageError(used, "give --collective or --reference");
  if (!o.reference.empty())
    for (const std::string &a : o.dslcArgs)
      for (const char *kernelOnly : {"--signature", "--config", "--shape"})
        if (a == kernelOnly || a.rfind(std::string(kernelOnly) + "=", 0) == 0)
          return tooling::usageError(
              used, fmt::format("--dslc-arg {} would reach the reference "
                                "too (its tensors are stacked: another "
                                "signature and shape); give it with "
                                "--kernel-arg (and the reference's own with "
                                "--reference-arg)",
                                a));
  if (!o.dtype.empty()) {
    auto d = rt::parseDType(o.dtype);
    if (!d || !rt::isFloating(*d))
      return tooling::usageError(used, fmt::format("--dtype {}: not a "
                                                   "floating dtype",
                                                   o.dtype));
    o.dtype = rt::dtypeName(*d);
  }
  bool oneShot = &used == &app;
  if (oneShot && o.reference == contract::kCallerReference &&
      o.measurerFds.empty())
    return tooling::usageError(used, "--reference caller: the process that "
                                     "runs the tuner checks and times the "
                                     "candidates: give --measurer-fds R,W");
  bool collective = o.reference.empty();
  if ((c.run->parsed() || oneShot) && collective && o.sizes.empty() &&
      o.shapes.empty() && o.sizeSpecs.empty())
    return tooling::usageError(used, "--sizes is needed (e.g. --sizes "
                                     "1K,64K,1M), or --shape for a kernel "
                                     "with a reference");
  if (c.bench->parsed()) {
    if (auto status = checkBenchOptions(*c.bench, o))
      return status;
  }
  if (!o.measurerFds.empty()) {
    int r = -1, w = -1;
    char rest = 0;
    if (std::sscanf(o.measurerFds.c_str(), "%d,%d%c", &r, &w, &rest) != 2 ||
        r < 0 || w < 0 || r == w)
      return tooling::usageError(
          used, fmt::format("--measurer-fds {}: give two different open "
                            "file descriptors R,W",
                            o.measurerFds));
    if (o.launch || o.virtualWorld || !o.devices.empty())
      return tooling::usageError(used,
                                 "--measurer-fds: the measuring process "
                                 "chooses its GPU and world; no --launch, "
                                 "--virtual-world or --devices");
    o.measurerIn = r;
    o.measurerOut = w;
  }
  if (o.virtualWorld &&
      (o.launch || o.devices.size() > 1 ||
       (!o.processModels.empty() && o.processModels != "one")))
    return tooling::usageError(used, "--virtual-world runs every rank in one "
                                     "process on one GPU: no --launch, no "
                                     "--process-models per-gpu|both, at most "
                                     "one --devices");
  return std::nullopt;
}
