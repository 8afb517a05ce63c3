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
      comm.settle("a call captured into a CUDA graph");
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

/// One flush buffer per device of the local ranks (written on the stream of
/// the first local rank on it), and an event that every other local rank's
/// stream waits on; released on every path.
struct L2Flush {
  struct Device {
    int owner = 0; ///< local rank index whose stream writes the buffer
    void *buffer = nullptr;
    cudaEvent_t written = nullptr;
  };
  Communicator &comm;
  size_t bytes;
  std::vector<Device> devices;

  L2Flush(Communicator &comm, size_t bytes) : comm(comm), bytes(bytes) {
    for (int i = 0; i < comm.numLocal(); ++i) {
      const LocalRank &l = comm.local(i);
      bool seen = false;
      for (const Device &d : devices)
        seen |= comm.local(d.owner).device == l.device;
      if (seen)
        continue;
      devices.push_back(Device{i});
      setDevice(l.device, l.rank);
      DSLC_CUDART(l.rank, cudaMalloc(&devices.back().buffer, bytes));
      DSLC_CUDART(l.rank, cudaEventCreateWithFlags(&devices.back().written,
                                                   cudaEventDisableTiming));
    }
  }
  ~L2Flush() {
    for (Device &d : devices) {
      (void)cudaSetDevice(comm.local(d.owner).device);
      if (d.written)
        (void)cudaEventDestroy(d.written);
      if (d.buffer)
        (void)cudaFree(d.buffer);
    }
  }
  /// Writes every buffer `repeat` times; every local rank's stream waits.
  void write(int repeat, int value) {
    for (Device &d : devices) {
      const LocalRank &l = comm.local(d.owner);
      setDevice(l.device, l.rank);
      for (int k = 0; k < repeat; ++k)
        DSLC_CUDART(l.rank,
                    cudaMemsetAsync(d.buffer, value + k, bytes, l.stream));
      DSLC_CUDART(l.rank, cudaEventRecord(d.written, l.stream));
    }
    for (int i = 0; i < comm.numLocal(); ++i) {
      const LocalRank &l = comm.local(i);
      setDevice(l.device, l.rank);
      for (Device &d : devices)
        if (comm.local(d.owner).stream != l.stream)
          DSLC_CUDART(l.rank, cudaStreamWaitEvent(l.stream, d.written, 0));
    }
  }
};

/// Whether `e` has completed (cudaErrorNotReady: not yet).
bool reached(const LocalRank &l, cudaEvent_t e) {
  cudaError_t r = cudaEventQuery(e);
  if (r == cudaErrorNotReady)
    return false;
  DSLC_CUDART(l.rank, r);
  return true;
}

/// The L2-cold eager phase: o.repetitions x o.iters samples of one call,
/// each after a flush. When the start event has completed by the time the
/// call's launches return, the GPU may have waited on the host inside the
/// sample: it is retaken behind a flush written twice as many times.
TimingStats eagerL2Cold(Communicator &comm, const RunOptions &o,
                        const PhaseHooks &h) {
  const LocalRank &l0 = comm.local(0);
  int want = o.repetitions * o.iters;
  L2Flush flush(comm, o.flushBytes);
  std::vector<double> samples;
  int repeat = 1, retaken = 0;
  while (static_cast<int>(samples.size()) < want) {
    int batch = want - static_cast<int>(samples.size());
    EventChain ev(l0, 2 * batch);
    std::vector<bool> late(batch, false);
    for (int s = 0; s < batch; ++s) {
      flush.write(repeat, s & 0x7f);
      setDevice(l0.device, l0.rank);
      DSLC_CUDART(l0.rank, cudaEventRecord(ev.events[2 * s], l0.stream));
      h.callAll();
      setDevice(l0.device, l0.rank);
      DSLC_CUDART(l0.rank, cudaEventRecord(ev.events[2 * s + 1], l0.stream));
      late[s] = reached(l0, ev.events[2 * s]);
    }
    h.wait();
    std::vector<double> times = ev.samples(l0, 1);
    int missed = 0;
    for (int s = 0; s < batch; ++s) {
      if (late[s] && repeat < kMaxFlushRepeat)
        ++missed;
      else
        samples.push_back(times[2 * s]); // start to end, not end to start
    }
    retaken += missed;
    if (missed)
      repeat = std::min(2 * repeat, kMaxFlushRepeat);
  }
  TimingStats t = makeStats(std::move(samples), 1);
  t.retaken = retaken;
  t.flushRepeat = repeat;
  return t;
}

} // namespace

size_t l2Bytes(const LocalRank &l) {
  int l2 = 0;
  DSLC_CUDART(l.rank,
              cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, l.device));
  return static_cast<size_t>(std::max(l2, 0));
}

size_t l2FlushBytes(const LocalRank &l) {
  return 2 * std::max(l2Bytes(l), size_t(1) << 20);
}

void measurePhases(Communicator &comm, const RunOptions &o, const PhaseHooks &h,
                   TimingStats &eager, TimingStats &graph) {
  const LocalRank &l0 = comm.local(0);
  int reps = o.repetitions;
  if (o.iters > 0 && o.flushBytes > 0) {
    h.prepare();
    eager = eagerL2Cold(comm, o, h);
    h.check("L2-cold calls");
  } else if (o.iters > 0) {
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
