//===- Timing.cpp - Timing kernel calls with CUDA events ------------------===//
#include "tooling/harness/Timing.h"

#include "runtime/Error.h"

#include <nccl.h>

#include <algorithm>
#include <exception>
#include <memory>

namespace dslc::run {

using namespace dslc::rt;

TimingStats makeStats(std::vector<double> samples, int calls) {
  TimingStats s;
  s.callsPerSample = calls;
  s.samplesUs = samples;
  if (samples.empty())
    return s;
  std::sort(samples.begin(), samples.end());
  size_t m = samples.size();
  s.medianUs =
      m % 2 ? samples[m / 2] : (samples[m / 2 - 1] + samples[m / 2]) / 2.0;
  s.minUs = samples.front();
  return s;
}

namespace {

/// R + 1 events on one device, destroyed on every path.
struct EventChain {
  int device = 0;
  std::vector<cudaEvent_t> events;
  EventChain(const LocalRank &l, int count) : device(l.device) {
    setDevice(l.device, l.rank);
    events.assign(count, nullptr);
    for (cudaEvent_t &e : events)
      DSLC_CUDART(l.rank, cudaEventCreate(&e));
  }
  ~EventChain() {
    (void)cudaSetDevice(device);
    for (cudaEvent_t e : events)
      if (e)
        (void)cudaEventDestroy(e);
  }
  /// Microseconds per call between consecutive events.
  std::vector<double> samples(const LocalRank &l, int calls) const {
    std::vector<double> out;
    setDevice(l.device, l.rank);
    for (size_t r = 0; r + 1 < events.size(); ++r) {
      float ms = 0;
      DSLC_CUDART(l.rank, cudaEventElapsedTime(&ms, events[r], events[r + 1]));
      out.push_back(ms * 1000.0 / calls);
    }
    return out;
  }
};

/// One captured graph per local rank, destroyed on every path.
struct GraphSet {
  Communicator &comm;
  std::vector<cudaGraph_t> graphs;
  std::vector<cudaGraphExec_t> execs;
  explicit GraphSet(Communicator &comm)
      : comm(comm), graphs(comm.numLocal(), nullptr),
        execs(comm.numLocal(), nullptr) {}
  ~GraphSet() {
    for (int i = 0; i < comm.numLocal(); ++i) {
      (void)cudaSetDevice(comm.local(i).device);
      if (execs[i])
        (void)cudaGraphExecDestroy(execs[i]);
      if (graphs[i])
        (void)cudaGraphDestroy(graphs[i]);
    }
  }
};

/// Captures `perGraph` calls on every local rank's stream at once (NCCL
/// needs the calls of one group in flight together when one thread drives
/// several GPUs) and instantiates the graphs.
void capture(Communicator &comm, GraphSet &g, int perGraph,
             const PhaseHooks &h) {
  int nl = comm.numLocal();
  for (int i = 0; i < nl; ++i) {
    const LocalRank &l = comm.local(i);
    setDevice(l.device, l.rank);
    DSLC_CUDART(l.rank,
                cudaStreamBeginCapture(l.stream, cudaStreamCaptureModeRelaxed));
  }
  std::exception_ptr failure;
  try {
    for (int k = 0; k < perGraph; ++k) {
      if (nl > 1)
        DSLC_NCCL(-1, ncclGroupStart());
      for (int i = 0; i < nl; ++i) {
        setDevice(comm.local(i).device, comm.local(i).rank);
        h.callOne(i);
      }
      if (nl > 1)
        DSLC_NCCL(-1, ncclGroupEnd());
    }
  } catch (...) {
    failure = std::current_exception();
  }
  for (int i = 0; i < nl; ++i) {
    const LocalRank &l = comm.local(i);
    setDevice(l.device, l.rank);
    cudaError_t e = cudaStreamEndCapture(l.stream, &g.graphs[i]);
    if (!failure)
      DSLC_CUDART(l.rank, e);
  }
  if (failure)
    std::rethrow_exception(failure);
  for (int i = 0; i < nl; ++i) {
    const LocalRank &l = comm.local(i);
    setDevice(l.device, l.rank);
    DSLC_CUDART(l.rank, cudaGraphInstantiate(&g.execs[i], g.graphs[i], 0));
  }
}

} // namespace

void measurePhases(Communicator &comm, const RunOptions &o, const PhaseHooks &h,
                   TimingStats &eager, TimingStats &graph) {
  const LocalRank &l0 = comm.local(0);
  int reps = o.repetitions;
  if (o.iters > 0) {
    h.prepare();
    EventChain ev(l0, reps + 1);
    for (int r = 0; r <= reps; ++r) {
      if (r > 0)
        for (int it = 0; it < o.iters; ++it)
          h.callAll();
      setDevice(l0.device, l0.rank);
      DSLC_CUDART(l0.rank, cudaEventRecord(ev.events[r], l0.stream));
    }
    h.wait();
    eager = makeStats(ev.samples(l0, o.iters), o.iters);
    h.check("back-to-back calls");
  }
  if (o.graphReplays <= 0)
    return;
  h.prepare();
  int perGraph = std::max(1, std::min(o.callsPerGraph, o.graphReplays));
  int replays = std::max(1, o.graphReplays / perGraph);
  std::vector<std::unique_ptr<GraphSet>> graphs;
  for (int k = 0; k < std::clamp(o.graphs, 1, reps); ++k) {
    graphs.push_back(std::make_unique<GraphSet>(comm));
    capture(comm, *graphs.back(), perGraph, h);
  }
  EventChain ev(l0, reps + 1);
  for (int r = 0; r <= reps; ++r) {
    if (r > 0) {
      GraphSet &g = *graphs[(r - 1) % graphs.size()];
      for (int it = 0; it < replays; ++it)
        for (int i = 0; i < comm.numLocal(); ++i) {
          const LocalRank &l = comm.local(i);
          setDevice(l.device, l.rank);
          DSLC_CUDART(l.rank, cudaGraphLaunch(g.execs[i], l.stream));
        }
    }
    setDevice(l0.device, l0.rank);
    DSLC_CUDART(l0.rank, cudaEventRecord(ev.events[r], l0.stream));
  }
  h.wait();
  graph = makeStats(ev.samples(l0, replays * perGraph), replays * perGraph);
  h.check("graph replays");
}

} // namespace dslc::run
