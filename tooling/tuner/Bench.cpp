//===- Bench.cpp - tuner bench --------------------------------------------===//
#include "contract/AtomicFile.h"
#include "runtime/DType.h"
#include "runtime/Error.h"
#include "tooling/tuner/Session.h"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <optional>
#include <unistd.h>

namespace dslc::tune {

namespace {

/// The cache record nearest to problem `p` for this manifest and device
/// (same shape key; the nearest bucket).
std::optional<rt::TuningRecord>
nearestRecord(const std::vector<rt::TuningRecord> &all, const Manifest &m,
              const DeviceInfo &di, const Problem &p) {
  std::optional<rt::TuningRecord> best;
  for (const rt::TuningRecord &r : all) {
    const rt::TuningKey &k = r.key;
    if (k.collective != m.collective || k.kernel != m.set ||
        k.device != di.device || k.driver != di.driver ||
        k.worldSize != m.worldSize || k.dtype != m.dtype || k.shape != p.shape)
      continue;
    if (!best ||
        std::abs(k.bucket - p.bucket) < std::abs(best->key.bucket - p.bucket))
      best = r;
  }
  return best;
}

struct Bench {
  const TunerOptions &o;
  const Manifest &m;
  WorkerClient &worker;
  Progress &prog;
  std::string absDir;
  size_t elem = 2;
  std::vector<BenchRow> rows;
  int failures = 0;

  void emit(const Problem &p, const std::string &impl,
            const std::string &config, const MeasureReply &r,
            const std::string &note) {
    for (const char *mode : {"eager", "graph"}) {
      BenchRow b;
      b.collective = m.collective.empty() ? "kernel" : m.collective;
      b.world = m.worldSize;
      b.n = p.n;
      b.dtype = m.dtype;
      b.impl = impl;
      b.config = config;
      b.mode = mode;
      b.us = std::string(mode) == "graph" ? r.graphUs : r.eagerUs;
      b.busGBs = m.collective.empty() ? 0
                                      : busBandwidthGBs(m.collective, p.n, elem,
                                                        m.worldSize, b.us);
      b.ok = r.ok;
      b.note = r.ok ? note : r.reason;
      if (m.collective.empty())
        b.note = "shape " + p.label + (b.note.empty() ? "" : "; " + b.note);
      rows.push_back(b);
    }
    if (!r.ok) {
      ++failures;
      prog.log(
          fmt::format("bench: {}: {} failed: {}", p.label, impl, r.reason));
    }
  }

  /// One problem: NCCL (collectives), each kernel, the pick.
  void problem(const Problem &p, const std::optional<rt::TuningRecord> &rec) {
    MeasureRequest base = baseRequest(o, p);
    if (!m.collective.empty()) {
      emit(p, "nccl", "", worker.measure(base), "");
      prog.step(p.label + " nccl");
    }
    std::map<std::string, MeasureReply> measured;
    auto measureChoice = [&](int k, const KernelConfig &cfg) {
      const CompiledCandidate *cc = m.find(k, cfg);
      if (!cc || !cc->ok) {
        MeasureReply r;
        r.reason = cc ? cc->reason : "config not compiled";
        return r;
      }
      std::string id = cc->cubin + "|" + std::to_string(cfg.maxCtas);
      auto it = measured.find(id);
      if (it != measured.end())
        return it->second;
      MeasureRequest r = base;
      r.cubin = absDir + "/" + cc->cubin;
      r.maxCtas = cfg.maxCtas;
      return measured[id] = worker.measure(r);
    };
    std::string note =
        rec ? (rec->key.bucket == p.bucket
                   ? "tuned"
                   : fmt::format("tuned at {}", formatSize(rec->value.size)))
            : "default config (not tuned)";
    for (size_t k = 0; k < m.kernels.size(); ++k) {
      KernelConfig cfg = m.spaces[k].config(m.spaces[k].defaultPoint());
      std::string kn = note;
      bool found = false;
      if (rec)
        for (const rt::KernelChoice &c : rec->value.perKernel)
          if (c.kernel == m.kernels[k].name) {
            cfg = c.config;
            found = true;
          }
      if (rec && !found)
        kn = "default config (no tuned config of this kernel)";
      emit(p, m.kernels[k].name, cfg.brief(),
           measureChoice(static_cast<int>(k), cfg), kn);
      prog.step(p.label + " " + m.kernels[k].name);
    }
    if (rec)
      for (size_t k = 0; k < m.kernels.size(); ++k)
        if (m.kernels[k].name == rec->value.pick.kernel)
          emit(p, "pick",
               rec->value.pick.kernel + " " + rec->value.pick.config.brief(),
               measureChoice(static_cast<int>(k), rec->value.pick.config),
               note);
    prog.step(p.label + " pick");
  }
};

void printBench(const TunerOptions &o, const Manifest &m, const DeviceInfo &di,
                const std::vector<BenchRow> &rows) {
  std::printf("%s %s on %dx %s (%s), %s process(es), results checked\n",
              m.collective.empty() ? m.set.c_str() : m.collective.c_str(),
              m.dtype.c_str(), m.worldSize, di.device.c_str(),
              di.driver.c_str(),
              di.numLocal == di.worldSize ? "one" : "one per GPU,");
  for (const char *mode : {"graph", "eager"}) {
    std::printf("\n%s (median us per call):\n", mode);
    std::printf("%s", benchTable(rows, mode).c_str());
  }
  std::printf("\nconfigs: ");
  bool first = true;
  for (const BenchRow &r : rows)
    if (r.mode == "graph" && !r.config.empty()) {
      std::printf("%s%s %s=%s", first ? "" : "; ", formatSize(r.n).c_str(),
                  r.impl.c_str(), r.config.c_str());
      first = false;
    }
  std::printf("\n");
  if (!o.csv.empty())
    std::printf("bench: CSV in %s (plot: scripts/plot-bench.py %s)\n",
                o.csv.c_str(), o.csv.c_str());
}

} // namespace

int doBench(const TunerOptions &o, const Manifest &m) {
  std::vector<Problem> all = problems(o, m);
  bool rank0 = isRankZero();
  Progress prog(rank0 && !o.quiet && isatty(2));
  WorkerClient worker(workerOptions(o, m));
  DeviceInfo di = jobDevices(worker, m);
  rt::TuningCache cache(o.cacheDir);
  std::vector<rt::TuningRecord> records = cache.load();
  Bench b{o, m, worker, prog, absPath(m.dir)};
  if (auto d = rt::parseDType(m.dtype))
    b.elem = rt::dtypeSize(*d);
  prog.start(all.size() * (m.kernels.size() + 2), "bench");
  for (const Problem &p : all)
    b.problem(p, nearestRecord(records, m, di, p));
  prog.finish();
  worker.stop();
  if (!rank0)
    return 0;
  if (!o.csv.empty()) {
    std::string csv = csvHeader() + "\n";
    for (const BenchRow &r : b.rows)
      csv += csvLine(r) + "\n";
    contract::Expected<bool> ok = contract::writeFileAtomically(o.csv, csv);
    if (!ok)
      rt::raise(rt::ErrorCode::Io, ok.error());
  }
  printBench(o, m, di, b.rows);
  return b.failures ? 1 : 0;
}

} // namespace dslc::tune
