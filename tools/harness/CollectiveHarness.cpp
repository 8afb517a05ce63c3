//===- CollectiveHarness.cpp - Run, check and time collective kernels -----===//
#include "tools/harness/CollectiveHarness.h"

#include "runtime/Error.h"

#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <thread>

namespace dslc::run {

using namespace dslc::rt;

namespace {

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// Deterministic input element of `rank` at `i`, representable in `t`:
/// multiples of 1/37 in [-27, 27].
float inputValue(uint32_t seed, int rank, int64_t i, DType t) {
  uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull ^
               (static_cast<uint64_t>(rank + 1) * 0xBF58476D1CE4E5B9ull) ^ seed;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  float v = static_cast<float>(static_cast<int64_t>(x % 2001) - 1000) / 37.0f;
  return roundTo(v, t);
}

/// Splits [0, n) into chunks of at least 1M elements, one per hardware
/// thread (at most 16), and runs fn(lo, hi, state) on each in parallel.
template <typename State, typename F>
void parallelChunks(int64_t n, std::vector<State> &states, F fn) {
  int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(),
                                        1, 16);
  threads = std::clamp<int64_t>(n / (int64_t(1) << 20), 1, threads);
  states.assign(threads, State());
  int64_t per = (n + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t)
    pool.emplace_back([&, t] {
      fn(std::min(n, t * per), std::min(n, (t + 1) * per), states[t]);
    });
  fn(0, std::min(n, per), states[0]);
  for (std::thread &th : pool)
    th.join();
}

TimingStats makeStats(std::vector<double> samples, int calls) {
  TimingStats s;
  s.callsPerSample = calls;
  s.samplesUs = samples;
  if (samples.empty())
    return s;
  std::sort(samples.begin(), samples.end());
  size_t m = samples.size();
  s.medianUs = m % 2 ? samples[m / 2]
                     : (samples[m / 2 - 1] + samples[m / 2]) / 2.0;
  s.minUs = samples.front();
  return s;
}

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

} // namespace

//===----------------------------------------------------------------------===//
// The harness
//===----------------------------------------------------------------------===//

CollectiveHarness::CollectiveHarness(Communicator &comm, Kernel &kernel,
                                     Collective c, int64_t maxN,
                                     SymmetricHeap *heap)
    : comm_(comm), kernel_(&kernel) {
  plan_ = planCollective(kernel.metadata(0), c, comm.worldSize(), maxN);
  const KernelMetadata &md = kernel.metadata(0);
  if (!isHarnessFloat(plan_.dtype))
    raise(ErrorCode::InvalidArgument,
          fmt::format("kernel {} as {}: input '{}' is {}; the harness handles "
                      "bfloat16, float16 and float32",
                      md.kernel, collectiveName(c), md.args[plan_.input].name,
                      dtypeName(plan_.dtype)));
  allocate(heap);
}

CollectiveHarness::CollectiveHarness(Communicator &comm, Collective c,
                                     DType dtype, int64_t maxN,
                                     SymmetricHeap *heap)
    : comm_(comm) {
  if (!isHarnessFloat(dtype))
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: element type {} is not bfloat16, float16 "
                      "or float32",
                      collectiveName(c), dtypeName(dtype)));
  if (maxN < 1)
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: largest size {} is not positive",
                      collectiveName(c), maxN));
  plan_.collective = c;
  plan_.world = comm.worldSize();
  plan_.maxN = maxN;
  plan_.dtype = dtype;
  plan_.input = 0;
  plan_.output = 1;
  int64_t cap = c == Collective::AllReduce ? maxN : roundUp(maxN, plan_.world);
  CollectiveShape shape = collectiveShape(c, cap, plan_.world);
  ArgPlan in, out;
  in.role = ArgRole::Input;
  out.role = ArgRole::Output;
  in.dtype = out.dtype = dtype;
  in.rank = out.rank = 1;
  in.inHeap = true; // as for kernels
  in.bytes = static_cast<size_t>(shape.input) * dtypeSize(dtype);
  out.bytes = static_cast<size_t>(shape.output) * dtypeSize(dtype);
  plan_.args = {in, out};
  allocate(heap);
}

CollectiveHarness::~CollectiveHarness() { release(); }

void CollectiveHarness::allocate(SymmetricHeap *heap) {
  try {
    if (!heap) {
      ownHeap_ = std::make_unique<SymmetricHeap>(comm_, plan_.heapBytes());
      heap = ownHeap_.get();
    }
    heap_ = heap;
    buffers_.resize(plan_.args.size());
    for (size_t j = 0; j < plan_.args.size(); ++j) {
      const ArgPlan &p = plan_.args[j];
      Buffer &b = buffers_[j];
      if (p.role == ArgRole::PeerTable)
        continue;
      if (p.inHeap) {
        // Pads and scratch start zeroed on every rank (then a barrier);
        // kernels reset their own slots from there on.
        bool zeroed = p.role != ArgRole::Input && p.role != ArgRole::Output;
        b.sym = zeroed ? heap_->allocSignalPad(p.bytes)
                       : heap_->alloc(p.bytes, 256);
        continue;
      }
      b.plain.assign(comm_.numLocal(), nullptr);
      comm_.forEach([&](int i) {
        int rank = comm_.local(i).rank;
        DSLC_CUDART(rank, cudaMalloc(&b.plain[i], p.bytes));
        DSLC_CUDART(rank, cudaMemset(b.plain[i], 0, p.bytes));
      });
    }
  } catch (...) {
    release();
    throw;
  }
}

void CollectiveHarness::release() noexcept {
  for (Buffer &b : buffers_) {
    for (int i = 0; i < static_cast<int>(b.plain.size()); ++i) {
      if (!b.plain[i])
        continue;
      (void)cudaSetDevice(comm_.local(i).device);
      (void)cudaFree(b.plain[i]);
    }
    b.plain.clear();
    if (b.sym.valid() && heap_ && !comm_.failed()) {
      try {
        heap_->free(b.sym);
      } catch (...) {
      }
    }
  }
  buffers_.clear();
  ownHeap_.reset();
  heap_ = nullptr;
}

void CollectiveHarness::fillInputs(int64_t n, uint32_t seed) {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  const Buffer &in = buffers_[plan_.input];
  size_t es = dtypeSize(plan_.dtype);
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    std::vector<char> host(static_cast<size_t>(shape.input) * es);
    std::vector<char> unused;
    parallelChunks(shape.input, unused, [&](int64_t lo, int64_t hi, char &) {
      for (int64_t k = lo; k < hi; ++k)
        storeElement(host.data(), k, plan_.dtype,
                     inputValue(seed, l.rank, k, plan_.dtype));
    });
    DSLC_CUDART(l.rank, cudaMemcpy(in.local(i), host.data(), host.size(),
                                   cudaMemcpyHostToDevice));
  });
  // Every rank's input must be in place before any rank reads it.
  comm_.barrier();
}

void CollectiveHarness::poisonOutputs(int64_t n) {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  const Buffer &out = buffers_[plan_.output];
  size_t bytes = static_cast<size_t>(shape.output) * dtypeSize(plan_.dtype);
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    DSLC_CUDART(l.rank,
                cudaMemsetAsync(out.local(i), 0xff, bytes, l.stream));
  });
  comm_.waitStreams("output poisoning");
  // Peers may store into this rank's output (symmetric outputs): the poison
  // must land everywhere before any rank's next call.
  comm_.barrier();
}

std::vector<BoundArgs> CollectiveHarness::makeArgs(int64_t n) {
  std::vector<BoundArgs> all;
  for (int i = 0; i < comm_.numLocal(); ++i) {
    BoundArgs a = kernel_->args(i);
    std::vector<void *> local, peers;
    for (const Buffer &b : buffers_) {
      local.push_back(b.sym.valid() || !b.plain.empty() ? b.local(i) : nullptr);
      peers.push_back(b.peers(i));
    }
    bindCollective(a, plan_, n, local, peers, comm_.local(i).rank);
    all.push_back(std::move(a));
  }
  return all;
}

float collectiveInput(uint32_t seed, int rank, int64_t k, DType t) {
  return inputValue(seed, rank, k, t);
}

int64_t checkCollectiveOutput(Collective c, DType t, int world, int rank,
                              uint32_t seed, int64_t n, const void *out,
                              std::string *first) {
  CollectiveShape shape = collectiveShape(c, n, world);
  double ulps = std::max(1.0, world / 2.0);
  // Chunks checked in parallel; the first mismatch is the lowest index.
  struct Chunk {
    int64_t bad = 0;
    int64_t first = -1;
    std::string what;
  };
  std::vector<Chunk> chunks;
  parallelChunks(shape.output, chunks, [&](int64_t lo, int64_t hi,
                                           Chunk &ch) {
    for (int64_t k = lo; k < hi; ++k) {
      std::string bad;
      if (c == Collective::AllGather) {
        int64_t per = shape.input;
        int r = static_cast<int>(k / per);
        float want = inputValue(seed, r, k % per, t);
        char buf[4];
        storeElement(buf, 0, t, want);
        uint32_t wantBits = elementBits(buf, 0, t);
        uint32_t gotBits = elementBits(out, k, t);
        if (gotBits == wantBits)
          continue;
        if (ch.bad == 0)
          bad = fmt::format("got {} (0x{:x}), expected {} (0x{:x}): element "
                            "{} of rank {}",
                            loadElement(out, k, t), gotBits, want, wantBits,
                            k % per, r);
      } else {
        int64_t idx = c == Collective::ReduceScatter ? rank * shape.output + k
                                                     : k;
        double exact = 0, magnitude = 0;
        for (int r = 0; r < world; ++r) {
          double v = inputValue(seed, r, idx, t);
          exact += v;
          magnitude += std::fabs(v);
        }
        double tol = ulps * ulpAt(magnitude, t);
        double got = loadElement(out, k, t);
        if (std::isfinite(got) && std::fabs(got - exact) <= tol)
          continue;
        if (ch.bad == 0)
          bad = fmt::format("got {}, expected {} (tolerance {})", got, exact,
                            tol);
      }
      if (ch.bad++ == 0) {
        ch.first = k;
        ch.what = bad;
      }
    }
  });
  int64_t total = 0;
  for (const Chunk &ch : chunks) {
    if (ch.bad == 0)
      continue;
    if (total == 0 && first)
      *first = fmt::format("element {} of {}: {}", ch.first, shape.output,
                           ch.what);
    total += ch.bad;
  }
  return total;
}

void CollectiveHarness::check(int64_t n, CollectiveResult &res,
                              const char *phase) {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  size_t es = dtypeSize(plan_.dtype);
  const Buffer &out = buffers_[plan_.output];
  // All-reduce and all-gather results must be bitwise the same on every
  // rank (a user's replicas must not drift apart); with one process driving
  // several GPUs every local rank is compared with the first.
  bool same = plan_.collective != Collective::ReduceScatter;
  std::vector<char> first0;
  for (int i = 0; i < comm_.numLocal(); ++i) {
    const LocalRank &l = comm_.local(i);
    setDevice(l.device, l.rank);
    std::vector<char> host(static_cast<size_t>(shape.output) * es);
    DSLC_CUDART(l.rank, cudaMemcpy(host.data(), out.local(i), host.size(),
                                   cudaMemcpyDeviceToHost));
    std::string first;
    int64_t bad =
        checkCollectiveOutput(plan_.collective, plan_.dtype, plan_.world,
                              l.rank, seed_, n, host.data(), &first);
    if (bad && res.mismatches == 0)
      res.firstMismatch = fmt::format("{}: rank {}: {}", phase, l.rank, first);
    res.mismatches += bad;
    if (!same)
      continue;
    if (i == 0) {
      first0 = std::move(host);
      continue;
    }
    int64_t differ = countBitwiseDifferences(first0.data(), host.data(),
                                             shape.output, es);
    if (differ && res.mismatches == 0)
      res.firstMismatch = fmt::format(
          "{}: rank {} differs bitwise from rank {} in {} element(s)", phase,
          l.rank, comm_.local(0).rank, differ);
    res.mismatches += differ;
  }
}

int64_t countBitwiseDifferences(const void *a, const void *b, int64_t count,
                                size_t elementBytes) {
  const char *pa = static_cast<const char *>(a);
  const char *pb = static_cast<const char *>(b);
  int64_t differ = 0;
  for (int64_t i = 0; i < count; ++i)
    differ += std::memcmp(pa + i * elementBytes, pb + i * elementBytes,
                          elementBytes) != 0;
  return differ;
}

CollectiveResult CollectiveHarness::begin(int64_t n, const RunOptions &o) {
  if (n < 1 || n > plan_.maxN)
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: size {} outside 1..{}",
                      collectiveName(plan_.collective), n, plan_.maxN));
  (void)collectiveShape(plan_.collective, n, plan_.world);
  if (o.repetitions < 1 || o.iters < 0 || o.graphReplays < 0)
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: repetitions must be >= 1 and the call "
                      "counts >= 0 (got {}, {}, {})",
                      collectiveName(plan_.collective), o.repetitions, o.iters,
                      o.graphReplays));
  seed_ = o.seed;
  CollectiveResult res;
  res.collective = plan_.collective;
  res.dtype = plan_.dtype;
  res.n = n;
  return res;
}

CollectiveResult CollectiveHarness::run(int64_t n, const RunOptions &o) {
  if (!kernel_)
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: made for NCCL only, it has no kernel",
                      collectiveName(plan_.collective)));
  CollectiveResult res = begin(n, o);
  std::vector<BoundArgs> args;
  try {
    args = makeArgs(n);
  } catch (const Error &e) {
    if (e.code() != ErrorCode::InvalidArgument)
      throw;
    res.error = e.what();
    return res;
  }
  fillInputs(n, o.seed);
  return measure(
      n, o, [&] { kernel_->launchAll(args); },
      [&](int i) { kernel_->launch(i, args[i]); },
      [&] { kernel_->synchronize(); }, std::move(res));
}

CollectiveResult CollectiveHarness::runNccl(int64_t n, const RunOptions &o) {
  CollectiveResult res = begin(n, o);
  ncclDataType_t type = plan_.dtype == DType::BFloat16  ? ncclBfloat16
                        : plan_.dtype == DType::Float16 ? ncclFloat16
                                                        : ncclFloat32;
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  auto one = [&](int i) {
    const LocalRank &l = comm_.local(i);
    const void *in = buffers_[plan_.input].local(i);
    void *out = buffers_[plan_.output].local(i);
    switch (plan_.collective) {
    case Collective::AllReduce:
      DSLC_NCCL(l.rank, ncclAllReduce(in, out, shape.output, type, ncclSum,
                                      l.comm, l.stream));
      break;
    case Collective::ReduceScatter:
      DSLC_NCCL(l.rank, ncclReduceScatter(in, out, shape.output, type,
                                          ncclSum, l.comm, l.stream));
      break;
    case Collective::AllGather:
      DSLC_NCCL(l.rank, ncclAllGather(in, out, shape.input, type, l.comm,
                                      l.stream));
      break;
    }
  };
  fillInputs(n, o.seed);
  return measure(
      n, o,
      [&] {
        DSLC_NCCL(-1, ncclGroupStart());
        for (int i = 0; i < comm_.numLocal(); ++i) {
          setDevice(comm_.local(i).device, comm_.local(i).rank);
          one(i);
        }
        DSLC_NCCL(-1, ncclGroupEnd());
      },
      one,
      [&] {
        comm_.waitStreams(fmt::format("nccl {}",
                                      collectiveName(plan_.collective)));
      },
      std::move(res));
}

CollectiveResult CollectiveHarness::measure(
    int64_t n, const RunOptions &o, const std::function<void()> &callAll,
    const std::function<void(int)> &callOne, const std::function<void()> &wait,
    CollectiveResult res) {
  const LocalRank &l0 = comm_.local(0);
  int reps = o.repetitions;
  if (o.iters > 0) {
    poisonOutputs(n);
    EventChain ev(l0, reps + 1);
    for (int r = 0; r <= reps; ++r) {
      if (r > 0)
        for (int it = 0; it < o.iters; ++it)
          callAll();
      setDevice(l0.device, l0.rank);
      DSLC_CUDART(l0.rank, cudaEventRecord(ev.events[r], l0.stream));
    }
    wait();
    res.eager = makeStats(ev.samples(l0, o.iters), o.iters);
    check(n, res, "back-to-back calls");
  }
  if (o.graphReplays > 0) {
    poisonOutputs(n);
    int nl = comm_.numLocal();
    GraphSet g(comm_);
    // Every local rank's stream is captured at once (NCCL needs the calls of
    // one group in flight together when one thread drives several GPUs).
    for (int i = 0; i < nl; ++i) {
      const LocalRank &l = comm_.local(i);
      setDevice(l.device, l.rank);
      DSLC_CUDART(l.rank, cudaStreamBeginCapture(l.stream,
                                                 cudaStreamCaptureModeRelaxed));
    }
    std::exception_ptr failure;
    int perGraph = std::max(1, std::min(o.callsPerGraph, o.graphReplays));
    int replays = std::max(1, o.graphReplays / perGraph);
    try {
      for (int k = 0; k < perGraph; ++k) {
        if (nl > 1)
          DSLC_NCCL(-1, ncclGroupStart());
        for (int i = 0; i < nl; ++i) {
          setDevice(comm_.local(i).device, comm_.local(i).rank);
          callOne(i);
        }
        if (nl > 1)
          DSLC_NCCL(-1, ncclGroupEnd());
      }
    } catch (...) {
      failure = std::current_exception();
    }
    for (int i = 0; i < nl; ++i) {
      const LocalRank &l = comm_.local(i);
      setDevice(l.device, l.rank);
      cudaError_t e = cudaStreamEndCapture(l.stream, &g.graphs[i]);
      if (!failure)
        DSLC_CUDART(l.rank, e);
    }
    if (failure)
      std::rethrow_exception(failure);
    for (int i = 0; i < nl; ++i) {
      const LocalRank &l = comm_.local(i);
      setDevice(l.device, l.rank);
      DSLC_CUDART(l.rank, cudaGraphInstantiate(&g.execs[i], g.graphs[i], 0));
    }
    EventChain ev(l0, reps + 1);
    for (int r = 0; r <= reps; ++r) {
      if (r > 0)
        for (int it = 0; it < replays; ++it)
          for (int i = 0; i < nl; ++i) {
            const LocalRank &l = comm_.local(i);
            setDevice(l.device, l.rank);
            DSLC_CUDART(l.rank, cudaGraphLaunch(g.execs[i], l.stream));
          }
      setDevice(l0.device, l0.rank);
      DSLC_CUDART(l0.rank, cudaEventRecord(ev.events[r], l0.stream));
    }
    wait();
    res.graph = makeStats(ev.samples(l0, replays * perGraph),
                          replays * perGraph);
    check(n, res, "graph replays");
  }
  return res;
}

} // namespace dslc::run
