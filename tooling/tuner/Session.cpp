//===- Session.cpp - tuner compile and run --------------------------------===//
#include "tooling/tuner/Session.h"

#include "runtime/DType.h"
#include "runtime/Error.h"
#include "runtime/Metadata.h"
#include "runtime/Rendezvous.h"
#include "tooling/harness/DslReference.h"
#include "tooling/support/Dslc.h"
#include "tooling/tuner/Search.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unistd.h>

namespace dslc::tune {

using Clock = std::chrono::steady_clock;

bool isRankZero() {
  auto env = rt::readProcessEnv();
  return !env || env->rank == 0;
}

std::string absPath(const std::string &p) {
  std::error_code ec;
  std::filesystem::path a = std::filesystem::absolute(p, ec);
  return ec ? p : a.string();
}

std::vector<Problem> problems(const TunerOptions &o, const Manifest &m) {
  std::vector<Problem> out;
  bool collective = !m.collective.empty();
  if (collective &&
      (!o.shapes.empty() || !o.sizeSpecs.empty() || !o.scalarSpecs.empty()))
    rt::raise(
        rt::ErrorCode::InvalidArgument,
        fmt::format("the candidates in {} implement {}: give --sizes N,... "
                    "(--shape, --size and --scalar are for kernels "
                    "with a --reference)",
                    m.dir, m.collective));
  if (collective) {
    for (int64_t n : o.sizes)
      out.push_back({n, {}, formatSize(n), rt::sizeBucket(n), ""});
    return out;
  }
  if (!o.sizes.empty())
    rt::raise(rt::ErrorCode::InvalidArgument,
              fmt::format("the candidates in {} are checked against {}: "
                          "give their shapes with --shape NAME=AxB,... "
                          "(--sizes is for collectives)",
                          m.dir, m.reference));
  std::vector<std::string> shapes = o.shapes;
  if (shapes.empty())
    shapes.push_back("");
  for (const std::string &shape : shapes) {
    Problem p;
    for (const std::string &s : o.sizeSpecs)
      if (auto ok = p.spec.addSize(s); !ok)
        rt::raise(rt::ErrorCode::InvalidArgument, ok.error());
    for (const std::string &s : o.scalarSpecs)
      if (auto ok = p.spec.addScalar(s); !ok)
        rt::raise(rt::ErrorCode::InvalidArgument, ok.error());
    if (auto ok = p.spec.addSizes(shape); !ok)
      rt::raise(rt::ErrorCode::InvalidArgument, ok.error());
    if (p.spec.shapes.empty())
      rt::raise(rt::ErrorCode::InvalidArgument,
                "no shapes: give --shape NAME=AxB,... (once per problem)");
    for (const auto &[name, dims] : p.spec.shapes)
      p.n = std::max(p.n, tooling::numel(dims));
    p.label = p.spec.text();
    p.bucket = rt::sizeBucket(p.n);
    p.shape = contract::shapeKey(p.spec.shapes);
    out.push_back(std::move(p));
  }
  checkProblems(m, out);
  return out;
}

void checkProblems(const Manifest &m, const std::vector<Problem> &ps) {
  // Collectives have no plan to check here; the caller's reference
  // (--reference caller) binds the caller's own tensors.
  if (m.referenceCubin.empty())
    return;
  rt::KernelMetadata ref =
      rt::loadMetadataFile(m.dir + "/" + m.referenceCubin + ".json");
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    // The first compiled candidate: its metadata has the dtypes and
    // constants every config of the kernel shares.
    const CompiledCandidate *first = nullptr;
    for (const CompiledCandidate &c : m.compiled)
      if (c.kernel == static_cast<int>(k) && c.ok) {
        first = &c;
        break;
      }
    if (!first)
      continue; // run reports the kernel's failed compiles
    std::string cubin = first->cubin;
    if (size_t at = cubin.find("{rank}"); at != std::string::npos)
      cubin.replace(at, 6, "0");
    rt::KernelMetadata md = rt::loadMetadataFile(m.dir + "/" + cubin + ".json");
    for (const Problem &p : ps) {
      try {
        (void)run::bindReference(ref, run::planKernel(md, m.worldSize, p.spec));
      } catch (const rt::Error &e) {
        rt::raise(rt::ErrorCode::InvalidArgument,
                  fmt::format("--shape {}: {}", p.label, e.what()));
      }
    }
  }
}

namespace {
/// The least bound on a candidate's compile under --budget-s (most compile
/// in 0.2 to 1.5 s; jsd's [4096, 8], spilling 22 KB a thread, in 21 s).
constexpr double kMinCandidateCompileS = 3;
/// The share of --budget-s one candidate's compile may take.
constexpr double kCandidateCompileShare = 0.25;

/// The compile options of `o` (log and progress to `prog`).
CompileOptions compileOptions(const TunerOptions &o, Progress &prog) {
  CompileOptions co;
  co.dslc = tooling::findDslc(o.dslc);
  co.extraArgs = o.dslcArgs;
  co.kernelArgs = o.kernelArgs;
  co.referenceArgs = o.referenceArgs;
  co.jobs = o.jobs;
  co.setName = o.set;
  co.reference = o.reference;
  co.compileAllUpTo = o.compileAllUpTo;
  // Under a time budget a candidate's compile may take a quarter of it
  // (at least kMinCandidateCompileS): the default still compiles in full.
  if (o.budgetS > 0)
    co.candidateTimeoutS =
        std::max(kMinCandidateCompileS, o.budgetS * kCandidateCompileShare);
  co.log = [&prog](const std::string &s) { prog.log("tuner: " + s); };
  return co;
}

/// The collective of `o` ("" for kernels with a reference) and the dtype
/// its candidates are compiled for ("": as annotated).
std::pair<std::string, std::string> compileTarget(const TunerOptions &o) {
  std::string collective =
      o.collective.empty() && o.reference.empty() ? "all_reduce" : o.collective;
  std::string dtype =
      o.dtype.empty() && !collective.empty() ? "bfloat16" : o.dtype;
  return {collective, dtype};
}
} // namespace

Manifest doCompile(const TunerOptions &o, const std::string &dir,
                   Progress &prog) {
  CompileOptions co = compileOptions(o, prog);
  bool started = false;
  co.progress = [&](size_t, size_t total) {
    if (!started) {
      prog.start(total, "compile");
      started = true;
    }
    prog.step("");
  };
  auto [collective, dtype] = compileTarget(o);
  auto t0 = Clock::now();
  Manifest m = compileCandidates(o.dsl, o.kernels, collective, o.worldSize,
                                 dtype, dir, co);
  prog.finish();
  size_t ok = 0;
  for (const auto &c : m.compiled)
    ok += c.ok;
  std::fprintf(stderr,
               "tuner: compiled %zu of %zu candidate configs into %s in "
               "%.1f s (key %s)\n",
               ok, m.compiled.size(), dir.c_str(),
               std::chrono::duration<double>(Clock::now() - t0).count(),
               m.set.c_str());
  return m;
}

WorkerOptions workerOptions(const TunerOptions &o, const Manifest &m) {
  if (m.checkedByCaller() && o.measurerIn < 0)
    rt::raise(rt::ErrorCode::InvalidArgument,
              fmt::format("the candidates in {} are checked by the caller's "
                          "own reference (--reference caller): the process "
                          "that runs the tuner must measure them "
                          "(--measurer-fds R,W; dslc.kernel(..., "
                          "autotune=True, reference=callable) does)",
                          m.dir));
  WorkerOptions wo;
  wo.callerIn = o.measurerIn;
  wo.callerOut = o.measurerOut;
  wo.collective = m.collective;
  if (!m.referenceCubin.empty())
    wo.referenceCubin = absPath(m.dir) + "/" + m.referenceCubin;
  wo.dtype = m.dtype;
  wo.devices.assign(o.devices.begin(), o.devices.end());
  wo.virtualWorld = o.virtualWorld;
  wo.rendezvousBase = o.rendezvous;
  wo.kernelTimeoutMs = o.kernelTimeoutMs;
  wo.requestTimeoutS = o.candidateTimeoutS;
  return wo;
}

DeviceInfo jobDevices(WorkerClient &worker, const Manifest &m) {
  DeviceInfo di = worker.info();
  if (di.worldSize != m.worldSize)
    rt::raise(rt::ErrorCode::InvalidArgument,
              fmt::format("the candidates in {} were compiled for world size "
                          "{}, but this job has {} rank(s)",
                          m.dir, m.worldSize, di.worldSize));
  return di;
}

MeasureRequest baseRequest(const TunerOptions &o, const Problem &p) {
  MeasureRequest base;
  base.n = p.n;
  base.maxN = p.n;
  base.shapes = p.spec.shapes;
  base.scalars = p.spec.scalars;
  base.iters = o.iters;
  base.graphReplays = o.replays;
  base.repetitions = o.samples;
  base.warmup = o.warmup;
  base.l2Cold = o.l2Cold;
  return base;
}

rt::TuningKey problemKey(const Manifest &m, const DeviceInfo &di,
                         const Problem &p) {
  rt::TuningKey key{m.collective, m.set,   di.device, di.driver,
                    m.worldSize,  m.dtype, p.bucket};
  key.shape = p.shape;
  return key;
}

namespace {

rt::KernelChoice choiceOf(const Manifest &m, const SearchPoint &p, double us,
                          double eagerUs) {
  rt::KernelChoice c;
  const KernelInfo &k = m.kernels.at(p.kernel);
  c.kernel = k.name;
  c.file = k.file;
  c.sha256 = k.sha256;
  c.config = m.spaces.at(p.kernel).config(p.idx);
  const CompiledCandidate *cc = m.find(p.kernel, c.config);
  c.cubin = cc ? cc->cubin : "";
  c.us = us;
  c.eagerUs = eagerUs;
  return c;
}

struct ProblemSummary {
  Problem problem;
  bool cached = false;
  std::optional<rt::TuningValue> value;
  size_t evaluated = 0, total = 0, skipped = 0;
  bool exhaustive = false, budgetHit = false;
  double seconds = 0;
  std::string error;
};

/// What run measures for one problem: the worker and the search state.
struct Tuning {
  const TunerOptions &o;
  Manifest &m;
  WorkerClient &worker;
  Progress &prog;
  bool rank0;
  std::string absDir;
  /// Set when the configs the search visits are compiled on demand.
  const CompileOptions *compile = nullptr;
  int multiprocessors = 0; ///< the GPU's SMs (KernelSpace::waveSeeds)
};

/// Searches the candidates for problem `p`; fills `s` (and the value).
void tuneProblem(Tuning &t, const Problem &p, ProblemSummary &s) {
  const TunerOptions &o = t.o;
  Manifest &m = t.m;
  auto t0 = Clock::now();
  MeasureRequest base = baseRequest(o, p);
  std::optional<MeasureReply> nccl;
  // A virtual world has no NCCL: its kernels are tuned against each other.
  if (!m.collective.empty() && !o.virtualWorld) {
    nccl = t.worker.measure(base);
    if (!nccl->ok && t.rank0)
      t.prog.log(
          fmt::format("tuner: {}: NCCL failed: {}", p.label, nccl->reason));
  }
  size_t total = 0;
  for (const auto &sp : m.spaces)
    total += sp.points().size();
  t.prog.start(total, fmt::format("tune {}", p.label));
  std::map<std::pair<int, std::vector<int>>, double> eagerOf;
  // Configs that compiled to the same code (candidateCodeKey) at the same
  // CTA cap are measured once: (label, result, eager). Only in a tuner of
  // one process: ranks of a multi-process tuner measure in lockstep, and
  // one rank's failed read must not skip a measurement the others make.
  bool oneProcess = !rt::readProcessEnv();
  std::map<std::pair<std::string, int64_t>,
           std::tuple<std::string, double, double>>
      byCode;
  // By cubin path: compiling on demand appends to m.compiled, so pointers
  // into it do not last.
  std::map<std::string, std::string> codeKeys;
  // The fastest time so far: a candidate kCutoffFactor slower in its
  // warm-up is not timed further (one process only: every rank of a
  // multi-process tuner must run the same calls).
  double best = std::numeric_limits<double>::infinity();
  // --trace: rank 0 appends each visited point (docs/tuner.md).
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> trace(nullptr, std::fclose);
  if (!o.trace.empty() && t.rank0) {
    trace.reset(std::fopen(o.trace.c_str(), "a"));
    if (!trace)
      t.prog.log(
          fmt::format("tuner: --trace {}: cannot open it; no trace", o.trace));
  }
  Evaluate eval = [&](const SearchPoint &pt) -> std::optional<double> {
    KernelConfig cfg = m.spaces[pt.kernel].config(pt.idx);
    std::string label =
        fmt::format("{} {}", m.kernels[pt.kernel].name, cfg.brief());
    const CompiledCandidate *cc = m.find(pt.kernel, cfg);
    std::string why;
    std::optional<double> result;
    if (!cc || !cc->ok) {
      why = cc ? cc->reason : "not compiled (not in the manifest)";
    } else {
      auto key = codeKeys.find(cc->cubin);
      if (key == codeKeys.end())
        key =
            codeKeys
                .emplace(cc->cubin, oneProcess ? candidateCodeKey(m, *cc) : "")
                .first;
      std::pair<std::string, int64_t> code{key->second, cfg.maxCtas};
      auto same = code.first.empty() ? byCode.end() : byCode.find(code);
      if (same != byCode.end()) {
        auto [first, us, eager] = same->second;
        result = us;
        eagerOf[{pt.kernel, pt.idx}] = eager;
        label += fmt::format(": {:.2f} us (the code of {})", us, first);
      } else {
        MeasureRequest r = base;
        r.cubin = t.absDir + "/" + cc->cubin;
        r.maxCtas = cfg.maxCtas;
        if (oneProcess && std::isfinite(best))
          r.cutoffUs = kCutoffFactor * best;
        MeasureReply rep = t.worker.measure(r);
        if (rep.ok) {
          result = o.objective == "graph" ? rep.graphUs : rep.eagerUs;
          eagerOf[{pt.kernel, pt.idx}] = rep.eagerUs;
          if (!code.first.empty())
            byCode[code] = {label, *result, rep.eagerUs};
          if (!rep.cutOff)
            best = std::min(best, *result);
          label += fmt::format(": {:.2f} us{}", *result,
                               rep.cutOff ? " (warm-up only: past "
                                            "the cutoff)"
                                          : "");
        } else if (rep.fatal && o.measurerIn >= 0) {
          // The caller measures in its own process: nothing to restart.
          rt::raise(rt::ErrorCode::Cuda,
                    fmt::format("{}: {}: {} (the measuring process cannot "
                                "measure more)",
                                p.label, label, rep.reason));
        } else {
          why = rep.reason + (rep.fatal ? " (worker restarted)" : "");
        }
      }
    }
    if (!result) {
      ++s.skipped;
      if (t.rank0)
        t.prog.log(fmt::format("tuner: {}: skip {}: {}", p.label, label, why));
    }
    if (trace) {
      std::string line = fmt::format(
          "{}\t{}\t{}\t{}\n", p.label, m.kernels[pt.kernel].name, cfg.brief(),
          result ? fmt::format("{:.3f}", *result) : "skip: " + why);
      std::fputs(line.c_str(), trace.get());
      std::fflush(trace.get());
    }
    t.prog.step(label);
    return result;
  };
  SearchOptions so;
  so.exhaustiveLimit = static_cast<size_t>(o.exhaustiveLimit);
  so.multiprocessors = t.multiprocessors;
  if (t.compile)
    so.prepare = [&](const std::vector<SearchPoint> &points) {
      std::vector<std::pair<int, KernelConfig>> configs;
      for (const SearchPoint &pt : points) {
        KernelConfig c = m.spaces[pt.kernel].config(pt.idx);
        c.maxCtas = 0;
        if (!m.find(pt.kernel, c))
          configs.push_back({pt.kernel, c});
      }
      compileConfigs(m, configs, *t.compile);
    };
  so.outOfBudget = [&] {
    return o.budgetS > 0 &&
           std::chrono::duration<double>(Clock::now() - t0).count() > o.budgetS;
  };
  SearchResult res = search(m.spaces, eval, so);
  trace.reset();
  t.prog.finish();
  s.evaluated = res.evaluated;
  s.total = res.totalPoints;
  s.exhaustive = res.exhaustive;
  s.budgetHit = res.budgetHit;
  s.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!res.best) {
    s.error = "no candidate worked";
    return;
  }
  rt::TuningValue v;
  v.pick = choiceOf(m, *res.best, res.bestUs,
                    eagerOf[{res.best->kernel, res.best->idx}]);
  for (size_t k = 0; k < m.kernels.size(); ++k)
    if (res.bestPerKernel[k])
      v.perKernel.push_back(choiceOf(
          m, *res.bestPerKernel[k], res.bestUsPerKernel[k],
          eagerOf[{res.bestPerKernel[k]->kernel, res.bestPerKernel[k]->idx}]));
  bool ncclOk = nccl && nccl->ok;
  v.ncclUs =
      ncclOk ? (o.objective == "graph" ? nccl->graphUs : nccl->eagerUs) : 0;
  v.ncclEagerUs = ncclOk ? nccl->eagerUs : 0;
  v.size = p.n;
  v.date = rt::isoDateNow();
  v.candidates = t.absDir;
  s.value = v;
}

/// The run's table; returns the number of problems without a result.
int printRunTable(const TunerOptions &o, const Manifest &m,
                  const std::vector<ProblemSummary> &summary,
                  const std::string &cachePath) {
  std::vector<std::vector<std::string>> table = {
      {m.collective.empty() ? "shape" : "size", "dtype", "nccl us", "pick",
       "config", "us", "speedup", "searched", "skipped", "time s"}};
  int failures = 0;
  for (const ProblemSummary &s : summary) {
    std::string searched = s.cached
                               ? "cached"
                               : fmt::format("{}/{}{}{}", s.evaluated, s.total,
                                             s.exhaustive ? " all" : " pattern",
                                             s.budgetHit ? " (budget)" : "");
    std::string skipped = s.cached ? "-" : std::to_string(s.skipped);
    std::string secs = s.cached ? "-" : fmt::format("{:.1f}", s.seconds);
    if (!s.value) {
      ++failures;
      table.push_back({s.problem.label, m.dtype, "-", "FAILED: " + s.error, "-",
                       "-", "-", searched, skipped, secs});
      continue;
    }
    const rt::TuningValue &v = *s.value;
    // The best kernel is cached either way; the runtime dispatches NCCL
    // for this size when NCCL was at least as fast (TuningValue::ncclWins).
    table.push_back({s.problem.label, m.dtype,
                     v.ncclUs > 0 ? fmt::format("{:.2f}", v.ncclUs) : "-",
                     v.ncclWins() ? "nccl (best kernel: " + v.pick.kernel + ")"
                                  : v.pick.kernel,
                     v.pick.config.brief(), fmt::format("{:.2f}", v.pick.us),
                     v.ncclUs > 0 && v.pick.us > 0
                         ? fmt::format("{:.2f}x", v.ncclUs / v.pick.us)
                         : "-",
                     searched, skipped, secs});
  }
  std::printf("%s", renderTable(table).c_str());
  std::printf("tuner: times are %s medians per call; cache %s\n",
              o.objective == "graph"             ? "CUDA-graph replay"
              : o.l2Cold && m.collective.empty() ? "L2-cold single-call"
              : o.l2Cold                         ? "L2-cold back-to-back"
                                                 : "back-to-back",
              cachePath.c_str());
  return failures;
}

} // namespace

std::string tuningObjective(const TunerOptions &o, const Manifest &m) {
  bool kernel = m.collective.empty();
  if (kernel && o.l2Cold && o.objective == "graph")
    rt::raise(rt::ErrorCode::InvalidArgument,
              "--l2-cold --objective graph: a kernel's graph replays stay "
              "L2-hot (only its eager calls follow a flush); use --objective "
              "eager, the default with --l2-cold");
  if (!o.objective.empty())
    return o.objective;
  return kernel && o.l2Cold ? "eager" : "graph";
}

int doRun(const TunerOptions &given, Manifest m) {
  TunerOptions o = given;
  o.objective = tuningObjective(given, m);
  std::vector<Problem> all = problems(o, m);
  bool rank0 = isRankZero();
  Progress prog(rank0 && !o.quiet && isatty(2));
  WorkerClient worker(workerOptions(o, m));
  DeviceInfo di = jobDevices(worker, m);
  if (rank0)
    std::fprintf(
        stderr, "tuner: %s on %dx %s (%s), %s, %zu kernel(s), key %s\n",
        m.collective.empty() ? ("checked against " + m.reference).c_str()
                             : m.collective.c_str(),
        di.worldSize, di.device.c_str(), di.driver.c_str(), m.dtype.c_str(),
        m.kernels.size(), m.set.c_str());
  rt::TuningCache cache(o.cacheDir);
  Tuning t{o, m, worker, prog, rank0, absPath(m.dir)};
  t.multiprocessors = di.multiprocessors;
  CompileOptions onDemand; // the one-shot's: compile what the search visits
  if (o.compileAllUpTo > 0) {
    onDemand = compileOptions(o, prog);
    onDemand.dtype = compileTarget(o).second;
    t.compile = &onDemand;
  }
  std::vector<ProblemSummary> summary;
  for (const Problem &p : all) {
    ProblemSummary s;
    s.problem = p;
    rt::TuningKey key = problemKey(m, di, p);
    std::optional<rt::TuningValue> cached =
        o.force ? std::nullopt : cache.lookup(key);
    if (cached) {
      s.cached = true;
      s.value = cached;
      if (rank0)
        std::fprintf(stderr,
                     "tuner: %s: cached (bucket 2^%d, tuned %s at %s): %s "
                     "%s; --force re-tunes\n",
                     p.label.c_str(), key.bucket, cached->date.c_str(),
                     formatSize(cached->size).c_str(),
                     cached->pick.kernel.c_str(),
                     cached->pick.config.brief().c_str());
    } else {
      tuneProblem(t, p, s);
      if (rank0 && s.value)
        cache.store({{key, *s.value}});
    }
    summary.push_back(std::move(s));
  }
  worker.stop();
  if (!rank0)
    return 0;
  return printRunTable(o, m, summary, cache.path()) ? 1 : 0;
}

} // namespace dslc::tune
