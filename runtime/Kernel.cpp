//===- Kernel.cpp - Loading and launching dslc kernels --------------------===//
#include "runtime/Kernel.h"

#include "runtime/CudaDriver.h"
#include "runtime/Error.h"
#include "runtime/KernelError.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace dslc::rt {

std::string expandRankPattern(const std::string &pattern, int rank) {
  std::string out = pattern;
  const std::string key = "{rank}";
  for (size_t pos = out.find(key); pos != std::string::npos;
       pos = out.find(key, pos))
    out.replace(pos, key.size(), std::to_string(rank));
  return out;
}

bool parseSmArch(const std::string &arch, int &major, int &minor) {
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5)
    return false;
  size_t i = 3;
  while (i < arch.size() && isdigit(static_cast<unsigned char>(arch[i])))
    ++i;
  if (i < 5 ||
      (i != arch.size() && arch.substr(i) != "a" && arch.substr(i) != "f"))
    return false;
  int num = std::stoi(arch.substr(3, i - 3));
  major = num / 10;
  minor = num % 10;
  return true;
}

static int64_t defaultKernelTimeout(int64_t requested) {
  if (requested >= 0)
    return requested;
  if (const char *env = std::getenv("DSLC_TIMEOUT_MS")) {
    char *end = nullptr;
    long long v = std::strtoll(env, &end, 10);
    if (end == env || *end || v < 0)
      raise(ErrorCode::InvalidArgument,
            fmt::format("DSLC_TIMEOUT_MS='{}' is not a non-negative integer",
                        env));
    return v;
  }
  return 5000;
}

std::unique_ptr<Kernel> Kernel::load(Communicator &comm,
                                     const std::string &cubinPath,
                                     const std::string &metadataPath,
                                     KernelOptions opts) {
  std::vector<std::string> images;
  std::vector<KernelMetadata> mds;
  for (int i = 0; i < comm.numLocal(); ++i) {
    int rank = comm.local(i).rank;
    std::string cubin = expandRankPattern(cubinPath, rank);
    std::string meta = metadataPath.empty()
                           ? cubin + ".json"
                           : expandRankPattern(metadataPath, rank);
    try {
      images.push_back(readFile(cubin));
      mds.push_back(loadMetadataFile(meta));
    } catch (const Error &e) {
      raise(e.code(), rankPrefix(rank) + e.what());
    }
  }
  return loadImages(comm, images, mds, opts);
}

std::unique_ptr<Kernel>
Kernel::loadImages(Communicator &comm, const std::vector<std::string> &images,
                   const std::vector<KernelMetadata> &metadata,
                   KernelOptions opts) {
  int n = comm.numLocal();
  auto pick = [n](size_t count, const char *what) {
    if (count != 1 && count != static_cast<size_t>(n))
      raise(ErrorCode::InvalidArgument,
            fmt::format("Kernel::loadImages: {} {} given for {} local ranks",
                        count, what, n));
  };
  pick(images.size(), "images");
  pick(metadata.size(), "metadata");
  std::unique_ptr<Kernel> k(new Kernel(comm));
  k->timeoutMs_ = defaultKernelTimeout(opts.timeoutMs);
  k->ranks_.resize(n);
  try {
    for (int i = 0; i < n; ++i)
      k->loadRank(i, images.size() == 1 ? images[0] : images[i],
                  metadata.size() == 1 ? metadata[0] : metadata[i]);
    // Rank-specialized cubins can differ in registers and so in occupancy;
    // every rank launches the grid the tightest rank can hold. Ranks that
    // share a GPU (a virtual world) share its co-resident CTAs.
    std::vector<int> resident;
    for (int i = 0; i < n; ++i)
      resident.push_back(k->ranks_[i].maxActivePerSm * comm.local(i).numSms);
    int agreed = comm.allReduceMin(resident);
    int share = agreed / comm.ranksPerDevice();
    if (share < 1 && k->ranks_[0].md.spins)
      raise(ErrorCode::InvalidArgument, k->coResidencyProblem(agreed));
    for (int i = 0; i < n; ++i)
      k->ranks_[i].resident = share;
  } catch (...) {
    k->release();
    k->ranks_.clear();
    throw;
  }
  return k;
}

void Kernel::loadRank(int i, const std::string &image, KernelMetadata md) {
  const LocalRank &l = comm_.local(i);
  PerRank &r = ranks_[i];
  r.md = std::move(md);
  const DriverApi &cu = driver();
  setDevice(l.device, l.rank);
  DSLC_CUDART(l.rank, cudaFree(nullptr)); // make the primary context current
  int major = 0, minor = 0;
  if (!r.md.arch.empty() && parseSmArch(r.md.arch, major, minor) &&
      (major != l.ccMajor || minor > l.ccMinor))
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {}: kernel {} was compiled for {}, device {} is "
                      "sm_{}{}",
                      l.rank, r.md.kernel, r.md.arch, l.device, l.ccMajor,
                      l.ccMinor));
  if (r.md.worldSize && *r.md.worldSize != comm_.worldSize())
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {}: kernel {} was compiled for world size {}, the "
                      "communicator has {}",
                      l.rank, r.md.kernel, *r.md.worldSize, comm_.worldSize()));
  if (r.md.rank && *r.md.rank != l.rank)
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {}: kernel {} was compiled for rank {} (load one "
                      "cubin per rank: put {{rank}} in the path)",
                      l.rank, r.md.kernel, *r.md.rank));
  DSLC_CU(l.rank, cu.cuModuleLoadData(&r.module, image.data()));
  CUresult res =
      cu.cuModuleGetFunction(&r.function, r.module, r.md.entry.c_str());
  if (res == CUDA_ERROR_NOT_FOUND)
    raise(ErrorCode::Metadata,
          fmt::format("rank {}: the cubin of kernel {} has no entry point "
                      "'{}'",
                      l.rank, r.md.kernel, r.md.entry));
  DSLC_CU(l.rank, res);
  checkSignature(r, l.rank);
  int maxThreads = 0;
  DSLC_CU(l.rank, cu.cuFuncGetAttribute(&maxThreads,
                                        CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                        r.function));
  if (maxThreads < r.md.threadsPerCta())
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {}: kernel {} needs {} threads per CTA, its "
                      "cubin allows {}",
                      l.rank, r.md.kernel, r.md.threadsPerCta(), maxThreads));
  reserveDynamicShared(r, l);
  DSLC_CU(l.rank, cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                      &r.maxActivePerSm, r.function, r.md.threadsPerCta(),
                      r.dynamicShared));
  if (r.md.stateBytes > 0) {
    DSLC_CUDART(l.rank, cudaMalloc(&r.state, r.md.stateBytes));
    DSLC_CUDART(l.rank, cudaMemset(r.state, 0, r.md.stateBytes));
  }
  void *rec = nullptr;
  DSLC_CUDART(l.rank,
              cudaHostAlloc(&rec, sizeof(DslcErrorRecord),
                            cudaHostAllocMapped | cudaHostAllocPortable));
  r.record = static_cast<DslcErrorRecord *>(rec);
  DSLC_CUDART(l.rank,
              cudaEventCreateWithFlags(&r.foreignDone, cudaEventDisableTiming));
  std::memset(r.record, 0, sizeof(DslcErrorRecord));
  DSLC_CUDART(l.rank, cudaHostGetDevicePointer(&r.recordDevice, rec, 0));
  DSLC_CUDART(l.rank, cudaDeviceSynchronize());
}

void Kernel::reserveDynamicShared(PerRank &r, const LocalRank &l) const {
  const DriverApi &cu = driver();
  int staticBytes = 0;
  DSLC_CU(l.rank, cu.cuFuncGetAttribute(&staticBytes,
                                        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                        r.function));
  // dslc's cubins declare their workspace dynamic (docs/kernel-abi.md);
  // a cubin whose workspace is static already holds it.
  int64_t dynamic = std::max<int64_t>(0, r.md.sharedBytes - staticBytes);
  if (dynamic == 0)
    return;
  int optIn = 0;
  DSLC_CUDART(l.rank,
              cudaDeviceGetAttribute(
                  &optIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, l.device));
  if (dynamic + staticBytes > optIn)
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {}: kernel {} needs {} bytes of shared memory per "
                      "CTA, device {} (sm_{}{}) allows {}: compile it with "
                      "smaller block sizes",
                      l.rank, r.md.kernel, dynamic + staticBytes, l.device,
                      l.ccMajor, l.ccMinor, optIn));
  r.dynamicShared = static_cast<unsigned>(dynamic);
  DSLC_CU(l.rank,
          cu.cuFuncSetAttribute(r.function,
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(dynamic)));
}

std::string Kernel::coResidencyProblem(int64_t resident) const {
  const PerRank &r = ranks_[0];
  const LocalRank &l = comm_.local(0);
  int regs = 0, shared = 0;
  (void)driver().cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                    r.function);
  (void)driver().cuFuncGetAttribute(
      &shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, r.function);
  return fmt::format(
      "kernel {} waits for its peers, so every rank's CTAs must be resident "
      "on the GPU at once, but a virtual world of {} ranks on device {} "
      "cannot hold one CTA per rank: {} SMs x {} CTAs per SM ({} threads, "
      "{} registers per thread, {} bytes of shared memory per CTA) = {} "
      "CTAs; use a smaller world or smaller CTAs (num_warps)",
      r.md.kernel, comm_.worldSize(), l.device, l.numSms, r.maxActivePerSm,
      r.md.threadsPerCta(), regs, shared + r.dynamicShared, resident);
}

void Kernel::checkSignature(const PerRank &r, int rank) const {
  const DriverApi &cu = driver();
  if (!cu.cuFuncGetParamInfo)
    return;
  size_t offset = 0, size = 0;
  for (size_t i = 0; i < r.md.abi.size(); ++i) {
    CUresult res = cu.cuFuncGetParamInfo(r.function, i, &offset, &size);
    if (res == CUDA_ERROR_INVALID_VALUE)
      raise(ErrorCode::Metadata,
            fmt::format("rank {}: kernel {}: the metadata lists {} ABI slots, "
                        "the cubin's entry takes {}",
                        rank, r.md.kernel, r.md.abi.size(), i));
    DSLC_CU(rank, res);
    size_t want = r.md.abi[i].type == SlotType::F32 ? 4 : 8;
    if (size != want)
      raise(ErrorCode::Metadata,
            fmt::format("rank {}: kernel {}: ABI slot {} '{}' is {} bytes in "
                        "the metadata, {} in the cubin",
                        rank, r.md.kernel, i, r.md.abi[i].name, want, size));
  }
  if (cu.cuFuncGetParamInfo(r.function, r.md.abi.size(), &offset, &size) ==
      CUDA_SUCCESS)
    raise(ErrorCode::Metadata,
          fmt::format("rank {}: kernel {}: the cubin's entry takes more than "
                      "the {} ABI slots of the metadata",
                      rank, r.md.kernel, r.md.abi.size()));
}

const KernelMetadata &Kernel::metadata(int localIndex) const {
  if (localIndex < 0 || localIndex >= static_cast<int>(ranks_.size()))
    raise(ErrorCode::InvalidArgument,
          fmt::format("local rank index {} out of range", localIndex));
  return ranks_[localIndex].md;
}

const DslcErrorRecord &Kernel::errorRecord(int localIndex) const {
  (void)metadata(localIndex);
  return *ranks_[localIndex].record;
}

void Kernel::setTimeoutMs(int64_t ms) {
  if (ms < 0)
    raise(ErrorCode::InvalidArgument, "kernel timeout must be >= 0 ms");
  timeoutMs_ = ms;
}

int Kernel::maxActivePerSm(int localIndex) const {
  (void)metadata(localIndex);
  return ranks_[localIndex].maxActivePerSm;
}

BoundArgs Kernel::args(int localIndex) const {
  BoundArgs a(metadata(localIndex));
  a.setTeams(comm_.teams(localIndex));
  return a;
}

int64_t Kernel::gridFor(int localIndex, const BoundArgs &args) const {
  const PerRank &r = ranks_.at(localIndex);
  return planGridResident(r.md, args.numTiles(), r.resident);
}

void Kernel::launch(int localIndex, const BoundArgs &args,
                    cudaStream_t stream) {
  const KernelMetadata &md = metadata(localIndex);
  PerRank &r = ranks_[localIndex];
  const LocalRank &l = comm_.local(localIndex);
  if (&args.metadata() != &md)
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {}: kernel {}: the arguments were made for "
                      "another kernel or rank (use kernel.args({}))",
                      l.rank, md.kernel, localIndex));
  args.check(comm_.worldSize(), l.rank);
  int64_t grid = planGridResident(md, args.numTiles(), r.resident);
  if (grid == 0)
    return;
  HiddenArgs hidden;
  hidden.timeoutNs = timeoutMs_ * 1000000;
  hidden.errorRecord = r.recordDevice;
  hidden.state = r.state;
  ParamBuffer params = packParams(args, hidden);
  cudaStream_t s = l.resolve(stream);
  setDevice(l.device, l.rank);
  DSLC_CU(l.rank, driver().cuLaunchKernel(
                      r.function, static_cast<unsigned>(grid), 1, 1,
                      static_cast<unsigned>(md.threadsPerCta()), 1, 1,
                      r.dynamicShared, s, params.pointers(), nullptr));
  if (s == l.stream)
    return;
  // The caller's stream: synchronize() must wait for this launch too.
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  DSLC_CUDART(l.rank, cudaStreamIsCapturing(s, &cap));
  if (cap != cudaStreamCaptureStatusNone)
    return;
  DSLC_CUDART(l.rank, cudaEventRecord(r.foreignDone, s));
  r.foreignPending = true;
}

void Kernel::waitForeignLaunches(int64_t timeoutMs) {
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < ranks_.size(); ++i) {
    PerRank &r = ranks_[i];
    const LocalRank &l = comm_.local(static_cast<int>(i));
    while (r.foreignPending) {
      setDevice(l.device, l.rank);
      cudaError_t st = cudaEventQuery(r.foreignDone);
      if (st == cudaSuccess) {
        r.foreignPending = false;
        break;
      }
      if (st != cudaErrorNotReady) {
        r.foreignPending = false;
        checkCudart(st,
                    fmt::format("cudaEventQuery (kernel {}: waiting for its "
                                "launch on the caller's stream)",
                                r.md.kernel)
                        .c_str(),
                    l.rank);
      }
      auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
      if (timeoutMs > 0 && waited >= timeoutMs)
        raise(ErrorCode::Timeout,
              fmt::format("rank {}: kernel {}: its launch on the caller's "
                          "stream did not finish within {} ms (that stream "
                          "may be blocked by other work, or a peer died)",
                          l.rank, r.md.kernel, timeoutMs));
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

void Kernel::launchAll(const std::vector<BoundArgs> &args) {
  if (static_cast<int>(args.size()) != comm_.numLocal())
    raise(ErrorCode::InvalidArgument,
          fmt::format("launchAll: {} argument sets for {} local ranks",
                      args.size(), comm_.numLocal()));
  for (int i = 0; i < comm_.numLocal(); ++i)
    launch(i, args[i]);
}

std::string Kernel::collectRecords() const {
  std::string all;
  for (size_t i = 0; i < ranks_.size(); ++i) {
    // The record is host-mapped; the kernel wrote it with fence.sc.sys.
    DslcErrorRecord rec;
    std::memcpy(&rec, const_cast<const DslcErrorRecord *>(ranks_[i].record),
                sizeof(rec));
    std::string msg = formatErrorRecord(
        rec, ranks_[i].md, comm_.local(static_cast<int>(i)).rank, timeoutMs_);
    if (!msg.empty())
      all += (all.empty() ? "" : "\n") + msg;
  }
  return all;
}

void Kernel::checkErrorRecords() {
  std::string msg = collectRecords();
  if (!msg.empty()) {
    comm_.markFailed();
    raise(ErrorCode::KernelTimeout, msg);
  }
}

void Kernel::synchronize() {
  int64_t host = comm_.hostTimeoutMs();
  if (timeoutMs_ > 0 && timeoutMs_ + 10000 > host)
    host = timeoutMs_ + 10000;
  const std::string what =
      fmt::format("kernel {}", ranks_.empty() ? "?" : ranks_[0].md.kernel);
  try {
    comm_.waitStreams(what, host);
    waitForeignLaunches(host);
  } catch (const Error &e) {
    comm_.markFailed();
    std::string records = collectRecords();
    if (!records.empty())
      raise(ErrorCode::KernelTimeout,
            fmt::format("{}\n(the launch then failed: {})", records, e.what()));
    throw;
  }
  checkErrorRecords();
}

void Kernel::resetState() {
  comm_.forEach([&](int i) {
    PerRank &r = ranks_[i];
    if (r.state)
      DSLC_CUDART(comm_.local(i).rank, cudaMemset(r.state, 0, r.md.stateBytes));
    std::memset(r.record, 0, sizeof(DslcErrorRecord));
  });
}

void Kernel::release() {
  bool quiet = comm_.failed();
  for (size_t i = 0; i < ranks_.size(); ++i) {
    PerRank &r = ranks_[i];
    const LocalRank &l = comm_.local(static_cast<int>(i));
    (void)cudaSetDevice(l.device);
    if (r.module) {
      CUresult res = CUDA_SUCCESS;
      try {
        res = driver().cuModuleUnload(r.module);
      } catch (...) {
      }
      if (res != CUDA_SUCCESS && !quiet)
        std::fprintf(stderr,
                     "dslc runtime: rank %d: cuModuleUnload failed during "
                     "teardown (%d)\n",
                     l.rank, static_cast<int>(res));
    }
    if (r.state)
      (void)cudaFree(r.state);
    if (r.record)
      (void)cudaFreeHost(r.record);
    if (r.foreignDone)
      (void)cudaEventDestroy(r.foreignDone);
    r = PerRank();
  }
  (void)cudaGetLastError();
}

Kernel::~Kernel() { release(); }

} // namespace dslc::rt
