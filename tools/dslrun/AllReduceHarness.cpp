//===- AllReduceHarness.cpp - Run and check an all-reduce kernel ----------===//
#include "tools/dslrun/AllReduceHarness.h"

#include <nccl.h>

#include <exception>
#include <functional>

#include "runtime/Error.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

namespace dslc::run {

using namespace dslc::rt;

uint16_t floatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) // NaN
    return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

float bf16ToFloat(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

namespace {
/// Deterministic input element of `rank` at `i` (already representable).
float inputValue(uint32_t seed, int rank, int64_t i, DType t) {
  uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull ^
               (static_cast<uint64_t>(rank + 1) * 0xBF58476D1CE4E5B9ull) ^ seed;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  float v = static_cast<float>(static_cast<int64_t>(x % 2001) - 1000) / 37.0f;
  return t == DType::BFloat16 ? bf16ToFloat(floatToBf16(v)) : v;
}

float roundTo(float v, DType t) {
  return t == DType::BFloat16 ? bf16ToFloat(floatToBf16(v)) : v;
}
} // namespace

AllReduceRoles findAllReduceRoles(const KernelMetadata &md) {
  AllReduceRoles r;
  for (size_t i = 0; i < md.args.size(); ++i) {
    const ArgSpec &a = md.args[i];
    int idx = static_cast<int>(i);
    if (a.kind != ArgSpec::Kind::Tensor)
      continue;
    if (a.isOutput && a.rank == 1 && r.output < 0)
      r.output = idx;
    else if (a.symmetric && a.rank == 1 && a.dtype == DType::Int64 &&
             r.scratch < 0)
      r.scratch = idx;
    else if (a.symmetric && a.rank == 1 && r.input < 0)
      r.input = idx;
    else if (!a.isOutput && a.rank == 1 && a.dtype == DType::UInt64 &&
             r.padTable < 0)
      r.padTable = idx;
    else if (!a.isOutput && a.rank == 2 &&
             (a.dtype == DType::Int32 || a.dtype == DType::UInt32) &&
             r.pad < 0)
      r.pad = idx;
  }
  // An LL kernel's input need not be symmetric: it is what the output is
  // like.
  if (r.input < 0 && r.output >= 0)
    r.input = md.findArg(md.args[r.output].like);
  std::string missing;
  if (r.input < 0)
    missing += " a symmetric rank-1 input;";
  if (!r.packets()) {
    if (r.padTable < 0)
      missing += " a uint64 rank-1 signal pad table (or a symmetric int64 "
                 "packet scratch);";
    if (r.pad < 0)
      missing += " an int32 rank-2 signal pad;";
  }
  if (r.output < 0)
    missing += " a rank-1 output;";
  if (!missing.empty())
    raise(ErrorCode::InvalidArgument,
          fmt::format("kernel {} does not look like an all-reduce: "
                      "it lacks{}",
                      md.kernel, missing));
  DType in = md.args[r.input].dtype;
  if (in != DType::BFloat16 && in != DType::Float32)
    raise(ErrorCode::InvalidArgument,
          fmt::format("kernel {}: the all-reduce harness handles bfloat16 and "
                      "float32 inputs, not {}",
                      md.kernel, dtypeName(in)));
  if (md.args[r.output].dtype != in)
    raise(ErrorCode::InvalidArgument,
          fmt::format("kernel {}: output dtype {} differs from input dtype {}",
                      md.kernel, dtypeName(md.args[r.output].dtype),
                      dtypeName(in)));
  return r;
}

AllReduceHarness::AllReduceHarness(Communicator &comm, Kernel &kernel,
                                   int64_t maxN)
    : comm_(comm), kernel_(kernel), maxN_(maxN) {
  if (maxN < 1)
    raise(ErrorCode::InvalidArgument, "all-reduce harness: maxN < 1");
  roles_ = findAllReduceRoles(kernel.metadata(0));
  dtype_ = kernel.metadata(0).args[roles_.input].dtype;
  // Pad rows: the tile count for the largest size (extents that are not
  // constants are taken to be the input's length).
  const KernelMetadata &md = kernel.metadata(0);
  padRows_ = 1;
  for (const GridTile &tile : md.tiles) {
    int64_t extent = tile.extent.kind == Extent::Kind::Const ? tile.extent.value
                                                             : maxN;
    padRows_ *= (extent + tile.block - 1) / tile.block;
  }
  padRows_ = std::max<int64_t>(padRows_, 1);
  int world = comm.worldSize();
  size_t inBytes = static_cast<size_t>(maxN) * dtypeSize(dtype_);
  size_t padBytes = static_cast<size_t>(padRows_) * world * 4;
  if (roles_.packets()) {
    // Two parities of world * tiles * block elements, as LL16 packets
    // (16 bytes per 8 data bytes).
    int64_t block = md.tiles.empty() ? 1 : md.tiles.front().block;
    padBytes = size_t(2) * world * padRows_ * block * dtypeSize(dtype_) * 2;
  }
  heap_ = std::make_unique<SymmetricHeap>(comm, inBytes + padBytes +
                                                    (size_t(4) << 20));
  input_ = heap_->alloc(inBytes, 256);
  pad_ = heap_->allocSignalPad(padBytes);
  padBytes_ = padBytes;
  out_.assign(comm.numLocal(), nullptr);
  comm.forEach([&](int i) {
    DSLC_CUDART(comm.local(i).rank, cudaMalloc(&out_[i], inBytes));
  });
}

AllReduceHarness::~AllReduceHarness() {
  for (int i = 0; i < static_cast<int>(out_.size()); ++i) {
    if (!out_[i])
      continue;
    (void)cudaSetDevice(comm_.local(i).device);
    (void)cudaFree(out_[i]);
  }
  if (heap_ && !comm_.failed()) {
    try {
      if (input_.valid())
        heap_->free(input_);
      if (pad_.valid())
        heap_->free(pad_);
    } catch (...) {
    }
  }
}

void AllReduceHarness::fillInputs(int64_t n, uint32_t seed) {
  size_t es = dtypeSize(dtype_);
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    std::vector<char> host(static_cast<size_t>(n) * es);
    for (int64_t k = 0; k < n; ++k) {
      float v = inputValue(seed, l.rank, k, dtype_);
      if (dtype_ == DType::BFloat16) {
        uint16_t h = floatToBf16(v);
        std::memcpy(&host[k * 2], &h, 2);
      } else {
        std::memcpy(&host[k * 4], &v, 4);
      }
    }
    DSLC_CUDART(l.rank, cudaMemcpy(input_.local[i], host.data(), host.size(),
                                   cudaMemcpyHostToDevice));
  });
  // Every rank's input must be in place before any rank reads it.
  comm_.barrier();
}

void AllReduceHarness::poisonOutputs(int64_t n) {
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    DSLC_CUDART(l.rank, cudaMemsetAsync(out_[i], 0xff,
                                        static_cast<size_t>(n) * dtypeSize(dtype_),
                                        l.stream));
  });
  comm_.waitStreams("output reset");
}

std::vector<BoundArgs> AllReduceHarness::makeArgs(int64_t n) {
  std::vector<BoundArgs> all;
  int world = comm_.worldSize();
  for (int i = 0; i < comm_.numLocal(); ++i) {
    const KernelMetadata &md = kernel_.metadata(i);
    BoundArgs a = kernel_.args(i);
    a.setTensor(roles_.input,
                input_.tensor(i, dtype_, {n}, md.args[roles_.input].symmetric));
    if (roles_.packets()) {
      a.setTensor(roles_.scratch,
                  pad_.tensor(i, DType::Int64,
                              {static_cast<int64_t>(padBytes_ / 8)}));
    } else {
      TensorArg table;
      table.data = pad_.peers[i];
      table.dtype = DType::UInt64;
      table.sizes = {world};
      a.setTensor(roles_.padTable, table);
      a.setTensor(roles_.pad, pad_.tensor(i, md.args[roles_.pad].dtype,
                                          {padRows_, world}, false));
    }
    TensorArg out;
    out.data = out_[i];
    out.dtype = dtype_;
    out.sizes = {n};
    a.setTensor(roles_.output, out);
    all.push_back(std::move(a));
  }
  return all;
}

void AllReduceHarness::check(int64_t n, AllReduceResult &res,
                             const char *phase) {
  // The seed is folded into the values; recompute the reference per element.
  size_t es = dtypeSize(dtype_);
  int world = comm_.worldSize();
  for (int i = 0; i < comm_.numLocal(); ++i) {
    const LocalRank &l = comm_.local(i);
    setDevice(l.device, l.rank);
    std::vector<char> host(static_cast<size_t>(n) * es);
    DSLC_CUDART(l.rank, cudaMemcpy(host.data(), out_[i], host.size(),
                                   cudaMemcpyDeviceToHost));
    for (int64_t k = 0; k < n; ++k) {
      float ref = 0.0f;
      for (int r = 0; r < world; ++r)
        ref = roundTo(ref + inputValue(seed_, r, k, dtype_), dtype_);
      float got;
      if (dtype_ == DType::BFloat16) {
        uint16_t h;
        std::memcpy(&h, &host[k * 2], 2);
        got = bf16ToFloat(h);
      } else {
        std::memcpy(&got, &host[k * 4], 4);
      }
      // Exact for the reference order; allow one bf16 ulp for kernels
      // that sum in another order.
      float tol = dtype_ == DType::BFloat16 ? std::fabs(ref) / 128.0f + 1e-6f
                                            : std::fabs(ref) * 1e-6f + 1e-6f;
      if (!(std::fabs(got - ref) <= tol)) {
        if (res.mismatches == 0)
          res.firstMismatch =
              fmt::format("{}: rank {}: element {} of {}: got {}, expected {}",
                          phase, l.rank, k, n, got, ref);
        ++res.mismatches;
      }
    }
  }
}

AllReduceResult AllReduceHarness::run(int64_t n, int iters, int graphReplays,
                                      uint32_t seed) {
  std::vector<BoundArgs> args;
  return measure(
      n, iters, graphReplays, seed, [&] { args = makeArgs(n); },
      [&] { kernel_.launchAll(args); },
      [&](int i) { kernel_.launch(i, args[i]); },
      [&] { kernel_.synchronize(); });
}

AllReduceResult AllReduceHarness::runNccl(int64_t n, int iters,
                                          int graphReplays, uint32_t seed) {
  ncclDataType_t type = dtype_ == DType::BFloat16 ? ncclBfloat16 : ncclFloat32;
  auto one = [&](int i) {
    const LocalRank &l = comm_.local(i);
    DSLC_NCCL(l.rank, ncclAllReduce(input_.local[i], out_[i], n, type, ncclSum,
                                    l.comm, l.stream));
  };
  return measure(
      n, iters, graphReplays, seed, [] {},
      [&] {
        DSLC_NCCL(-1, ncclGroupStart());
        for (int i = 0; i < comm_.numLocal(); ++i) {
          setDevice(comm_.local(i).device, comm_.local(i).rank);
          one(i);
        }
        DSLC_NCCL(-1, ncclGroupEnd());
      },
      one, [&] { comm_.waitStreams("ncclAllReduce"); });
}

AllReduceResult AllReduceHarness::measure(
    int64_t n, int iters, int graphReplays, uint32_t seed,
    const std::function<void()> &prepare, const std::function<void()> &callAll,
    const std::function<void(int)> &callOne,
    const std::function<void()> &wait) {
  if (n < 1 || n > maxN_)
    raise(ErrorCode::InvalidArgument,
          fmt::format("all-reduce harness: size {} outside 1..{}", n, maxN_));
  seed_ = seed;
  AllReduceResult res;
  res.n = n;
  fillInputs(n, seed);
  prepare();
  const LocalRank &l0 = comm_.local(0);
  cudaEvent_t start = nullptr, stop = nullptr;
  setDevice(l0.device, l0.rank);
  DSLC_CUDART(l0.rank, cudaEventCreate(&start));
  DSLC_CUDART(l0.rank, cudaEventCreate(&stop));
  try {
    if (iters > 0) {
      poisonOutputs(n);
      setDevice(l0.device, l0.rank);
      DSLC_CUDART(l0.rank, cudaEventRecord(start, l0.stream));
      for (int it = 0; it < iters; ++it)
        callAll();
      setDevice(l0.device, l0.rank);
      DSLC_CUDART(l0.rank, cudaEventRecord(stop, l0.stream));
      wait();
      float ms = 0;
      DSLC_CUDART(l0.rank, cudaEventElapsedTime(&ms, start, stop));
      res.eagerUsPerCall = ms * 1000.0 / iters;
      check(n, res, "back-to-back calls");
    }
    if (graphReplays > 0) {
      poisonOutputs(n);
      int nl = comm_.numLocal();
      std::vector<cudaGraph_t> graphs(nl, nullptr);
      std::vector<cudaGraphExec_t> execs(nl, nullptr);
      try {
        // Every local rank's stream is captured at once (NCCL needs the
        // calls of one group in flight together when one thread drives
        // several GPUs).
        for (int i = 0; i < nl; ++i) {
          const LocalRank &l = comm_.local(i);
          setDevice(l.device, l.rank);
          DSLC_CUDART(l.rank, cudaStreamBeginCapture(
                                  l.stream, cudaStreamCaptureModeRelaxed));
        }
        std::exception_ptr failure;
        try {
          if (nl > 1)
            DSLC_NCCL(-1, ncclGroupStart());
          for (int i = 0; i < nl; ++i) {
            setDevice(comm_.local(i).device, comm_.local(i).rank);
            callOne(i);
          }
          if (nl > 1)
            DSLC_NCCL(-1, ncclGroupEnd());
        } catch (...) {
          failure = std::current_exception();
        }
        for (int i = 0; i < nl; ++i) {
          const LocalRank &l = comm_.local(i);
          setDevice(l.device, l.rank);
          cudaError_t e = cudaStreamEndCapture(l.stream, &graphs[i]);
          if (!failure)
            DSLC_CUDART(l.rank, e);
        }
        if (failure)
          std::rethrow_exception(failure);
        for (int i = 0; i < nl; ++i) {
          const LocalRank &l = comm_.local(i);
          setDevice(l.device, l.rank);
          DSLC_CUDART(l.rank, cudaGraphInstantiate(&execs[i], graphs[i], 0));
        }
        setDevice(l0.device, l0.rank);
        DSLC_CUDART(l0.rank, cudaEventRecord(start, l0.stream));
        for (int it = 0; it < graphReplays; ++it)
          for (int i = 0; i < nl; ++i) {
            const LocalRank &l = comm_.local(i);
            setDevice(l.device, l.rank);
            DSLC_CUDART(l.rank, cudaGraphLaunch(execs[i], l.stream));
          }
        setDevice(l0.device, l0.rank);
        DSLC_CUDART(l0.rank, cudaEventRecord(stop, l0.stream));
        wait();
        float ms = 0;
        DSLC_CUDART(l0.rank, cudaEventElapsedTime(&ms, start, stop));
        res.graphUsPerCall = ms * 1000.0 / graphReplays;
        check(n, res, "graph replays");
      } catch (...) {
        for (int i = 0; i < nl; ++i) {
          (void)cudaSetDevice(comm_.local(i).device);
          if (execs[i])
            (void)cudaGraphExecDestroy(execs[i]);
          if (graphs[i])
            (void)cudaGraphDestroy(graphs[i]);
        }
        throw;
      }
      for (int i = 0; i < nl; ++i) {
        const LocalRank &l = comm_.local(i);
        setDevice(l.device, l.rank);
        DSLC_CUDART(l.rank, cudaGraphExecDestroy(execs[i]));
        DSLC_CUDART(l.rank, cudaGraphDestroy(graphs[i]));
      }
    }
  } catch (...) {
    (void)cudaSetDevice(l0.device);
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    throw;
  }
  setDevice(l0.device, l0.rank);
  DSLC_CUDART(l0.rank, cudaEventDestroy(start));
  DSLC_CUDART(l0.rank, cudaEventDestroy(stop));
  return res;
}

} // namespace dslc::run
