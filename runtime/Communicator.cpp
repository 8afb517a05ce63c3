//===- Communicator.cpp - NCCL communicator over the local GPUs -----------===//
#include "runtime/Communicator.h"

#include "runtime/CudaDriver.h"
#include "runtime/Error.h"
#include "runtime/NcclAsync.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace dslc::rt {

static_assert(sizeof(ncclUniqueId) == sizeof(UniqueIdBytes),
              "ncclUniqueId is 128 bytes");

void setDevice(int device, int rank) {
  DSLC_CUDART(rank, cudaSetDevice(device));
}

void Communicator::applySafeEnvironment() {
  // Never NVLink multicast (it can take a shared host's GPUs out of service).
  setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  setenv("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1", 0);
  setenv("NVSHMEM_DISABLE_NVLS", "1", 0);
}

void Communicator::reserveVirtualWorldQueues() {
  setenv("CUDA_DEVICE_MAX_CONNECTIONS",
         std::to_string(kMaxVirtualWorld).c_str(), /*overwrite=*/0);
}

int Communicator::deviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

UniqueIdBytes Communicator::newUniqueId() {
  applySafeEnvironment();
  ncclUniqueId id;
  DSLC_NCCL(-1, ncclGetUniqueId(&id));
  UniqueIdBytes bytes;
  std::memcpy(bytes.data(), &id, sizeof(id));
  return bytes;
}

void Communicator::setupLocals() {
  for (LocalRank &l : locals_) {
    setDevice(l.device, l.rank);
    DSLC_CUDART(l.rank,
                cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
    DSLC_CUDART(l.rank, cudaMalloc(reinterpret_cast<void **>(&l.scratch), 16));
    DSLC_CUDART(l.rank, cudaMemset(l.scratch, 0, 16));
    DSLC_CUDART(l.rank, cudaDeviceGetAttribute(&l.numSms,
                                               cudaDevAttrMultiProcessorCount,
                                               l.device));
    DSLC_CUDART(l.rank,
                cudaDeviceGetAttribute(
                    &l.ccMajor, cudaDevAttrComputeCapabilityMajor, l.device));
    DSLC_CUDART(l.rank,
                cudaDeviceGetAttribute(
                    &l.ccMinor, cudaDevAttrComputeCapabilityMinor, l.device));
    DSLC_CUDART(l.rank, cudaDeviceSynchronize());
  }
}

std::unique_ptr<Communicator>
Communicator::createAll(const std::vector<int> &devicesIn, CommOptions opts) {
  applySafeEnvironment();
  int count = 0;
  DSLC_CUDART(-1, cudaGetDeviceCount(&count));
  std::vector<int> devices = devicesIn;
  if (devices.empty())
    for (int d = 0; d < count; ++d)
      devices.push_back(d);
  for (int d : devices)
    if (d < 0 || d >= count)
      raise(ErrorCode::InvalidArgument,
            fmt::format("device {} does not exist ({} visible)", d, count));
  std::unique_ptr<Communicator> c(new Communicator());
  c->worldSize_ = static_cast<int>(devices.size());
  c->hostTimeoutMs_ = resolveHostTimeoutMs(opts.hostTimeoutMs);
  for (size_t i = 0; i < devices.size(); ++i) {
    LocalRank l;
    l.rank = static_cast<int>(i);
    l.device = devices[i];
    c->locals_.push_back(l);
  }
  // ncclCommInitAll's equivalent (one id, every rank in one group), with
  // non-blocking communicators.
  c->initComms(newUniqueId());
  c->setupLocals();
  return c;
}

std::unique_ptr<Communicator> Communicator::createRank(int rank, int worldSize,
                                                       int device,
                                                       const UniqueIdBytes &id,
                                                       CommOptions opts) {
  applySafeEnvironment();
  if (worldSize < 1 || rank < 0 || rank >= worldSize)
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {} is not in a world of size {}", rank, worldSize));
  int count = 0;
  DSLC_CUDART(rank, cudaGetDeviceCount(&count));
  if (device < 0 || device >= count)
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {}: device {} does not exist ({} visible)", rank,
                      device, count));
  setDevice(device, rank);
  std::unique_ptr<Communicator> c(new Communicator());
  c->worldSize_ = worldSize;
  c->hostTimeoutMs_ = resolveHostTimeoutMs(opts.hostTimeoutMs);
  LocalRank l;
  l.rank = rank;
  l.device = device;
  c->locals_.push_back(l);
  c->initComms(id);
  c->setupLocals();
  return c;
}

std::unique_ptr<Communicator>
Communicator::createFromEnv(const std::string &rendezvousPath,
                            int64_t rendezvousTimeoutMs, CommOptions opts) {
  auto env = readProcessEnv();
  if (!env)
    raise(ErrorCode::InvalidArgument,
          "createFromEnv: neither RANK/WORLD_SIZE nor OMPI_COMM_WORLD_* nor "
          "PMI_* is set (start the processes with torchrun or mpirun, or use "
          "createAll for one process)");
  std::string path =
      rendezvousPath.empty() ? defaultRendezvousPath() : rendezvousPath;
  int count = 0;
  DSLC_CUDART(env->rank, cudaGetDeviceCount(&count));
  if (count < 1)
    raise(ErrorCode::NoDevice,
          fmt::format("rank {}: no CUDA device", env->rank));
  int device = env->localRank % count;
  UniqueIdBytes id;
  if (env->rank == 0) {
    id = newUniqueId();
    writeUniqueIdFile(path, id, env->worldSize);
  } else {
    try {
      id = readUniqueIdFile(path, env->worldSize, rendezvousTimeoutMs);
    } catch (const Error &e) {
      raise(e.code(), rankPrefix(env->rank) + e.what());
    }
  }
  std::unique_ptr<Communicator> c;
  try {
    c = createRank(env->rank, env->worldSize, device, id, opts);
  } catch (...) {
    if (env->rank == 0)
      std::remove(path.c_str());
    throw;
  }
  // Every rank has joined ncclCommInitRank, so all have read the file.
  if (env->rank == 0)
    std::remove(path.c_str());
  return c;
}

namespace {
/// Whether `device`'s primary context exists (then CUDA has read
/// CUDA_DEVICE_MAX_CONNECTIONS already).
bool primaryContextActive(int device) {
  const DriverApi &cu = driver();
  CUdevice dev = 0;
  DSLC_CU(-1, cu.cuDeviceGet(&dev, device));
  unsigned flags = 0;
  int active = 0;
  DSLC_CU(-1, cu.cuDevicePrimaryCtxGetState(dev, &flags, &active));
  return active != 0;
}

/// The hardware work queues the ranks' streams will get on `device`:
/// CUDA_DEVICE_MAX_CONNECTIONS, set to kMaxVirtualWorld here when unset and
/// still unread, else CUDA's default of 8.
int virtualWorldQueues(int device) {
  constexpr const char *kVar = "CUDA_DEVICE_MAX_CONNECTIONS";
  if (!primaryContextActive(device))
    Communicator::reserveVirtualWorldQueues();
  const char *v = std::getenv(kVar);
  if (!v)
    return 8;
  char *end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (end == v || *end || n < 1)
    raise(ErrorCode::InvalidArgument,
          fmt::format("{}='{}' is not a positive integer", kVar, v));
  return static_cast<int>(std::min<long>(n, kMaxVirtualWorld));
}
} // namespace

std::unique_ptr<Communicator>
Communicator::createVirtual(int worldSize, int device, CommOptions opts) {
  if (worldSize < 1 || worldSize > kMaxVirtualWorld)
    raise(ErrorCode::InvalidArgument,
          fmt::format("a virtual world of {} ranks: the size must be 1..{} "
                      "(one hardware queue of the GPU per rank)",
                      worldSize, kMaxVirtualWorld));
  int count = deviceCount();
  if (count < 1)
    raise(ErrorCode::NoDevice,
          fmt::format("a virtual world of {} ranks needs a GPU; none is "
                      "visible",
                      worldSize));
  if (device < 0 || device >= count)
    raise(ErrorCode::InvalidArgument,
          fmt::format("a virtual world on device {}: it does not exist ({} "
                      "visible)",
                      device, count));
  int queues = virtualWorldQueues(device);
  if (worldSize > queues)
    raise(ErrorCode::InvalidArgument,
          fmt::format("a virtual world of {} ranks on device {} needs a "
                      "hardware queue per rank's stream, and this process "
                      "has {} (CUDA_DEVICE_MAX_CONNECTIONS, read when the "
                      "GPU's context was made): ranks sharing a queue would "
                      "wait for each other's spinning kernels; set "
                      "CUDA_DEVICE_MAX_CONNECTIONS={} before the first CUDA "
                      "call, or use at most {} ranks",
                      worldSize, device, queues, kMaxVirtualWorld, queues));
  std::unique_ptr<Communicator> c(new Communicator());
  c->worldSize_ = worldSize;
  c->virtual_ = true;
  c->hostTimeoutMs_ = resolveHostTimeoutMs(opts.hostTimeoutMs);
  for (int r = 0; r < worldSize; ++r) {
    LocalRank l;
    l.rank = r;
    l.device = device;
    c->locals_.push_back(l);
  }
  c->setupLocals();
  return c;
}

void Communicator::initComms(const UniqueIdBytes &id) {
  ncclUniqueId nid;
  std::memcpy(&nid, id.data(), sizeof(nid));
  // NCCL may read a config until the communicator is ready: keep them alive.
  std::vector<ncclConfig_t> configs(locals_.size(), nonBlockingCommConfig());
  try {
    forEachGrouped([&](int i) {
      LocalRank &l = locals_[i];
      DSLC_NCCL(l.rank, ncclCommInitRankConfig(&l.comm, worldSize_, nid, l.rank,
                                               &configs[i]));
    });
    settle(fmt::format("NCCL communicator initialization "
                       "(ncclCommInitRankConfig, world of {})",
                       worldSize_));
  } catch (...) {
    failed_ = true; // the destructor aborts whatever was created
    throw;
  }
}

void Communicator::settle(const std::string &what, int64_t timeoutMs) {
  std::vector<ncclComm_t> comms;
  std::vector<int> ranks;
  for (const LocalRank &l : locals_)
    if (l.comm) {
      comms.push_back(l.comm);
      ranks.push_back(l.rank);
    }
  try {
    awaitComms(comms, ranks, what, timeoutMs < 0 ? hostTimeoutMs_ : timeoutMs);
  } catch (...) {
    failed_ = true;
    throw;
  }
}

void Communicator::finalizeComms() {
  try {
    forEachGrouped([&](int i) {
      LocalRank &l = locals_[i];
      DSLC_NCCL(l.rank, ncclCommFinalize(l.comm));
    });
  } catch (...) {
    failed_ = true;
    throw;
  }
  settle("NCCL communicator finalization (ncclCommFinalize)");
  finalized_ = true;
}

void Communicator::finalize() {
  if (finalized_)
    return;
  if (virtual_ && !failed_) {
    waitStreams("the end of the run");
    finalized_ = true;
    return;
  }
  if (failed_)
    raise(ErrorCode::Nccl,
          fmt::format("rank {}: cannot finalize the NCCL communicator: an "
                      "earlier operation failed (reported before); it is "
                      "aborted instead",
                      locals_.empty() ? -1 : locals_[0].rank));
  // Every rank reached the end: a peer that died after its last collective
  // is reported here, within the host timeout, not in a silent exit.
  waitStreams("the end of the run");
  barrier();
  finalizeComms();
}

void Communicator::groupStart() { DSLC_NCCL(-1, ncclGroupStart()); }
void Communicator::groupEnd() { DSLC_NCCL(-1, ncclGroupEnd()); }

void Communicator::barrier() {
  if (virtual_) {
    // Every rank is this process's: once every rank's stream has drained,
    // every rank has reached the barrier.
    waitStreams("barrier");
    return;
  }
  forEachGrouped([&](int i) {
    LocalRank &l = locals_[i];
    DSLC_NCCL(l.rank, ncclAllReduce(l.scratch, l.scratch, 1, ncclInt32, ncclSum,
                                    l.comm, l.stream));
  });
  waitStreams("barrier");
}

int Communicator::allReduceMin(const std::vector<int> &perLocal) {
  if (perLocal.size() != locals_.size())
    raise(ErrorCode::InvalidArgument,
          fmt::format("allReduceMin: {} values for {} local ranks",
                      perLocal.size(), locals_.size()));
  if (virtual_) // every rank's value is here
    return *std::min_element(perLocal.begin(), perLocal.end());
  forEach([&](int i) {
    LocalRank &l = locals_[i];
    DSLC_CUDART(l.rank, cudaMemcpy(l.scratch, &perLocal[i], sizeof(int),
                                   cudaMemcpyHostToDevice));
  });
  forEachGrouped([&](int i) {
    LocalRank &l = locals_[i];
    DSLC_NCCL(l.rank, ncclAllReduce(l.scratch, l.scratch, 1, ncclInt32, ncclMin,
                                    l.comm, l.stream));
  });
  waitStreams("allReduceMin");
  int result = 0;
  DSLC_CUDART(locals_[0].rank, cudaSetDevice(locals_[0].device));
  DSLC_CUDART(locals_[0].rank, cudaMemcpy(&result, locals_[0].scratch,
                                          sizeof(int), cudaMemcpyDeviceToHost));
  // Leave the barrier word as barrier() expects it (its value is unused).
  return result;
}

void Communicator::checkAsyncErrors(const std::string &what) {
  for (LocalRank &l : locals_) {
    if (!l.comm) // a virtual world's rank
      continue;
    ncclResult_t async = ncclSuccess;
    ncclResult_t r = ncclCommGetAsyncError(l.comm, &async);
    if (r == ncclSuccess && (async == ncclSuccess || async == ncclInProgress))
      continue;
    failed_ = true;
    ncclResult_t bad = r != ncclSuccess ? r : async;
    raise(ErrorCode::Nccl,
          fmt::format("rank {}: NCCL reported an error while waiting for {}: "
                      "{} (a peer process may have failed)",
                      l.rank, what, ncclGetErrorString(bad)));
  }
}

void Communicator::waitStreams(const std::string &what, int64_t timeoutMs) {
  if (timeoutMs < 0)
    timeoutMs = hostTimeoutMs_;
  auto start = std::chrono::steady_clock::now();
  // Non-blocking communicators: an NCCL call may still be enqueuing its work
  // (ncclInProgress); its stream is not complete before it has.
  settle(what, timeoutMs);
  std::vector<bool> done(locals_.size(), false);
  size_t remaining = locals_.size();
  int64_t polls = 0;
  while (remaining) {
    for (size_t i = 0; i < locals_.size(); ++i) {
      if (done[i])
        continue;
      LocalRank &l = locals_[i];
      setDevice(l.device, l.rank);
      cudaError_t st = cudaStreamQuery(l.stream);
      if (st == cudaSuccess) {
        done[i] = true;
        --remaining;
      } else if (st != cudaErrorNotReady) {
        failed_ = true;
        checkCudart(
            st, fmt::format("cudaStreamQuery (waiting for {})", what).c_str(),
            l.rank);
      }
    }
    if (!remaining)
      break;
    if (++polls % 64 == 0)
      checkAsyncErrors(what);
    auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    if (timeoutMs > 0 && waited >= timeoutMs) {
      failed_ = true;
      std::string ranks;
      for (size_t i = 0; i < locals_.size(); ++i)
        if (!done[i])
          ranks +=
              fmt::format("{}{}", ranks.empty() ? "" : ", ", locals_[i].rank);
      raise(ErrorCode::Timeout,
            fmt::format("rank {}: {} did not finish within {} ms (a peer "
                        "process may have died or hung)",
                        ranks, what, timeoutMs));
    }
    if (polls > 1000)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    else
      std::this_thread::yield();
  }
}

Communicator::~Communicator() {
  auto warn = [](int rank, const char *call, int err) {
    std::fprintf(stderr,
                 "dslc runtime: rank %d: %s failed during teardown (%d)\n",
                 rank, call, err);
  };
  if (!failed_ && !finalized_ && !virtual_) {
    // Not finalized by finalize(): finalize here, bounded; a failure or a
    // timeout aborts the communicators below.
    try {
      finalizeComms();
    } catch (const std::exception &e) {
      std::fprintf(stderr, "dslc runtime: %s\n", e.what());
      failed_ = true;
    }
  }
  for (LocalRank &l : locals_) {
    (void)cudaSetDevice(l.device);
    if (l.stream) {
      if (!failed_)
        (void)cudaStreamSynchronize(l.stream);
      (void)cudaStreamDestroy(l.stream);
    }
    if (l.scratch)
      (void)cudaFree(l.scratch);
    if (l.comm) {
      ncclResult_t r =
          failed_ ? ncclCommAbort(l.comm) : ncclCommDestroy(l.comm);
      if (r != ncclSuccess && r != ncclInProgress)
        warn(l.rank, failed_ ? "ncclCommAbort" : "ncclCommDestroy", r);
    }
  }
  (void)cudaGetLastError();
}

} // namespace dslc::rt
