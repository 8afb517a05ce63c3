//===- Timing.h - Timing kernel calls with CUDA events ----------*- C++ -*-===//
//
// The one measuring routine of the harness (collectives, NCCL, any kernel):
// R repetitions of `iters` back-to-back calls (or R x iters single calls,
// each after an L2 flush), then of `graphReplays` calls
// through CUDA graphs holding `callsPerGraph` calls each, every repetition
// between two events on the first local rank's stream; before each phase a
// `prepare` hook (refill, poison), after it a `check` hook.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_TIMING_H
#define DSLC_TOOLING_HARNESS_TIMING_H

#include "runtime/Communicator.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace dslc::run {

struct RunOptions {
  int iters = 10;        ///< back-to-back calls per repetition (0: none)
  int graphReplays = 10; ///< calls through graphs per repetition (0: none)
  /// Calls captured in one graph: the graph phase replays it
  /// graphReplays / callsPerGraph times, so a launch's host cost (one
  /// cudaGraphLaunch per local rank) is spread over that many calls and
  /// short kernels are timed back to back on the GPU, not at the host's
  /// launch rate.
  int callsPerGraph = 1;
  /// Distinct graphs captured for the graph phase; repetition r replays
  /// graph r mod graphs. More than one when the calls rotate over buffer
  /// sets (L2-cold): each graph then holds the next sets' calls, so a
  /// replay does not find its buffers in L2 from the previous replay.
  int graphs = 1;
  int repetitions = 5; ///< timed repetitions of each loop (>= 1)
  uint32_t seed = 1;   ///< inputs
  /// L2-cold eager phase when > 0: each of repetitions x iters samples is
  /// one call, after every device of the local ranks wrote this many bytes
  /// (l2FlushBytes: twice its L2) on its stream; the graph phase is
  /// unchanged. A sample whose flush the host's launches outlasted (the
  /// GPU may have idled inside it) is retaken behind a flush written twice
  /// as many times, up to kMaxFlushRepeat.
  size_t flushBytes = 0;
};

/// Most times a flush is written before one L2-cold sample.
constexpr int kMaxFlushRepeat = 64;

/// The L2 size of local rank `l`'s device (cudaDevAttrL2CacheSize).
size_t l2Bytes(const rt::LocalRank &l);
/// Bytes that evict a device's L2 when written: twice its size, as the
/// Python package's timing flushes (python/dslc/_timing.py).
size_t l2FlushBytes(const rt::LocalRank &l);

/// Per-call times of one phase, in microseconds.
struct TimingStats {
  std::vector<double> samplesUs; ///< one per repetition (time / calls)
  double medianUs = 0;
  double minUs = 0;
  int callsPerSample = 0;
  /// L2-cold samples retaken because the host outlasted the flush, and the
  /// flush repeat the last sample ran behind.
  int retaken = 0;
  int flushRepeat = 0;
  bool measured() const { return !samplesUs.empty(); }
};

/// Median and minimum of `samples`.
TimingStats makeStats(std::vector<double> samples, int calls);

struct PhaseHooks {
  std::function<void()> callAll;           ///< one call on every local rank
  std::function<void(int)> callOne;        ///< one call on local rank i
  std::function<void()> wait;              ///< until every call finished
  std::function<void()> prepare;           ///< before each phase
  std::function<void(const char *)> check; ///< after each phase (its name)
};

/// Runs the eager phase (when o.iters > 0; L2-cold when o.flushBytes > 0)
/// and the graph phase (when o.graphReplays > 0); rt::Error from a call or
/// a CUDA failure passes through (graphs, events and flush buffers are
/// released on every path).
void measurePhases(rt::Communicator &comm, const RunOptions &o,
                   const PhaseHooks &hooks, TimingStats &eager,
                   TimingStats &graph);

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_TIMING_H
