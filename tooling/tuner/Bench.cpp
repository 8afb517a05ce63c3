//===- Bench.cpp - tuner bench --------------------------------------------===//
#include "contract/AtomicFile.h"
#include "runtime/DType.h"
#include "runtime/Error.h"
#include "tooling/tuner/NcclTests.h"
#include "tooling/tuner/Session.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
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
  int procs = 1;
  size_t elem = 2;
  std::vector<BenchRow> rows;
  int failures = 0;

  void emit(const Problem &p, const std::string &impl,
            const std::string &config, const MeasureReply &r,
            const std::string &note, bool inPlace = false) {
    std::string why = r.ok ? note : r.reason;
    if (!r.note.empty())
      why += (why.empty() ? "" : "; ") + r.note;
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
      b.wrong = r.ok ? 0 : r.mismatches > 0 ? r.mismatches : -1;
      b.note = why;
      b.procs = procs;
      b.inPlace = inPlace;
      if (m.collective.empty())
        b.note = "shape " + p.label + (b.note.empty() ? "" : "; " + b.note);
      if (o.virtualWorld) // not a multi-GPU time: say so in every row
        b.note =
            fmt::format("virtual world: {} ranks on one GPU{}", o.virtualWorld,
                        b.note.empty() ? "" : "; " + b.note);
      rows.push_back(b);
    }
    if (!r.ok) {
      ++failures;
      prog.log(fmt::format("bench: {}: {}{} failed: {}", p.label, impl,
                           inPlace ? " in place" : "", r.reason));
    }
  }

  /// NCCL on the buffers `--nccl-buffers` names, out of place and in place;
  /// the kernel NCCL ran goes into the config column. Returns the first
  /// out-of-place measurement (what the runtime's NCCL dispatch runs).
  MeasureReply nccl(const Problem &p, const MeasureRequest &base) {
    std::optional<MeasureReply> first;
    for (bool window : {false, true}) {
      if (o.ncclBuffers != "both" && (o.ncclBuffers == "window") != window)
        continue;
      std::string impl = window ? "nccl_win" : "nccl";
      for (bool inPlace : {false, true}) {
        MeasureRequest r = base;
        r.ncclWindow = window;
        r.inPlace = inPlace;
        MeasureReply reply = worker.measure(r);
        emit(p, impl, reply.ncclKernel, reply, "", inPlace);
        prog.step(p.label + " " + impl + (inPlace ? " in place" : ""));
        if (!inPlace && !first)
          first = reply;
      }
    }
    return first ? *first : MeasureReply{};
  }

  /// One problem: NCCL (collectives), each kernel, the pick.
  void problem(const Problem &p, const std::optional<rt::TuningRecord> &rec) {
    MeasureRequest base = baseRequest(o, p);
    MeasureReply ncclReply;
    if (!m.collective.empty() && !o.virtualWorld)
      ncclReply = nccl(p, base);
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
    // The pick is what the runtime dispatches for this size: NCCL when it
    // was measured at least as fast as every kernel when tuned.
    if (rec && rec->value.ncclWins() && !m.collective.empty())
      emit(p, "pick",
           fmt::format("nccl (tuned: {:.2f} us vs {} {:.2f} us)",
                       rec->value.ncclUs, rec->value.pick.kernel,
                       rec->value.pick.us),
           ncclReply, note);
    else if (rec)
      for (size_t k = 0; k < m.kernels.size(); ++k)
        if (m.kernels[k].name == rec->value.pick.kernel)
          emit(p, "pick",
               rec->value.pick.kernel + " " + rec->value.pick.config.brief(),
               measureChoice(static_cast<int>(k), rec->value.pick.config),
               note);
    prog.step(p.label + " pick");
  }
};

/// nccl-tests' table of every implementation (collectives only): the
/// times of the mode -G selects, in-place columns for NCCL.
void printNcclTests(const TunerOptions &o, const Manifest &m, size_t elem,
                    const std::vector<BenchRow> &rows) {
  std::string mode = o.graphMode ? "graph" : "eager";
  std::vector<std::string> labels;
  for (const BenchRow &r : rows) {
    BenchRow outOf = r;
    outOf.inPlace = false;
    if (r.mode == mode &&
        std::find(labels.begin(), labels.end(), outOf.label()) == labels.end())
      labels.push_back(outOf.label());
  }
  for (const std::string &label : labels) {
    std::map<int64_t, NcclTestsRow> byN;
    for (const BenchRow &r : rows) {
      BenchRow outOf = r;
      outOf.inPlace = false;
      if (r.mode != mode || outOf.label() != label)
        continue;
      NcclTestsRow &t = byN[r.n];
      t.n = r.n;
      NcclTestsSide &side = r.inPlace ? t.inPlace : t.outOfPlace;
      side.measured = true;
      side.us = r.us;
      side.wrong = r.wrong;
    }
    std::vector<NcclTestsRow> table;
    for (auto &[n, t] : byN)
      table.push_back(t);
    std::printf("\n%s", ncclTestsTable(
                            label + (o.graphMode ? ", CUDA graphs" : ", eager"),
                            m.collective, m.dtype, elem, m.worldSize, table)
                            .c_str());
  }
}

void printBench(const TunerOptions &o, const Manifest &m, size_t elem,
                const std::string &what, const std::vector<BenchRow> &rows) {
  std::printf("%s %s, %s, results checked%s\n",
              m.collective.empty() ? m.set.c_str() : m.collective.c_str(),
              m.dtype.c_str(), what.c_str(), o.l2Cold ? ", L2-cold" : "");
  if (!m.collective.empty())
    printNcclTests(o, m, elem, rows);
  for (const char *mode : {"graph", "eager"}) {
    std::printf("\n%s (median us per call):\n", mode);
    std::printf("%s", benchTable(rows, mode).c_str());
  }
  std::string head = headlineTable(rows);
  if (!head.empty())
    std::printf("\nheadline (one process per GPU, CUDA graphs; NCCL: the "
                "fastest column of any buffers and process model):\n%s",
                head.c_str());
  std::printf("\nconfigs: ");
  bool first = true;
  for (const BenchRow &r : rows)
    if (r.mode == "graph" && !r.config.empty() && !r.inPlace) {
      std::printf("%s%s %s=%s", first ? "" : "; ", formatSize(r.n).c_str(),
                  r.label().c_str(), r.config.c_str());
      first = false;
    }
  std::printf("\n");
  if (!o.csv.empty())
    std::printf("bench: CSV in %s (plot: scripts/plot-bench.py %s)\n",
                o.csv.c_str(), o.csv.c_str());
}

void writeRows(const std::string &path, const std::vector<BenchRow> &rows) {
  std::string csv = csvHeader() + "\n";
  for (const BenchRow &r : rows)
    csv += csvLine(r) + "\n";
  contract::Expected<bool> ok = contract::writeFileAtomically(path, csv);
  if (!ok)
    rt::raise(rt::ErrorCode::Io, ok.error());
}

size_t elementBytes(const Manifest &m) {
  if (auto d = rt::parseDType(m.dtype))
    return rt::dtypeSize(*d);
  return 2;
}

/// Measures every problem in this process model; rank 0's rows.
struct Measured {
  std::vector<BenchRow> rows;
  int failures = 0;
  std::string what; ///< "2x NVIDIA H200 (...), one process"
};

Measured measureAll(const TunerOptions &o, const Manifest &m) {
  std::vector<Problem> all = problems(o, m);
  bool rank0 = isRankZero();
  Progress prog(rank0 && !o.quiet && isatty(2));
  WorkerOptions wo = workerOptions(o, m);
  wo.ncclLog = !m.collective.empty();
  WorkerClient worker(wo);
  DeviceInfo di = jobDevices(worker, m);
  rt::TuningCache cache(o.cacheDir);
  std::vector<rt::TuningRecord> records = cache.load();
  Bench b{o, m, worker, prog, absPath(m.dir)};
  b.procs = di.numLocal == di.worldSize ? 1 : di.worldSize;
  b.elem = elementBytes(m);
  int ncclCols = m.collective.empty() ? 0 : o.ncclBuffers == "both" ? 4 : 2;
  prog.start(all.size() * (m.kernels.size() + 1 + ncclCols), "bench");
  for (const Problem &p : all)
    b.problem(p, nearestRecord(records, m, di, p));
  prog.finish();
  worker.stop();
  Measured out;
  out.rows = std::move(b.rows);
  out.failures = b.failures;
  out.what = fmt::format("{}x {} ({}), {}", m.worldSize, di.device, di.driver,
                         b.procs == 1 ? "one process" : "one process per GPU");
  return out;
}

} // namespace

std::vector<int64_t> sweepSizes(const TunerOptions &o, const Manifest &m) {
  Expected<std::vector<int64_t>> bytes =
      byteSweep(o.minBytes, o.maxBytes, o.stepFactor);
  if (!bytes)
    rt::raise(rt::ErrorCode::InvalidArgument, bytes.error());
  std::vector<int64_t> sizes;
  std::string coll = m.collective.empty() ? "all_reduce" : m.collective;
  for (int64_t b : *bytes) {
    Expected<int64_t> n =
        elementsForBytes(coll, b, elementBytes(m), m.worldSize);
    if (!n)
      rt::raise(rt::ErrorCode::InvalidArgument,
                fmt::format("-b/-e sweep: {} ({} {} at world {})", n.error(),
                            coll, m.dtype, m.worldSize));
    if (sizes.empty() || sizes.back() != *n)
      sizes.push_back(*n);
  }
  return sizes;
}

int doBench(const TunerOptions &o, const Manifest &m) {
  Measured r = measureAll(o, m);
  if (!isRankZero())
    return 0;
  if (!o.rowsOut.empty()) { // a child of --process-models both
    writeRows(o.rowsOut, r.rows);
    return r.failures ? 1 : 0;
  }
  if (!o.csv.empty())
    writeRows(o.csv, r.rows);
  printBench(o, m, elementBytes(m), r.what, r.rows);
  return r.failures ? 1 : 0;
}

int doBenchBothModels(const TunerOptions &o, const Manifest &m,
                      const std::function<int(const std::string &)> &launch) {
  Measured one = measureAll(o, m);
  std::string rowsFile = fmt::format(
      "{}/dslc-bench-rows.{}.csv",
      std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp", getpid());
  int status = launch(rowsFile);
  std::ifstream in(rowsFile);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  std::remove(rowsFile.c_str());
  std::vector<BenchRow> rows = one.rows;
  std::vector<BenchRow> perGpu = parseCsv(text);
  if (perGpu.empty())
    std::fprintf(stderr,
                 "tuner bench: the one-process-per-GPU run wrote no rows "
                 "(status %d); only the one-process rows follow\n",
                 status);
  rows.insert(rows.end(), perGpu.begin(), perGpu.end());
  if (!o.csv.empty())
    writeRows(o.csv, rows);
  printBench(o, m, elementBytes(m), one.what + " and one per GPU", rows);
  return one.failures || status != 0 ? 1 : 0;
}

} // namespace dslc::tune
