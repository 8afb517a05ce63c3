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

int l2ColdSets(size_t setBytes, size_t l2Bytes) {
  if (setBytes == 0)
    return kMaxRotatingSets;
  size_t want = (2 * l2Bytes + setBytes - 1) / setBytes + 1;
  return static_cast<int>(std::clamp<size_t>(want, 2, kMaxRotatingSets));
}

CollectiveHarness::CollectiveHarness(Communicator &comm, Kernel &kernel,
                                     Collective c, int64_t maxN,
                                     SymmetricHeap *heap, HarnessLayout layout)
    : comm_(comm), kernel_(&kernel), layout_(layout) {
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
                                     SymmetricHeap *heap, HarnessLayout layout)
    : comm_(comm), layout_(layout) {
  plan_ = ncclPlan(c, dtype, comm.worldSize(), maxN, layout);
  allocate(heap);
}

CollectivePlan CollectiveHarness::ncclPlan(Collective c, DType dtype, int world,
                                           int64_t maxN,
                                           const HarnessLayout &layout) {
  if (!isHarnessFloat(dtype))
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: element type {} is not bfloat16, float16 "
                      "or float32",
                      collectiveName(c), dtypeName(dtype)));
  if (maxN < 1)
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: largest size {} is not positive",
                      collectiveName(c), maxN));
  CollectivePlan plan;
  plan.collective = c;
  plan.world = world;
  plan.maxN = maxN;
  plan.dtype = dtype;
  plan.input = 0;
  plan.output = 1;
  int64_t cap = c == Collective::AllReduce ? maxN : roundUp(maxN, world);
  CollectiveShape shape = collectiveShape(c, cap, world);
  ArgPlan in, out;
  in.role = Role::Input;
  out.role = Role::Output;
  in.dtype = out.dtype = dtype;
  in.rank = out.rank = 1;
  in.inHeap = out.inHeap = layout.ncclWindow;
  in.bytes = static_cast<size_t>(shape.input) * dtypeSize(dtype);
  out.bytes = static_cast<size_t>(shape.output) * dtypeSize(dtype);
  plan.args = {in, out};
  return plan;
}

size_t CollectiveHarness::heapBytes(const CollectivePlan &plan,
                                    const HarnessLayout &layout) {
  size_t bytes = plan.heapBytes();
  int extra = std::max(layout.rotatingSets, 1) - 1;
  for (int arg : {plan.input, plan.output})
    if (arg >= 0 && plan.args[arg].inHeap)
      bytes += extra * static_cast<size_t>(roundUp(
                           static_cast<int64_t>(plan.args[arg].bytes), 256));
  return bytes;
}

CollectiveHarness::~CollectiveHarness() {
  for (size_t i = 0; i < setTables_.size(); ++i)
    if (setTables_[i]) {
      (void)cudaSetDevice(comm_.local(static_cast<int>(i)).device);
      (void)cudaFree(setTables_[i]);
    }
}

void CollectiveHarness::allocate(SymmetricHeap *heap) {
  if (layout_.rotatingSets < 1 || layout_.rotatingSets > kMaxRotatingSets)
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: {} rotating sets (1..{})",
                      collectiveName(plan_.collective), layout_.rotatingSets,
                      kMaxRotatingSets));
  size_t sets = static_cast<size_t>(layout_.rotatingSets);
  inStride_ = static_cast<size_t>(
      roundUp(static_cast<int64_t>(plan_.args[plan_.input].bytes), 256));
  outStride_ = static_cast<size_t>(
      roundUp(static_cast<int64_t>(plan_.args[plan_.output].bytes), 256));
  std::vector<ArgumentMemory::Need> needs;
  for (int j = 0; j < static_cast<int>(plan_.args.size()); ++j) {
    const ArgPlan &p = plan_.args[j];
    size_t bytes = j == plan_.input    ? inStride_ * sets
                   : j == plan_.output ? outStride_ * sets
                                       : p.bytes;
    // Pads, scratch and workspaces start zeroed on every rank; kernels
    // reset their own slots from there on.
    needs.push_back({p.role != Role::PeerTable, bytes, p.inHeap,
                     p.role != Role::Input && p.role != Role::Output});
  }
  memory_ = std::make_unique<ArgumentMemory>(comm_, heap,
                                             heapBytes(plan_, layout_), needs);
  makeSetTables();
}

/// Rotating sets of a symmetric input or output need their own peer
/// tables: the world's addresses of set s are those of set 0 plus s
/// strides (every rank's heap has the same layout).
void CollectiveHarness::makeSetTables() {
  int sets = layout_.rotatingSets;
  if (sets == 1)
    return;
  int world = plan_.world;
  setTables_.assign(comm_.numLocal(), nullptr);
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    std::vector<uint64_t> host(2 * static_cast<size_t>(sets) * world, 0);
    for (int side = 0; side < 2; ++side) {
      int arg = side ? plan_.output : plan_.input;
      size_t stride = side ? outStride_ : inStride_;
      void *table = (*memory_)[arg].peers(i);
      if (!table)
        continue;
      std::vector<uint64_t> base(world);
      DSLC_CUDART(l.rank, cudaMemcpy(base.data(), table, world * 8,
                                     cudaMemcpyDeviceToHost));
      for (int s = 0; s < sets; ++s)
        for (int p = 0; p < world; ++p)
          host[(static_cast<size_t>(side) * sets + s) * world + p] =
              base[p] + s * stride;
    }
    DSLC_CUDART(l.rank, cudaMalloc(&setTables_[i], host.size() * 8));
    DSLC_CUDART(l.rank, cudaMemcpy(setTables_[i], host.data(), host.size() * 8,
                                   cudaMemcpyHostToDevice));
  });
}

void *CollectiveHarness::setLocal(int arg, int set, int i) const {
  char *base = static_cast<char *>((*memory_)[arg].local(i));
  if (arg == plan_.input)
    return base + set * inStride_;
  if (arg == plan_.output)
    return base + set * outStride_;
  return base;
}

void *CollectiveHarness::setPeers(int arg, int set, int i) const {
  void *table = (*memory_)[arg].peers(i);
  if (!table || set == 0 || (arg != plan_.input && arg != plan_.output))
    return table;
  size_t side = arg == plan_.output ? 1 : 0;
  return static_cast<uint64_t *>(setTables_[i]) +
         (side * layout_.rotatingSets + set) * plan_.world;
}

int CollectiveHarness::nextSet(bool advance) {
  int s = static_cast<int>(callCount_ % layout_.rotatingSets);
  if (advance)
    ++callCount_;
  touched_.resize(layout_.rotatingSets, 0);
  touched_[s] = 1;
  return s;
}

std::vector<char> CollectiveHarness::inputBytes(int64_t n, int i,
                                                uint32_t seed) const {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  const LocalRank &l = comm_.local(i);
  std::vector<char> host(static_cast<size_t>(shape.input) *
                         dtypeSize(plan_.dtype));
  std::vector<char> unused;
  parallelChunks(shape.input, unused, [&](int64_t lo, int64_t hi, char &) {
    for (int64_t k = lo; k < hi; ++k)
      storeElement(host.data(), k, plan_.dtype,
                   seededValue(seed, l.rank, k, plan_.dtype));
  });
  return host;
}

void CollectiveHarness::fillInputs(int64_t n, uint32_t seed) {
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    std::vector<char> host = inputBytes(n, i, seed);
    for (int set = 0; set < layout_.rotatingSets; ++set)
      DSLC_CUDART(l.rank, cudaMemcpy(setLocal(plan_.input, set, i), host.data(),
                                     host.size(), cudaMemcpyHostToDevice));
  });
  // Every rank's input must be in place before any rank reads it.
  comm_.barrier();
}

void CollectiveHarness::poisonOutputs(int64_t n) {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  size_t bytes = static_cast<size_t>(shape.output) * dtypeSize(plan_.dtype);
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    for (int set = 0; set < layout_.rotatingSets; ++set)
      DSLC_CUDART(l.rank, cudaMemsetAsync(setLocal(plan_.output, set, i), 0xff,
                                          bytes, l.stream));
  });
  comm_.waitStreams("output poisoning");
  touched_.assign(layout_.rotatingSets, 0);
  // Peers may store into this rank's output (symmetric outputs): the poison
  // must land everywhere before any rank's next call.
  comm_.barrier();
}

std::vector<BoundArgs> CollectiveHarness::makeArgs(int64_t n, int set) {
  std::vector<BoundArgs> all;
  for (int i = 0; i < comm_.numLocal(); ++i) {
    BoundArgs a = kernel_->args(i);
    std::vector<void *> locals, peers;
    for (int j = 0; j < static_cast<int>(plan_.args.size()); ++j) {
      locals.push_back(setLocal(j, set, i));
      peers.push_back(setPeers(j, set, i));
    }
    bindCollective(a, plan_, n, locals, peers, comm_.local(i).rank);
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
  for (int set = 0; set < layout_.rotatingSets; ++set) {
    if (layout_.rotatingSets > 1 &&
        (set >= static_cast<int>(touched_.size()) || !touched_[set]))
      continue; // not called since the poisoning
    std::vector<void *> outs;
    for (int i = 0; i < comm_.numLocal(); ++i)
      outs.push_back(setLocal(plan_.output, set, i));
    checkAt(n, outs, res,
            layout_.rotatingSets > 1 ? fmt::format("{} (set {})", phase, set)
                                     : std::string(phase));
  }
}

void CollectiveHarness::checkAt(int64_t n, const std::vector<void *> &outs,
                                CollectiveResult &res,
                                const std::string &phase) {
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  size_t es = dtypeSize(plan_.dtype);
  // All-reduce and all-gather results must be bitwise the same on every
  // rank (a user's replicas must not drift apart); with one process driving
  // several GPUs every local rank is compared with the first.
  bool same = plan_.collective != Collective::ReduceScatter;
  std::vector<char> first0;
  for (int i = 0; i < comm_.numLocal(); ++i) {
    const LocalRank &l = comm_.local(i);
    setDevice(l.device, l.rank);
    std::vector<char> host(static_cast<size_t>(shape.output) * es);
    DSLC_CUDART(l.rank, cudaMemcpy(host.data(), outs[i], host.size(),
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
  std::vector<std::vector<BoundArgs>> args; // per rotating set
  try {
    for (int set = 0; set < layout_.rotatingSets; ++set)
      args.push_back(makeArgs(n, set));
  } catch (const Error &e) {
    if (e.code() != ErrorCode::InvalidArgument)
      throw;
    res.error = e.what();
    return res;
  }
  fillInputs(n, o.seed);
  int last = comm_.numLocal() - 1;
  return measure(
      n, o, [&] { kernel_->launchAll(args[nextSet(true)]); },
      [&](int i) {
        int set = nextSet(i == last);
        kernel_->launch(i, args[set][i]);
      },
      [&] { kernel_->synchronize(); }, std::move(res));
}

namespace {
ncclDataType_t ncclType(DType t) {
  return t == DType::BFloat16  ? ncclBfloat16
         : t == DType::Float16 ? ncclFloat16
                               : ncclFloat32;
}
} // namespace

void CollectiveHarness::requireNccl() const {
  if (comm_.isVirtual())
    raise(ErrorCode::InvalidArgument,
          fmt::format("{} harness: NCCL's {} cannot run in a virtual world "
                      "(every rank on one GPU: NCCL refuses two ranks on one "
                      "device)",
                      collectiveName(plan_.collective),
                      collectiveName(plan_.collective)));
}

CollectiveResult CollectiveHarness::runNccl(int64_t n, const RunOptions &o) {
  requireNccl();
  CollectiveResult res = begin(n, o);
  ncclDataType_t type = ncclType(plan_.dtype);
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  int last = comm_.numLocal() - 1;
  auto one = [&](int i) {
    const LocalRank &l = comm_.local(i);
    int set = nextSet(i == last);
    const void *in = setLocal(plan_.input, set, i);
    void *out = setLocal(plan_.output, set, i);
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

CollectiveResult CollectiveHarness::runNcclInPlace(int64_t n,
                                                   const RunOptions &o) {
  requireNccl();
  CollectiveResult res = begin(n, o);
  ncclDataType_t type = ncclType(plan_.dtype);
  CollectiveShape shape = collectiveShape(plan_.collective, n, plan_.world);
  size_t es = dtypeSize(plan_.dtype);
  // Where local rank i's data lives in set `set`: the buffer NCCL works in
  // (the input for all-reduce and reduce-scatter, the output for
  // all-gather), and the byte offset of its own part in it.
  auto buffer = [&](int set, int i) -> char * {
    return static_cast<char *>(setLocal(
        plan_.collective == Collective::AllGather ? plan_.output : plan_.input,
        set, i));
  };
  auto ownPart = [&](int i) -> size_t {
    int rank = comm_.local(i).rank;
    switch (plan_.collective) {
    case Collective::AllReduce:
      return 0;
    case Collective::ReduceScatter:
      return static_cast<size_t>(rank) * shape.output * es;
    case Collective::AllGather:
      return static_cast<size_t>(rank) * shape.input * es;
    }
    return 0;
  };
  int last = comm_.numLocal() - 1;
  auto callOn = [&](int i, int set) {
    const LocalRank &l = comm_.local(i);
    char *buf = buffer(set, i);
    switch (plan_.collective) {
    case Collective::AllReduce:
      DSLC_NCCL(l.rank, ncclAllReduce(buf, buf, shape.output, type, ncclSum,
                                      l.comm, l.stream));
      break;
    case Collective::ReduceScatter:
      DSLC_NCCL(l.rank, ncclReduceScatter(buf, buf + ownPart(i), shape.output,
                                          type, ncclSum, l.comm, l.stream));
      break;
    case Collective::AllGather:
      DSLC_NCCL(l.rank, ncclAllGather(buf + ownPart(i), buf, shape.input, type,
                                      l.comm, l.stream));
      break;
    }
  };
  auto one = [&](int i) { callOn(i, nextSet(i == last)); };
  auto all = [&](const std::function<void(int)> &f) {
    DSLC_NCCL(-1, ncclGroupStart());
    for (int i = 0; i < comm_.numLocal(); ++i) {
      setDevice(comm_.local(i).device, comm_.local(i).rank);
      f(i);
    }
    DSLC_NCCL(-1, ncclGroupEnd());
  };
  auto wait = [&] {
    comm_.waitStreams(
        fmt::format("nccl {} in place", collectiveName(plan_.collective)));
  };
  // Every set gets fresh data: the output poisoned (all-gather), then each
  // rank's input at its own place.
  auto refill = [&](uint32_t seed) {
    comm_.forEach([&](int i) {
      const LocalRank &l = comm_.local(i);
      std::vector<char> host = inputBytes(n, i, seed);
      for (int set = 0; set < layout_.rotatingSets; ++set) {
        if (plan_.collective == Collective::AllGather)
          DSLC_CUDART(l.rank,
                      cudaMemset(buffer(set, i), 0xff,
                                 static_cast<size_t>(shape.output) * es));
        DSLC_CUDART(l.rank, cudaMemcpy(buffer(set, i) + ownPart(i), host.data(),
                                       host.size(), cudaMemcpyHostToDevice));
      }
    });
    comm_.barrier();
  };
  PhaseHooks h;
  h.callAll = [&] { all(one); };
  h.callOne = one;
  h.wait = wait;
  h.prepare = [&] { refill(o.seed); };
  // The timed calls reduce their own results: check one call on fresh data.
  h.check = [&](const char *phase) {
    refill(o.seed);
    all([&](int i) { callOn(i, 0); });
    wait();
    std::vector<void *> outs;
    for (int i = 0; i < comm_.numLocal(); ++i)
      outs.push_back(
          buffer(0, i) +
          (plan_.collective == Collective::ReduceScatter ? ownPart(i) : 0));
    checkAt(n, outs, res, std::string(phase) + ", in place");
  };
  measurePhases(comm_, o, h, res.eager, res.graph);
  return res;
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
