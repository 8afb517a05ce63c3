//===- Worker.cpp - The tuner's measuring child process -------------------===//
#include "tooling/tuner/Worker.h"

#include "runtime/Collectives.h"
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/Kernel.h"
#include "runtime/Metadata.h"
#include "runtime/Rendezvous.h"
#include "runtime/SymmetricHeap.h"
#include "tooling/harness/CollectiveHarness.h"
#include "tooling/harness/DslReference.h"
#include "tooling/harness/Floor.h"
#include "tooling/harness/KernelHarness.h"
#include "tooling/tuner/NcclTests.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dslc::tune {

using nlohmann::json;
using namespace dslc::rt;

//===----------------------------------------------------------------------===//
// Worker (the child's side)
//===----------------------------------------------------------------------===//

namespace {

struct WorkerState {
  std::unique_ptr<Communicator> comm;
  /// nullopt: kernels checked against `referenceCubin`.
  std::optional<run::Collective> collective = run::Collective::AllReduce;
  std::string referenceCubin;
  std::unique_ptr<run::DslReference> reference;
  DType dtype = DType::BFloat16;
  int64_t kernelTimeoutMs = 2000;
  // The candidate now loaded (destroyed in reverse order).
  std::unique_ptr<SymmetricHeap> heap;
  std::unique_ptr<Kernel> kernel;
  std::unique_ptr<run::CollectiveHarness> harness;
  std::unique_ptr<run::KernelHarness> kernelHarness;
  std::string cubin, problem;
  int64_t maxCtas = -1, maxN = 0;
  run::HarnessLayout layout;
  /// NCCL's TUNING log (WorkerOptions::ncclLog): the file and how much of
  /// it has been read.
  std::string ncclLogPath;
  std::streamoff ncclLogRead = 0;
  float *agreeBuf = nullptr; ///< multi-process: 4 floats on the device
  /// The first local GPU's memory roof (read at the first measurement).
  std::optional<run::MemoryRoof> roof;

  void unload() {
    kernelHarness.reset();
    harness.reset();
    problem.clear();
    kernel.reset();
    cubin.clear();
    maxCtas = -1;
    maxN = 0;
    layout = {};
  }
};

FILE *replyStream = nullptr;

void sendReply(const json &j) {
  std::string s = j.dump() + "\n";
  std::fwrite(s.data(), 1, s.size(), replyStream);
  std::fflush(replyStream);
}

std::unique_ptr<Kernel> loadCandidate(Communicator &comm,
                                      const std::string &cubin, int64_t maxCtas,
                                      int64_t timeoutMs) {
  std::vector<std::string> images;
  std::vector<KernelMetadata> mds;
  for (int i = 0; i < comm.numLocal(); ++i) {
    std::string path = expandRankPattern(cubin, comm.local(i).rank);
    images.push_back(readFile(path));
    KernelMetadata md = loadMetadataFile(path + ".json");
    // The grid cap: the runtime launches at most max_ctas CTAs (every
    // kernel loops over its tiles, so any grid is correct).
    if (maxCtas > 0)
      md.maxCtas = md.maxCtas ? std::min(*md.maxCtas, maxCtas) : maxCtas;
    mds.push_back(std::move(md));
  }
  KernelOptions ko;
  ko.timeoutMs = timeoutMs;
  return Kernel::loadImages(comm, images, mds, ko);
}

/// Multi-process: rank 0's times and any rank's failure, on every rank.
void agree(WorkerState &s, json &reply) {
  Communicator &comm = *s.comm;
  if (comm.singleProcess())
    return;
  const LocalRank &l = comm.local(0);
  setDevice(l.device, l.rank);
  if (!s.agreeBuf)
    DSLC_CUDART(l.rank, cudaMalloc(&s.agreeBuf, 8 * sizeof(float)));
  bool mine0 = l.rank == 0;
  float v[6] = {
      reply.value("ok", false) ? 0.0f : 1.0f,
      mine0 ? static_cast<float>(reply.value("eager_us", 0.0)) : 0,
      mine0 ? static_cast<float>(reply.value("graph_us", 0.0)) : 0,
      mine0 ? static_cast<float>(reply.value("eager_min_us", 0.0)) : 0,
      mine0 ? static_cast<float>(reply.value("graph_min_us", 0.0)) : 0,
      0};
  DSLC_CUDART(l.rank,
              cudaMemcpy(s.agreeBuf, v, sizeof v, cudaMemcpyHostToDevice));
  DSLC_NCCL(l.rank, ncclAllReduce(s.agreeBuf, s.agreeBuf, 6, ncclFloat32,
                                  ncclMax, l.comm, l.stream));
  comm.waitStreams("tuner: agreeing on a measurement");
  DSLC_CUDART(l.rank,
              cudaMemcpy(v, s.agreeBuf, sizeof v, cudaMemcpyDeviceToHost));
  if (v[0] > 0 && reply.value("ok", false)) {
    reply["ok"] = false;
    reply["reason"] = "failed on another rank";
  }
  reply["eager_us"] = v[1];
  reply["graph_us"] = v[2];
  reply["eager_min_us"] = v[3];
  reply["graph_min_us"] = v[4];
}

/// NCCL's log lines written since the last call.
std::vector<std::string> newNcclLogLines(WorkerState &s) {
  std::vector<std::string> lines;
  if (s.ncclLogPath.empty())
    return lines;
  std::ifstream in(s.ncclLogPath);
  if (!in)
    return lines;
  in.seekg(s.ncclLogRead);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof())
      break; // a partial line: read it next time
    lines.push_back(line);
    s.ncclLogRead = in.tellg();
  }
  return lines;
}

/// The request's call counts; warm-up first (module load, graph
/// instantiation, NCCL's first-call setup), then the measured run.
std::pair<run::RunOptions, run::RunOptions> runOptions(const json &req) {
  run::RunOptions o;
  o.iters = req.value("iters", 20);
  o.graphReplays = req.value("graph_replays", 20);
  // All replays of a sample in one graph: a short kernel is then timed on
  // the GPU, not at the host's graph-launch rate (which is what one call per
  // graph measures below ~5 us).
  o.callsPerGraph = o.graphReplays;
  o.repetitions = req.value("repetitions", 5);
  o.seed = req.value("seed", 1u);
  run::RunOptions warm = o;
  int w = req.value("warmup", -1);
  warm.iters = w < 0 ? std::min(o.iters, 3) : std::min(o.iters, w);
  warm.graphReplays =
      w < 0 ? std::min(o.graphReplays, 3) : std::min(o.graphReplays, w);
  warm.repetitions = 1;
  warm.seed = o.seed + 1000;
  return {warm, o};
}

/// Whether the warm-up's time a call passes the request's cutoff_us (the
/// reply is then the warm-up's times: MeasureRequest::cutoffUs).
bool pastCutoff(const json &req, const run::TimingStats &warmEager) {
  double cutoff = req.value("cutoff_us", 0.0);
  return cutoff > 0 && warmEager.measured() && warmEager.medianUs > cutoff;
}

json timesReply(bool ok, const run::TimingStats &eager,
                const run::TimingStats &graph) {
  return json{{"ok", ok},
              {"eager_us", eager.medianUs},
              {"graph_us", graph.medianUs},
              {"eager_min_us", eager.minUs},
              {"graph_min_us", graph.minUs}};
}

/// The warm-up's times as the reply of a candidate past the cutoff (its
/// eager time for the graph one when the warm-up replayed no graph).
json cutOffReply(const run::TimingStats &eager, const run::TimingStats &graph) {
  json reply = timesReply(true, eager, graph.measured() ? graph : eager);
  reply["cut_off"] = true;
  return reply;
}

void loadKernel(WorkerState &s, const std::string &cubin, int64_t maxCtas) {
  s.kernel = loadCandidate(*s.comm, cubin, maxCtas, s.kernelTimeoutMs);
}

/// A heap with `need` bytes free (a fresh one when the last is too small).
void ensureHeap(WorkerState &s, size_t need) {
  if (!s.heap || s.heap->capacity() - s.heap->used() < need) {
    s.heap.reset();
    s.heap = std::make_unique<SymmetricHeap>(*s.comm, need * 2);
  }
}

/// The layout a request asks for: NCCL's buffers, and for --l2-cold enough
/// rotating sets to exceed twice the L2 size (from the device attribute).
run::HarnessLayout requestLayout(WorkerState &s, const json &req,
                                 const run::CollectivePlan &plan,
                                 std::string &note) {
  run::HarnessLayout layout;
  layout.ncclWindow = req.value("nccl_window", false);
  if (!req.value("l2_cold", false))
    return layout;
  const LocalRank &l = s.comm->local(0);
  size_t l2 = run::l2Bytes(l);
  size_t set = 0;
  for (int arg : {plan.input, plan.output})
    set += (plan.args[arg].bytes + 255) / 256 * 256;
  layout.rotatingSets = run::l2ColdSets(set, l2);
  size_t total = set * layout.rotatingSets;
  note = fmt::format("l2-cold: {} sets of {} B", layout.rotatingSets, set);
  if (total < 2 * l2)
    note += fmt::format(" = {} B, under twice L2 ({} B): partly cold", total,
                        2 * l2);
  return layout;
}

json measureCollective(WorkerState &s, const json &req) {
  Communicator &comm = *s.comm;
  std::string cubin = req.value("cubin", "");
  int64_t maxCtas = req.value("max_ctas", int64_t(0));
  int64_t n = req.at("n").get<int64_t>();
  int64_t maxN = std::max(n, req.value("max_n", n));
  bool inPlace = req.value("in_place", false);
  if (inPlace && !cubin.empty())
    return json{{"ok", false},
                {"reason", "in place is measured for NCCL only (a kernel's "
                           "binding has separate input and output)"}};
  std::string note;
  run::CollectivePlan plan;
  if (cubin.empty()) {
    plan = run::CollectiveHarness::ncclPlan(*s.collective, s.dtype,
                                            comm.worldSize(), maxN, {});
  } else if (s.cubin == cubin && s.maxCtas == maxCtas && s.kernel) {
    plan = run::planCollective(s.kernel->metadata(0), *s.collective,
                               comm.worldSize(), maxN);
  } else {
    s.unload();
    loadKernel(s, cubin, maxCtas);
    plan = run::planCollective(s.kernel->metadata(0), *s.collective,
                               comm.worldSize(), maxN);
  }
  run::HarnessLayout layout = requestLayout(s, req, plan, note);
  // A kernel instance is reused for the same size only: per-CTA state (LL
  // epochs) must see the same grid on every launch, and the grid follows N.
  bool same = s.harness && s.cubin == cubin && s.maxCtas == maxCtas &&
              s.maxN == maxN && maxN == n &&
              s.layout.ncclWindow == layout.ncclWindow &&
              s.layout.rotatingSets == layout.rotatingSets;
  if (!same) {
    s.harness.reset();
    if (cubin.empty()) {
      s.unload();
      ensureHeap(s, run::CollectiveHarness::heapBytes(
                        run::CollectiveHarness::ncclPlan(*s.collective, s.dtype,
                                                         comm.worldSize(), maxN,
                                                         layout),
                        layout));
      s.harness = std::make_unique<run::CollectiveHarness>(
          comm, *s.collective, s.dtype, maxN, s.heap.get(), layout);
    } else {
      ensureHeap(s, run::CollectiveHarness::heapBytes(plan, layout));
      s.harness = std::make_unique<run::CollectiveHarness>(
          comm, *s.kernel, *s.collective, maxN, s.heap.get(), layout);
    }
    s.cubin = cubin;
    s.maxCtas = maxCtas;
    s.maxN = maxN;
    s.layout = layout;
  }
  auto [warm, o] = runOptions(req);
  if (layout.rotatingSets > 1)
    o.graphs = o.repetitions; // each sample replays the next sets' graph
  auto runOnce = [&](const run::RunOptions &ro) {
    if (!cubin.empty())
      return s.harness->run(n, ro);
    return inPlace ? s.harness->runNcclInPlace(n, ro)
                   : s.harness->runNccl(n, ro);
  };
  (void)newNcclLogLines(s); // skip what the set-up logged
  run::CollectiveResult r;
  if (warm.iters > 0 || warm.graphReplays > 0)
    r = runOnce(warm);
  bool cut = r.ok() && pastCutoff(req, r.eager);
  if (r.ok() && !cut)
    r = runOnce(o);
  json reply = cut ? cutOffReply(r.eager, r.graph)
                   : timesReply(r.ok(), r.eager, r.graph);
  reply["mismatches"] = r.mismatches;
  reply["sets"] = layout.rotatingSets;
  if (!note.empty())
    reply["note"] = note;
  if (cubin.empty() && !s.ncclLogPath.empty()) {
    // NCCL logs count * element size: N for all-reduce, N / world (the
    // per-rank count) for reduce-scatter and all-gather.
    std::string coll = run::collectiveName(*s.collective);
    int64_t count = ncclTestsCount(coll, n, comm.worldSize());
    reply["nccl_kernel"] =
        ncclKernelsFor(newNcclLogLines(s), ncclFuncName(coll),
                       count * static_cast<int64_t>(dtypeSize(s.dtype)));
  }
  if (!r.error.empty())
    reply["reason"] = r.error;
  else if (r.mismatches)
    reply["reason"] = fmt::format("wrong result: {} mismatches; first: {}",
                                  r.mismatches, r.firstMismatch);
  return reply;
}

/// A kernel checked against the worker's reference on the request's
/// problem (shapes and scalars).
json measureKernel(WorkerState &s, const json &req) {
  Communicator &comm = *s.comm;
  std::string cubin = req.value("cubin", "");
  int64_t maxCtas = req.value("max_ctas", int64_t(0));
  if (cubin.empty())
    return json{{"ok", false},
                {"reason", "no collective: there is no NCCL baseline"}};
  run::ProblemSpec spec;
  spec.shapes = req.value("shapes", decltype(spec.shapes){});
  spec.scalars = req.value("scalars", decltype(spec.scalars){});
  if (!s.reference)
    s.reference = std::make_unique<run::DslReference>(
        comm, Kernel::load(comm, s.referenceCubin), s.referenceCubin);
  bool same = s.kernelHarness && s.cubin == cubin && s.maxCtas == maxCtas &&
              s.problem == spec.text();
  if (!same) {
    s.unload();
    loadKernel(s, cubin, maxCtas);
    run::KernelPlan plan =
        run::planKernel(s.kernel->metadata(0), comm.worldSize(), spec);
    ensureHeap(s, plan.heapBytes());
    s.kernelHarness = std::make_unique<run::KernelHarness>(
        comm, *s.kernel, std::move(plan), s.heap.get());
    s.cubin = cubin;
    s.maxCtas = maxCtas;
    s.problem = spec.text();
  }
  auto [warm, o] = runOptions(req);
  if (req.value("l2_cold", false))
    warm.flushBytes = o.flushBytes = run::l2FlushBytes(comm.local(0));
  run::KernelResult r = s.kernelHarness->run(warm, s.reference.get());
  bool cut = r.ok() && pastCutoff(req, r.eager);
  if (r.ok() && !cut)
    r = s.kernelHarness->run(o, s.reference.get());
  json reply = cut ? cutOffReply(r.eager, r.graph)
                   : timesReply(r.ok(), r.eager, r.graph);
  reply["mismatches"] = r.failures;
  if (o.flushBytes)
    reply["note"] = fmt::format(
        "l2-cold: each eager call after a {} B write{}", o.flushBytes,
        r.eager.retaken ? fmt::format(" ({} samples retaken behind {}x: the "
                                      "host outlasted the flush)",
                                      r.eager.retaken, r.eager.flushRepeat)
                        : "");
  if (!r.ok())
    reply["reason"] = "wrong result: " + r.firstFailure;
  return reply;
}

/// Bytes one rank's call moves at least: a collective's input and output
/// of N elements in total (all-gather's input and reduce-scatter's output
/// are N / world), any other kernel's outputs (run::outputBytes).
size_t callBytes(WorkerState &s, const json &req) {
  if (!s.collective)
    return s.kernelHarness ? run::outputBytes(s.kernelHarness->plan()) : 0;
  return run::collectiveCallBytes(*s.collective, req.at("n").get<int64_t>(),
                                  s.comm->worldSize(), dtypeSize(s.dtype));
}

/// A time below the physical floor is refused (ok false, the reason says
/// why): the timing did not cover the work. The ranks of a virtual world
/// share one GPU's memory.
void refuseBelowFloor(WorkerState &s, const json &req, json &reply) {
  if (!reply.value("ok", false))
    return;
  if (!s.roof)
    s.roof = run::deviceMemoryRoof(s.comm->local(0).device);
  std::string why = run::phasesBelowFloor(
      reply.value("eager_us", 0.0), reply.value("graph_us", 0.0),
      run::bytesPerGpu(*s.comm, callBytes(s, req)), *s.roof);
  if (!why.empty()) {
    reply["ok"] = false;
    reply["reason"] = why;
  }
}

json measure(WorkerState &s, const json &req) {
  json reply = s.collective ? measureCollective(s, req) : measureKernel(s, req);
  refuseBelowFloor(s, req, reply);
  return reply;
}

} // namespace

int workerMain(int argc, char **argv) {
  const char *fdText = std::getenv("DSLC_TUNER_REPLY_FD");
  int fd = fdText ? std::atoi(fdText) : 1;
  replyStream = fdopen(fd, "w");
  if (!replyStream)
    return 2;
  WorkerState s;
  std::vector<int> devices;
  int virtualWorld = 0;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    std::string v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--collective") {
      s.collective = run::parseCollective(v);
      ++i;
    } else if (a == "--reference") {
      s.referenceCubin = v;
      ++i;
    } else if (a == "--dtype") {
      if (auto d = parseDType(v))
        s.dtype = *d;
      ++i;
    } else if (a == "--nccl-log") {
      // Before NCCL reads its environment (the communicator below).
      std::string dir = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
      s.ncclLogPath = fmt::format("{}/dslc-tuner-nccl.{}.log", dir, getpid());
      setenv("NCCL_DEBUG", "INFO", 1);
      setenv("NCCL_DEBUG_SUBSYS", "TUNING", 1);
      setenv("NCCL_DEBUG_FILE", s.ncclLogPath.c_str(), 1);
    } else if (a == "--virtual-world") {
      virtualWorld = std::atoi(v.c_str());
      ++i;
    } else if (a == "--kernel-timeout-ms") {
      s.kernelTimeoutMs = std::atoll(v.c_str());
      ++i;
    } else if (a == "--devices") {
      size_t pos = 0;
      while (pos < v.size()) {
        size_t c = v.find(',', pos);
        devices.push_back(std::atoi(v.substr(pos, c - pos).c_str()));
        if (c == std::string::npos)
          break;
        pos = c + 1;
      }
      ++i;
    }
  }
  Communicator::applySafeEnvironment();
  std::string line;
  bool fatal = false;
  while (!fatal && std::getline(std::cin, line)) {
    json req = json::parse(line, nullptr, false);
    if (req.is_discarded()) {
      sendReply({{"ok", false}, {"reason", "bad request: " + line}});
      continue;
    }
    std::string op = req.value("op", "");
    if (op == "quit") {
      sendReply({{"ok", true}});
      break;
    }
    try {
      if (!s.comm) {
        if (virtualWorld > 0)
          s.comm = Communicator::createVirtual(
              virtualWorld, devices.empty() ? 0 : devices[0]);
        else if (readProcessEnv())
          s.comm = Communicator::createFromEnv(
              std::getenv("DSLC_RENDEZVOUS") ? std::getenv("DSLC_RENDEZVOUS")
                                             : "");
        else
          s.comm = Communicator::createAll(devices);
      }
      if (op == "info") {
        const LocalRank &l = s.comm->local(0);
        cudaDeviceProp prop{};
        DSLC_CUDART(l.rank, cudaGetDeviceProperties(&prop, l.device));
        int drv = 0, rtv = 0;
        DSLC_CUDART(l.rank, cudaDriverGetVersion(&drv));
        DSLC_CUDART(l.rank, cudaRuntimeGetVersion(&rtv));
        sendReply({{"ok", true},
                   {"device",
                    contract::tuningDeviceName(prop.name, s.comm->isVirtual())},
                   {"driver", cudaVersionString(drv, rtv)},
                   {"world_size", s.comm->worldSize()},
                   {"num_local", s.comm->numLocal()},
                   {"rank", l.rank},
                   {"multiprocessors", prop.multiProcessorCount}});
      } else if (op == "measure") {
        json reply = measure(s, req);
        agree(s, reply);
        sendReply(reply);
      } else {
        sendReply({{"ok", false}, {"reason", "unknown op '" + op + "'"}});
      }
    } catch (const Error &e) {
      // Argument problems leave the GPUs usable in one process; anything
      // else (a trapped kernel, a CUDA or NCCL error, a timeout) may not,
      // and with one process per GPU the peers cannot tell: exit.
      bool soft =
          s.comm && s.comm->singleProcess() &&
          (e.code() == ErrorCode::InvalidArgument ||
           e.code() == ErrorCode::Metadata || e.code() == ErrorCode::Io);
      fatal = !soft;
      if (fatal && s.comm)
        s.comm->markFailed();
      sendReply({{"ok", false},
                 {"fatal", fatal},
                 {"code", static_cast<int>(e.code())},
                 {"reason",
                  fmt::format("{} ({})", e.what(), errorCodeName(e.code()))}});
      if (soft)
        s.unload();
    } catch (const std::exception &e) {
      fatal = true;
      sendReply({{"ok", false},
                 {"fatal", true},
                 {"code", 10},
                 {"reason", fmt::format("internal error: {}", e.what())}});
    }
  }
  std::fflush(replyStream);
  if (!s.ncclLogPath.empty())
    std::remove(s.ncclLogPath.c_str());
  if (fatal) // a poisoned context: no teardown
    _exit(3);
  try {
    s.unload();
    s.reference.reset();
    s.heap.reset();
    if (s.agreeBuf)
      (void)cudaFree(s.agreeBuf);
    s.comm.reset();
  } catch (...) {
  }
  return 0;
}

} // namespace dslc::tune
