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
// Client (the tuner's side)
//===----------------------------------------------------------------------===//

WorkerClient::~WorkerClient() { stop(); }

void WorkerClient::kill() {
  callerUp_ = false;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int st = 0;
    waitpid(pid_, &st, 0);
  }
  pid_ = -1;
  if (toWorker_ >= 0)
    close(toWorker_);
  if (fromWorker_ >= 0)
    close(fromWorker_);
  toWorker_ = fromWorker_ = -1;
  buffered_.clear();
}

void WorkerClient::stop() {
  if (!running())
    return;
  std::string reply, why;
  (void)roundTrip("{\"op\":\"quit\"}", reply, why, 20);
  if (pid_ > 0) {
    // Give it a moment to tear down NCCL, then make sure it is gone.
    for (int i = 0; i < 100; ++i) {
      int st = 0;
      if (waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      usleep(50 * 1000);
    }
  }
  kill();
}

bool WorkerClient::start(std::string &why) {
  if (caller()) {
    // The caller measures in its own process: a fault that ended its GPU
    // context (or its exit) cannot be undone by a restart.
    if (callerUsed_) {
      why = "the measuring process (the tuner's caller) is gone, or a "
            "candidate's fault ended its GPU context; it cannot be restarted";
      return false;
    }
    toWorker_ = opts_.callerOut;
    fromWorker_ = opts_.callerIn;
    callerUp_ = callerUsed_ = true;
    buffered_.clear();
    return true;
  }
  int req[2], rep[2];
  if (pipe2(req, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0) {
    why = fmt::format("pipe: {}", std::strerror(errno));
    return false;
  }
  std::vector<std::string> args = {"tuner",
                                   "__worker",
                                   "--collective",
                                   opts_.collective,
                                   "--dtype",
                                   opts_.dtype,
                                   "--kernel-timeout-ms",
                                   std::to_string(opts_.kernelTimeoutMs),
                                   "--reference",
                                   opts_.referenceCubin};
  if (opts_.ncclLog)
    args.push_back("--nccl-log");
  if (opts_.virtualWorld > 0) {
    args.push_back("--virtual-world");
    args.push_back(std::to_string(opts_.virtualWorld));
  }
  if (!opts_.devices.empty()) {
    std::string d;
    for (size_t i = 0; i < opts_.devices.size(); ++i)
      d += (i ? "," : "") + std::to_string(opts_.devices[i]);
    args.push_back("--devices");
    args.push_back(d);
  }
  std::string rdv;
  if (readProcessEnv()) {
    std::string base = opts_.rendezvousBase.empty()
                           ? defaultRendezvousPath() + ".tuner"
                           : opts_.rendezvousBase;
    rdv = fmt::format("{}.w{}", base, generation_);
  }
  ++generation_;
  pid_t pid = fork();
  if (pid < 0) {
    why = fmt::format("fork: {}", std::strerror(errno));
    return false;
  }
  if (pid == 0) {
    dup2(req[0], 0);
    int fd = dup(rep[1]);
    setenv("DSLC_TUNER_REPLY_FD", std::to_string(fd).c_str(), 1);
    if (!rdv.empty())
      setenv("DSLC_RENDEZVOUS", rdv.c_str(), 1);
    std::vector<char *> cargs;
    for (auto &s : args)
      cargs.push_back(const_cast<char *>(s.c_str()));
    cargs.push_back(nullptr);
    // $DSLC_TUNER_WORKER replaces the worker (tests: a scripted one).
    const char *exe = std::getenv("DSLC_TUNER_WORKER");
    execv(exe && *exe ? exe : "/proc/self/exe", cargs.data());
    std::perror("tuner: exec worker");
    _exit(127);
  }
  close(req[0]);
  close(rep[1]);
  pid_ = pid;
  toWorker_ = req[1];
  fromWorker_ = rep[0];
  buffered_.clear();
  return true;
}

bool WorkerClient::roundTrip(const std::string &request, std::string &reply,
                             std::string &why, double timeoutS) {
  std::string line = request + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = write(toWorker_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      why = "the worker is gone (write failed)";
      kill();
      return false;
    }
    done += static_cast<size_t>(n);
  }
  auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(timeoutS * 1000));
  while (true) {
    size_t nl = buffered_.find('\n');
    if (nl != std::string::npos) {
      reply = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return true;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      why = fmt::format("no answer within {:.0f} s (hung?); worker killed",
                        timeoutS);
      kill();
      return false;
    }
    pollfd p{fromWorker_, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      continue;
    char buf[4096];
    ssize_t n = read(fromWorker_, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0 && caller()) {
      why = "the measuring process (the tuner's caller) closed its pipe";
      kill();
      return false;
    }
    if (n <= 0) {
      int st = 0;
      waitpid(pid_, &st, 0);
      pid_ = -1;
      why = WIFSIGNALED(st)
                ? fmt::format("the worker died (signal {})", WTERMSIG(st))
                : fmt::format("the worker exited (status {})",
                              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      kill();
      return false;
    }
    buffered_.append(buf, static_cast<size_t>(n));
  }
}

DeviceInfo WorkerClient::info() {
  std::string why, reply;
  if (!running() && !start(why))
    raise(ErrorCode::Internal, "tuner: cannot start a worker: " + why);
  if (!roundTrip("{\"op\":\"info\"}", reply, why, opts_.requestTimeoutS))
    raise(ErrorCode::Internal, "tuner: worker: " + why);
  json j = json::parse(reply, nullptr, false);
  if (j.is_discarded())
    raise(ErrorCode::Internal, "tuner: worker: bad reply: " + reply);
  if (!j.value("ok", false)) {
    kill();
    raise(static_cast<ErrorCode>(j.value("code", 10)),
          j.value("reason", std::string("worker failed")));
  }
  DeviceInfo d;
  d.device = j.value("device", "");
  d.driver = j.value("driver", "");
  d.worldSize = j.value("world_size", 0);
  d.numLocal = j.value("num_local", 0);
  d.rank = j.value("rank", 0);
  return d;
}

MeasureReply WorkerClient::measure(const MeasureRequest &req) {
  MeasureReply out;
  std::string why, reply;
  if (!running()) {
    if (!start(why)) {
      out.fatal = true;
      out.reason = why;
      return out;
    }
    ++restarts_;
    // A fresh worker must come up (communicator) before it can measure.
    if (!roundTrip("{\"op\":\"info\"}", reply, why, opts_.requestTimeoutS)) {
      out.fatal = true;
      out.reason = "worker restart failed: " + why;
      return out;
    }
  }
  json r{{"op", "measure"},
         {"cubin", req.cubin},
         {"max_ctas", req.maxCtas},
         {"n", req.n},
         {"max_n", std::max(req.n, req.maxN)},
         {"iters", req.iters},
         {"graph_replays", req.graphReplays},
         {"repetitions", req.repetitions},
         {"seed", req.seed},
         {"nccl_window", req.ncclWindow},
         {"in_place", req.inPlace},
         {"l2_cold", req.l2Cold},
         {"warmup", req.warmup},
         {"cutoff_us", req.cutoffUs}};
  if (!req.shapes.empty() || !req.scalars.empty()) {
    r["shapes"] = req.shapes;
    r["scalars"] = req.scalars;
  }
  if (!roundTrip(r.dump(), reply, why, opts_.requestTimeoutS)) {
    out.fatal = true;
    out.reason = why;
    return out;
  }
  json j = json::parse(reply, nullptr, false);
  if (j.is_discarded()) {
    out.fatal = true;
    out.reason = "bad reply from the worker: " + reply;
    kill();
    return out;
  }
  out.ok = j.value("ok", false);
  out.fatal = j.value("fatal", false);
  out.reason = j.value("reason", "");
  out.eagerUs = j.value("eager_us", 0.0);
  out.graphUs = j.value("graph_us", 0.0);
  out.eagerMinUs = j.value("eager_min_us", 0.0);
  out.graphMinUs = j.value("graph_min_us", 0.0);
  out.mismatches = j.value("mismatches", int64_t(0));
  out.ncclKernel = j.value("nccl_kernel", "");
  out.sets = j.value("sets", 1);
  out.note = j.value("note", "");
  out.cutOff = j.value("cut_off", false);
  if (out.fatal) {
    // It exits after a fatal reply; reap it.
    int st = 0;
    for (int i = 0; i < 200 && pid_ > 0; ++i) {
      if (waitpid(pid_, &st, WNOHANG) == pid_)
        pid_ = -1;
      else
        usleep(25 * 1000);
    }
    kill();
  }
  return out;
}

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
  int l2 = 0;
  DSLC_CUDART(l.rank,
              cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, l.device));
  size_t set = 0;
  for (int arg : {plan.input, plan.output})
    set += (plan.args[arg].bytes + 255) / 256 * 256;
  layout.rotatingSets = run::l2ColdSets(set, static_cast<size_t>(l2));
  size_t total = set * layout.rotatingSets;
  note = fmt::format("l2-cold: {} sets of {} B", layout.rotatingSets, set);
  if (total < 2 * static_cast<size_t>(l2))
    note += fmt::format(" = {} B, under twice L2 ({} B): partly cold", total,
                        2 * static_cast<size_t>(l2));
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
  run::KernelResult r = s.kernelHarness->run(warm, s.reference.get());
  bool cut = r.ok() && pastCutoff(req, r.eager);
  if (r.ok() && !cut)
    r = s.kernelHarness->run(o, s.reference.get());
  json reply = cut ? cutOffReply(r.eager, r.graph)
                   : timesReply(r.ok(), r.eager, r.graph);
  reply["mismatches"] = r.failures;
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
                   {"rank", l.rank}});
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
