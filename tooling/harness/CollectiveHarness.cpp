//===- CollectiveHarness.cpp - Run, check and time collective kernels -----===//
#include "tooling/harness/CollectiveHarness.h"

#include "runtime/Error.h"

#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

namespace dslc::run {

using namespace dslc::rt;

namespace {

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// Splits [0, n) into chunks of at least 1M elements, one per hardware
/// thread (at most 16), and runs fn(lo, hi, state) on each in parallel.
template <typename State, typename F>
void parallelChunks(int64_t n, std::vector<State> &states, F fn) {
  int64_t threads =
      std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 16);
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

CollectiveHarness::~CollectiveHarness() = default;

void CollectiveHarness::allocate(SymmetricHeap *heap) {
  std::vector<ArgumentMemory::Need> needs;
  for (const ArgPlan &p : plan_.args)
    // Pads, scratch and workspaces start zeroed on every rank; kernels
    // reset their own slots from there on.
    needs.push_back({p.role != ArgRole::PeerTable, p.bytes, p.inHeap,
                     p.role != ArgRole::Input && p.role != ArgRole::Output});
  memory_ =
      std::make_unique<ArgumentMemory>(comm_, heap, plan_.heapBytes(), needs);
}

void CollectiveHarness::fillInputs(int64_t n, uint32_t seed) {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  const DeviceBuffer &in = (*memory_)[plan_.input];
  size_t es = dtypeSize(plan_.dtype);
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    std::vector<char> host(static_cast<size_t>(shape.input) * es);
    std::vector<char> unused;
    parallelChunks(shape.input, unused, [&](int64_t lo, int64_t hi, char &) {
      for (int64_t k = lo; k < hi; ++k)
        storeElement(host.data(), k, plan_.dtype,
                     seededValue(seed, l.rank, k, plan_.dtype));
    });
    DSLC_CUDART(l.rank, cudaMemcpy(in.local(i), host.data(), host.size(),
                                   cudaMemcpyHostToDevice));
  });
  // Every rank's input must be in place before any rank reads it.
  comm_.barrier();
}

void CollectiveHarness::poisonOutputs(int64_t n) {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  const DeviceBuffer &out = (*memory_)[plan_.output];
  size_t bytes = static_cast<size_t>(shape.output) * dtypeSize(plan_.dtype);
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    DSLC_CUDART(l.rank, cudaMemsetAsync(out.local(i), 0xff, bytes, l.stream));
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
    bindCollective(a, plan_, n, memory_->locals(i), memory_->peers(i),
                   comm_.local(i).rank);
    all.push_back(std::move(a));
  }
  return all;
}

float collectiveInput(uint32_t seed, int rank, int64_t k, DType t) {
  return seededValue(seed, rank, k, t);
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
  parallelChunks(shape.output, chunks, [&](int64_t lo, int64_t hi, Chunk &ch) {
    for (int64_t k = lo; k < hi; ++k) {
      std::string bad;
      if (c == Collective::AllGather) {
        int64_t per = shape.input;
        int r = static_cast<int>(k / per);
        float want = seededValue(seed, r, k % per, t);
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
        int64_t idx =
            c == Collective::ReduceScatter ? rank * shape.output + k : k;
        double exact = 0, magnitude = 0;
        for (int r = 0; r < world; ++r) {
          double v = seededValue(seed, r, idx, t);
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
      *first =
          fmt::format("element {} of {}: {}", ch.first, shape.output, ch.what);
    total += ch.bad;
  }
  return total;
}

void CollectiveHarness::check(int64_t n, CollectiveResult &res,
                              const char *phase) {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  size_t es = dtypeSize(plan_.dtype);
  const DeviceBuffer &out = (*memory_)[plan_.output];
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
    int64_t differ =
        countBitwiseDifferences(first0.data(), host.data(), shape.output, es);
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
    const void *in = (*memory_)[plan_.input].local(i);
    void *out = (*memory_)[plan_.output].local(i);
    switch (plan_.collective) {
    case Collective::AllReduce:
      DSLC_NCCL(l.rank, ncclAllReduce(in, out, shape.output, type, ncclSum,
                                      l.comm, l.stream));
      break;
    case Collective::ReduceScatter:
      DSLC_NCCL(l.rank, ncclReduceScatter(in, out, shape.output, type, ncclSum,
                                          l.comm, l.stream));
      break;
    case Collective::AllGather:
      DSLC_NCCL(l.rank,
                ncclAllGather(in, out, shape.input, type, l.comm, l.stream));
      break;
    }
    // Non-blocking communicators: enqueued once NCCL says so (a no-op in
    // a group, which callAll settles after ncclGroupEnd).
    comm_.settle(fmt::format("nccl {}", collectiveName(plan_.collective)));
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
        comm_.settle(fmt::format("nccl {}", collectiveName(plan_.collective)));
      },
      one,
      [&] {
        comm_.waitStreams(
            fmt::format("nccl {}", collectiveName(plan_.collective)));
      },
      std::move(res));
}

CollectiveResult CollectiveHarness::measure(
    int64_t n, const RunOptions &o, const std::function<void()> &callAll,
    const std::function<void(int)> &callOne, const std::function<void()> &wait,
    CollectiveResult res) {
  PhaseHooks h;
  h.callAll = callAll;
  h.callOne = callOne;
  h.wait = wait;
  h.prepare = [&] { poisonOutputs(n); };
  h.check = [&](const char *phase) { check(n, res, phase); };
  measurePhases(comm_, o, h, res.eager, res.graph);
  return res;
}

} // namespace dslc::run
