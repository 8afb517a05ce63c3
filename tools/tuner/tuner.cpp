//===- tuner.cpp - Pick the fastest kernel and config per size ------------===//
//
//   tuner compile --dsl FILE -k KERNEL [-k K2 ...] --collective C
//                 --world-size W --dtype D --out DIR [--dslc PATH] [-j N]
//   tuner run     --candidates DIR --sizes 1K,64K,1M [--force] [--budget-s S]
//   tuner         --dsl FILE -k KERNEL ... --sizes ...     (both, one shot)
//   tuner bench   --candidates DIR [--sizes 1K..64M] [--csv FILE]
//
// compile runs dslc for every candidate config and rank (this machine);
// run measures them on the GPUs (the GPU machine may have no compiler) and
// writes the best per size to the tuning cache; bench times NCCL, each
// kernel with its tuned config and the tuner's pick, eager and graph, and
// prints a table and CSV. docs/tuner.md and docs/benchmark.md explain.
//
//===----------------------------------------------------------------------===//
#include "runtime/Communicator.h"
#include "runtime/DType.h"
#include "runtime/Error.h"
#include "runtime/Rendezvous.h"
#include "runtime/TuningCache.h"
#include "tools/harness/JobLauncher.h"
#include "tools/tuner/Candidates.h"
#include "tools/tuner/Report.h"
#include "tools/tuner/Search.h"
#include "tools/tuner/Worker.h"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace dslc;
using namespace dslc::tune;

namespace {

struct Options {
  std::string mode; ///< compile, run, bench, oneshot
  std::string dsl, dslc, out, candidates, cacheDir, csv, set;
  std::vector<std::string> kernels, dslcArgs;
  std::string collective = "all_reduce";
  int worldSize = 2;
  std::string dtype = "bfloat16";
  std::vector<int64_t> sizes;
  bool force = false;
  double budgetS = 30;
  int jobs = 2;
  int samples = 5, iters = 20, replays = 20;
  std::string objective = "graph";
  std::vector<int> devices;
  int launch = 0;
  std::string rendezvous;
  int64_t kernelTimeoutMs = 2000;
  double candidateTimeoutS = 120;
  bool quiet = false;
  size_t exhaustiveLimit = 64;
};

[[noreturn]] void usage(const std::string &why) {
  std::fprintf(
      stderr,
      "tuner: %s\n"
      "usage:\n"
      "  tuner compile [--dsl FILE] -k KERNEL|FILE.py:KERNEL [-k ...] "
      "--collective "
      "all_reduce|reduce_scatter|all_gather\n"
      "                --world-size W --dtype bf16|f16|f32 --out DIR "
      "[--dslc PATH] [-j N] [--set NAME] [--dslc-arg ARG]...\n"
      "  tuner run --candidates DIR --sizes 1K,64K,1M [--force] "
      "[--budget-s S] [--cache-dir DIR]\n"
      "  tuner --dsl FILE -k KERNEL ... --collective C --world-size W "
      "--dtype D --sizes ... [--out DIR] (compile + run)\n"
      "  tuner bench --candidates DIR [--sizes 1K..64M] [--csv FILE]\n"
      "common: [--samples R] [--iters N] [--graph-replays N] "
      "[--objective graph|eager] [--devices 0,1]\n"
      "        [--launch N] [--rendezvous FILE] [--kernel-timeout-ms T] "
      "[--candidate-timeout-s S] [--exhaustive-limit N] [--quiet]\n",
      why.c_str());
  std::exit(2);
}

int toInt(const std::string &s, const char *what) {
  int64_t v = parseSize(s);
  if (v < 0)
    usage(fmt::format("bad {} '{}'", what, s));
  return static_cast<int>(v);
}

Options parseArgs(int argc, char **argv) {
  Options o;
  int i = 1;
  if (argc > 1 && argv[1][0] != '-') {
    o.mode = argv[1];
    if (o.mode != "compile" && o.mode != "run" && o.mode != "bench")
      usage(fmt::format("unknown command '{}'", o.mode));
    i = 2;
  } else {
    o.mode = "oneshot";
  }
  for (; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--dsl")
      o.dsl = value();
    else if (a == "-k" || a == "--kernel")
      o.kernels.push_back(value());
    else if (a == "--dslc")
      o.dslc = value();
    else if (a == "--dslc-arg")
      o.dslcArgs.push_back(value());
    else if (a == "--out" || a == "-o")
      o.out = value();
    else if (a == "--candidates")
      o.candidates = value();
    else if (a == "--cache-dir")
      o.cacheDir = value();
    else if (a == "--csv")
      o.csv = value();
    else if (a == "--set")
      o.set = value();
    else if (a == "--collective")
      o.collective = value();
    else if (a == "--world-size")
      o.worldSize = toInt(value(), "world size");
    else if (a == "--dtype") {
      auto d = rt::parseDType(value());
      if (!d)
        usage(fmt::format("unknown dtype '{}'", argv[i]));
      o.dtype = rt::dtypeName(*d);
    } else if (a == "--sizes") {
      o.sizes = parseSizes(value());
      if (o.sizes.empty())
        usage(fmt::format("bad sizes '{}'", argv[i]));
    } else if (a == "--force")
      o.force = true;
    else if (a == "--budget-s")
      o.budgetS = std::atof(value().c_str());
    else if (a == "-j" || a == "--jobs")
      o.jobs = toInt(value(), "job count");
    else if (a == "--samples")
      o.samples = toInt(value(), "sample count");
    else if (a == "--iters")
      o.iters = toInt(value(), "iteration count");
    else if (a == "--graph-replays")
      o.replays = toInt(value(), "replay count");
    else if (a == "--objective") {
      o.objective = value();
      if (o.objective != "graph" && o.objective != "eager")
        usage("--objective is graph or eager");
    } else if (a == "--devices") {
      std::vector<int64_t> d = parseSizes(value());
      for (int64_t v : d)
        o.devices.push_back(static_cast<int>(v));
    } else if (a == "--launch")
      o.launch = toInt(value(), "process count");
    else if (a == "--rendezvous")
      o.rendezvous = value();
    else if (a == "--kernel-timeout-ms")
      o.kernelTimeoutMs = toInt(value(), "timeout");
    else if (a == "--candidate-timeout-s")
      o.candidateTimeoutS = std::atof(value().c_str());
    else if (a == "--exhaustive-limit")
      o.exhaustiveLimit = static_cast<size_t>(toInt(value(), "limit"));
    else if (a == "--quiet")
      o.quiet = true;
    else if (a == "-h" || a == "--help")
      usage("help");
    else
      usage(fmt::format("unknown argument '{}'", a));
  }
  if (o.collective != "all_reduce" && o.collective != "reduce_scatter" &&
      o.collective != "all_gather")
    usage(fmt::format("unknown collective '{}'", o.collective));
  if (o.mode == "compile" || o.mode == "oneshot") {
    if (o.kernels.empty())
      usage("at least one -k KERNEL (with --dsl FILE) or -k FILE.py:KERNEL "
            "is needed");
    if (o.worldSize < 1)
      usage("--world-size must be >= 1");
  }
  if (o.mode == "compile" && o.out.empty())
    usage("compile needs --out DIR");
  if ((o.mode == "run" || o.mode == "bench") && o.candidates.empty())
    usage(o.mode + " needs --candidates DIR (made by tuner compile)");
  if ((o.mode == "run" || o.mode == "oneshot") && o.sizes.empty())
    usage("--sizes is needed (e.g. --sizes 1K,64K,1M)");
  if (o.mode == "bench" && o.sizes.empty())
    o.sizes = parseSizes("1K..64M");
  return o;
}

/// The dslc next to this executable, else the one on PATH.
std::string findDslc(const std::string &given) {
  if (!given.empty())
    return given;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    std::string dir(buf);
    dir = dir.substr(0, dir.rfind('/'));
    std::string p = dir + "/dslc";
    if (access(p.c_str(), X_OK) == 0)
      return p;
  }
  return "dslc";
}

std::string absPath(const std::string &p) {
  if (!p.empty() && p[0] == '/')
    return p;
  char buf[4096];
  if (!getcwd(buf, sizeof buf))
    return p;
  return std::string(buf) + "/" + p;
}

bool isRankZero() {
  auto env = rt::readProcessEnv();
  return !env || env->rank == 0;
}

Manifest doCompile(const Options &o, const std::string &dir, Progress &prog) {
  CompileOptions co;
  co.dslc = findDslc(o.dslc);
  co.extraArgs = o.dslcArgs;
  co.jobs = o.jobs;
  co.setName = o.set;
  co.log = [&](const std::string &s) { prog.log("tuner: " + s); };
  bool started = false;
  co.progress = [&](size_t done, size_t total) {
    if (!started) {
      prog.start(total, "compile");
      started = true;
    }
    (void)done;
    prog.step("");
  };
  auto t0 = std::chrono::steady_clock::now();
  Manifest m = compileCandidates(o.dsl, o.kernels, o.collective, o.worldSize,
                                 o.dtype, dir, co);
  prog.finish();
  size_t ok = 0;
  for (const auto &c : m.compiled)
    ok += c.ok;
  std::fprintf(stderr,
               "tuner: compiled %zu of %zu candidate configs into %s in "
               "%.1f s (key %s)\n",
               ok, m.compiled.size(), dir.c_str(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             t0)
                   .count(),
               m.set.c_str());
  return m;
}

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

struct SizeSummary {
  int64_t n = 0;
  bool cached = false;
  std::optional<rt::TuningValue> value;
  size_t evaluated = 0, total = 0, skipped = 0;
  bool exhaustive = false, budgetHit = false;
  double seconds = 0;
  std::string error;
};

/// The worker process's settings for measuring the candidates of `m`.
WorkerOptions workerOptions(const Options &o, const Manifest &m) {
  WorkerOptions wo;
  wo.collective = m.collective;
  wo.dtype = m.dtype;
  wo.devices = o.devices;
  wo.rendezvousBase = o.rendezvous;
  wo.kernelTimeoutMs = o.kernelTimeoutMs;
  wo.requestTimeoutS = o.candidateTimeoutS;
  return wo;
}

/// The job's devices; the candidates must have been compiled for its size.
DeviceInfo jobDevices(WorkerClient &worker, const Manifest &m) {
  DeviceInfo di = worker.info();
  if (di.worldSize != m.worldSize)
    rt::raise(rt::ErrorCode::InvalidArgument,
              fmt::format("the candidates in {} were compiled for world size "
                          "{}, but this job has {} rank(s)",
                          m.dir, m.worldSize, di.worldSize));
  return di;
}

/// A measurement of size `n` with the options' call counts.
MeasureRequest baseRequest(const Options &o, int64_t n) {
  MeasureRequest base;
  base.n = n;
  base.maxN = n;
  base.iters = o.iters;
  base.graphReplays = o.replays;
  base.repetitions = o.samples;
  return base;
}

int doRun(const Options &o, const Manifest &m) {
  bool rank0 = isRankZero();
  Progress prog(rank0 && !o.quiet && isatty(2));
  WorkerClient worker(workerOptions(o, m));
  DeviceInfo di = jobDevices(worker, m);
  if (rank0)
    std::fprintf(stderr,
                 "tuner: %s on %dx %s (%s), %s, %zu kernel(s), key %s\n",
                 m.collective.c_str(), di.worldSize, di.device.c_str(),
                 di.driver.c_str(), m.dtype.c_str(), m.kernels.size(),
                 m.set.c_str());
  rt::TuningCache cache(o.cacheDir);
  std::vector<SizeSummary> summary;
  std::string absDir = absPath(m.dir);
  for (int64_t n : o.sizes) {
    SizeSummary s;
    s.n = n;
    rt::TuningKey key{m.collective, m.set,    di.device,     di.driver,
                      m.worldSize,  m.dtype, rt::sizeBucket(n)};
    if (!o.force) {
      if (auto v = cache.lookup(key)) {
        s.cached = true;
        s.value = v;
        if (rank0)
          std::fprintf(stderr,
                       "tuner: size %s: cached (bucket 2^%d, tuned %s at %s): "
                       "%s %s; --force re-tunes\n",
                       formatSize(n).c_str(), key.bucket, v->date.c_str(),
                       formatSize(v->size).c_str(), v->pick.kernel.c_str(),
                       v->pick.config.brief().c_str());
        summary.push_back(s);
        continue;
      }
    }
    auto t0 = std::chrono::steady_clock::now();
    MeasureRequest base = baseRequest(o, n);
    MeasureReply nccl = worker.measure(base);
    if (!nccl.ok && rank0)
      prog.log(fmt::format("tuner: size {}: NCCL failed: {}", formatSize(n),
                           nccl.reason));
    size_t total = 0;
    for (const auto &sp : m.spaces)
      total += sp.points().size();
    prog.start(std::min(total, total <= o.exhaustiveLimit ? total : total),
               fmt::format("tune {}", formatSize(n)));
    std::map<std::pair<int, std::vector<int>>, double> eagerOf;
    Evaluate eval = [&](const SearchPoint &p) -> std::optional<double> {
      KernelConfig cfg = m.spaces[p.kernel].config(p.idx);
      std::string label =
          fmt::format("{} {}", m.kernels[p.kernel].name, cfg.brief());
      const CompiledCandidate *cc = m.find(p.kernel, cfg);
      std::string why;
      std::optional<double> result;
      if (!cc)
        why = "not compiled (not in the manifest)";
      else if (!cc->ok)
        why = cc->reason;
      else {
        MeasureRequest r = base;
        r.cubin = absDir + "/" + cc->cubin;
        r.maxCtas = cfg.maxCtas;
        MeasureReply rep = worker.measure(r);
        if (rep.ok) {
          result = o.objective == "graph" ? rep.graphUs : rep.eagerUs;
          eagerOf[{p.kernel, p.idx}] = rep.eagerUs;
          label += fmt::format(": {:.2f} us", *result);
        } else {
          why = rep.reason + (rep.fatal ? " (worker restarted)" : "");
        }
      }
      if (!result) {
        ++s.skipped;
        if (rank0)
          prog.log(fmt::format("tuner: size {}: skip {}: {}", formatSize(n),
                               label, why));
      }
      prog.step(label);
      return result;
    };
    SearchOptions so;
    so.exhaustiveLimit = o.exhaustiveLimit;
    so.outOfBudget = [&] {
      return o.budgetS > 0 &&
             std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                           t0)
                     .count() > o.budgetS;
    };
    SearchResult res = search(m.spaces, eval, so);
    prog.finish();
    s.evaluated = res.evaluated;
    s.total = res.totalPoints;
    s.exhaustive = res.exhaustive;
    s.budgetHit = res.budgetHit;
    s.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
    if (!res.best) {
      s.error = "no candidate worked";
      summary.push_back(s);
      continue;
    }
    rt::TuningValue v;
    v.pick = choiceOf(m, *res.best, res.bestUs,
                      eagerOf[{res.best->kernel, res.best->idx}]);
    for (size_t k = 0; k < m.kernels.size(); ++k)
      if (res.bestPerKernel[k])
        v.perKernel.push_back(
            choiceOf(m, *res.bestPerKernel[k], res.bestUsPerKernel[k],
                     eagerOf[{res.bestPerKernel[k]->kernel,
                              res.bestPerKernel[k]->idx}]));
    v.ncclUs = nccl.ok ? (o.objective == "graph" ? nccl.graphUs : nccl.eagerUs)
                       : 0;
    v.ncclEagerUs = nccl.ok ? nccl.eagerUs : 0;
    v.size = n;
    v.date = rt::isoDateNow();
    v.candidates = absDir;
    if (rank0)
      cache.store({{key, v}});
    s.value = v;
    summary.push_back(s);
  }
  worker.stop();
  if (!rank0)
    return 0;
  std::vector<std::vector<std::string>> table = {
      {"size", "dtype", "nccl us", "pick", "config", "us", "speedup",
       "searched", "skipped", "time s"}};
  int failures = 0;
  for (const SizeSummary &s : summary) {
    if (!s.value) {
      ++failures;
      table.push_back({formatSize(s.n), m.dtype, "-", "FAILED: " + s.error,
                       "-", "-", "-",
                       fmt::format("{}/{}", s.evaluated, s.total),
                       std::to_string(s.skipped),
                       fmt::format("{:.1f}", s.seconds)});
      continue;
    }
    const rt::TuningValue &v = *s.value;
    table.push_back(
        {formatSize(s.n), m.dtype,
         v.ncclUs > 0 ? fmt::format("{:.2f}", v.ncclUs) : "-", v.pick.kernel,
         v.pick.config.brief(), fmt::format("{:.2f}", v.pick.us),
         v.ncclUs > 0 && v.pick.us > 0
             ? fmt::format("{:.2f}x", v.ncclUs / v.pick.us)
             : "-",
         s.cached ? "cached"
                  : fmt::format("{}/{}{}{}", s.evaluated, s.total,
                                s.exhaustive ? " all" : " pattern",
                                s.budgetHit ? " (budget)" : ""),
         s.cached ? "-" : std::to_string(s.skipped),
         s.cached ? "-" : fmt::format("{:.1f}", s.seconds)});
  }
  std::printf("%s", renderTable(table).c_str());
  std::printf("tuner: times are %s medians per call; cache %s\n",
              o.objective == "graph" ? "CUDA-graph replay" : "back-to-back",
              cache.path().c_str());
  return failures ? 1 : 0;
}

/// The cache record nearest to bucket `b` for this manifest and device.
std::optional<rt::TuningRecord>
nearestRecord(const std::vector<rt::TuningRecord> &all, const Manifest &m,
              const DeviceInfo &di, int b) {
  std::optional<rt::TuningRecord> best;
  for (const rt::TuningRecord &r : all) {
    const rt::TuningKey &k = r.key;
    if (k.collective != m.collective || k.kernel != m.set ||
        k.device != di.device || k.driver != di.driver ||
        k.worldSize != m.worldSize || k.dtype != m.dtype)
      continue;
    if (!best || std::abs(k.bucket - b) < std::abs(best->key.bucket - b))
      best = r;
  }
  return best;
}

int doBench(const Options &o, const Manifest &m) {
  bool rank0 = isRankZero();
  Progress prog(rank0 && !o.quiet && isatty(2));
  WorkerClient worker(workerOptions(o, m));
  DeviceInfo di = jobDevices(worker, m);
  rt::TuningCache cache(o.cacheDir);
  std::vector<rt::TuningRecord> all = cache.load();
  std::string absDir = absPath(m.dir);
  size_t elem = rt::dtypeSize(*rt::parseDType(m.dtype));
  std::vector<BenchRow> rows;
  prog.start(o.sizes.size() * (m.kernels.size() + 2), "bench");
  int failures = 0;
  for (int64_t n : o.sizes) {
    auto rec = nearestRecord(all, m, di, rt::sizeBucket(n));
    auto emit = [&](const std::string &impl, const std::string &config,
                    const MeasureReply &r, const std::string &note) {
      for (const char *mode : {"eager", "graph"}) {
        BenchRow b;
        b.collective = m.collective;
        b.world = m.worldSize;
        b.n = n;
        b.dtype = m.dtype;
        b.impl = impl;
        b.config = config;
        b.mode = mode;
        b.us = std::string(mode) == "graph" ? r.graphUs : r.eagerUs;
        b.busGBs = busBandwidthGBs(m.collective, n, elem, m.worldSize, b.us);
        b.ok = r.ok;
        b.note = r.ok ? note : r.reason;
        rows.push_back(b);
      }
      if (!r.ok) {
        ++failures;
        prog.log(fmt::format("bench: size {}: {} failed: {}", formatSize(n),
                             impl, r.reason));
      }
    };
    MeasureRequest base = baseRequest(o, n);
    emit("nccl", "", worker.measure(base), "");
    prog.step(formatSize(n) + " nccl");
    std::map<std::string, std::pair<std::string, MeasureReply>> byCubinCfg;
    auto measureChoice = [&](int k, const KernelConfig &cfg) {
      const CompiledCandidate *cc = m.find(k, cfg);
      if (!cc || !cc->ok) {
        MeasureReply r;
        r.reason = cc ? cc->reason : "config not compiled";
        return r;
      }
      std::string id = cc->cubin + "|" + std::to_string(cfg.maxCtas);
      auto it = byCubinCfg.find(id);
      if (it != byCubinCfg.end())
        return it->second.second;
      MeasureRequest r = base;
      r.cubin = absDir + "/" + cc->cubin;
      r.maxCtas = cfg.maxCtas;
      MeasureReply rep = worker.measure(r);
      byCubinCfg[id] = {cfg.brief(), rep};
      return rep;
    };
    std::string note =
        rec ? (rec->key.bucket == rt::sizeBucket(n)
                   ? "tuned"
                   : fmt::format("tuned at {}", formatSize(rec->value.size)))
            : "default config (not tuned)";
    for (size_t k = 0; k < m.kernels.size(); ++k) {
      KernelConfig cfg =
          m.spaces[k].config(m.spaces[k].defaultPoint());
      std::string kn = note;
      if (rec) {
        bool found = false;
        for (const rt::KernelChoice &c : rec->value.perKernel)
          if (c.kernel == m.kernels[k].name) {
            cfg = c.config;
            found = true;
          }
        if (!found)
          kn = "default config (no tuned config of this kernel)";
      }
      emit(m.kernels[k].name, cfg.brief(),
           measureChoice(static_cast<int>(k), cfg), kn);
      prog.step(formatSize(n) + " " + m.kernels[k].name);
    }
    if (rec) {
      int k = -1;
      for (size_t i = 0; i < m.kernels.size(); ++i)
        if (m.kernels[i].name == rec->value.pick.kernel)
          k = static_cast<int>(i);
      if (k >= 0)
        emit("pick", rec->value.pick.kernel + " " +
                         rec->value.pick.config.brief(),
             measureChoice(k, rec->value.pick.config), note);
    }
    prog.step(formatSize(n) + " pick");
  }
  prog.finish();
  worker.stop();
  if (!rank0)
    return 0;
  std::string csv = csvHeader() + "\n";
  for (const BenchRow &r : rows)
    csv += csvLine(r) + "\n";
  if (!o.csv.empty()) {
    std::ofstream out(o.csv);
    out << csv;
    if (!out)
      rt::raise(rt::ErrorCode::Io, "cannot write " + o.csv);
  }
  std::printf("%s %s on %dx %s (%s), %s process(es), results checked\n",
              m.collective.c_str(), m.dtype.c_str(), m.worldSize,
              di.device.c_str(), di.driver.c_str(),
              di.numLocal == di.worldSize ? "one" : "one per GPU,");
  for (const char *mode : {"graph", "eager"}) {
    std::printf("\n%s (median us per call):\n", mode);
    std::printf("%s", benchTable(rows, mode).c_str());
  }
  std::printf("\nconfigs: ");
  std::map<std::string, std::string> seen;
  for (const BenchRow &r : rows)
    if (r.mode == "graph" && !r.config.empty())
      std::printf("%s%s %s=%s", seen.empty() ? "" : "; ",
                  formatSize(r.n).c_str(), r.impl.c_str(), r.config.c_str()),
          seen[r.impl] = r.config;
  std::printf("\n");
  if (!o.csv.empty())
    std::printf("bench: CSV in %s (plot: scripts/plot-bench.py %s)\n",
                o.csv.c_str(), o.csv.c_str());
  return failures ? 1 : 0;
}


} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "__worker")
    return workerMain(argc, argv);
  std::signal(SIGPIPE, SIG_IGN);
  Options o = parseArgs(argc, argv);
  rt::Communicator::applySafeEnvironment();
  try {
    if (o.mode == "compile") {
      Progress prog(!o.quiet && isatty(2));
      doCompile(o, o.out, prog);
      return 0;
    }
    if (o.launch > 0 && !rt::readProcessEnv())
      return run::launchJob("tuner", o.launch, argc, argv);
    if (o.mode == "run")
      return doRun(o, loadManifest(o.candidates));
    if (o.mode == "bench")
      return doBench(o, loadManifest(o.candidates));
    // One shot: compile (once per rank process: rank 0 compiles, the others
    // wait for its manifest), then run.
    std::string name = o.kernels.front();
    for (char &c : name)
      if (c == '/' || c == ':')
        c = '_';
    std::string dir = o.out.empty()
                          ? rt::TuningCache(o.cacheDir).dir() + "/candidates/" +
                                name + "-" + o.dtype + "-w" +
                                std::to_string(o.worldSize)
                          : o.out;
    if (isRankZero()) {
      Progress prog(!o.quiet && isatty(2));
      doCompile(o, dir, prog);
    } else {
      for (int i = 0;
           i < 600 && access(contract::manifestFile(dir).c_str(), R_OK); ++i)
        sleep(1);
    }
    return doRun(o, loadManifest(dir));
  } catch (const rt::Error &e) {
    std::fprintf(stderr, "tuner: error (%s): %s\n",
                 rt::errorCodeName(e.code()), e.what());
    return e.code() == rt::ErrorCode::NoDevice ? 77 : 1;
  }
}
