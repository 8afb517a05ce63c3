//===- Communicator.cpp - NCCL communicator over the local GPUs -----------===//
#include "runtime/Communicator.h"

#include "runtime/Error.h"

#include <fmt/format.h>

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

static int64_t defaultHostTimeout(int64_t requested) {
  if (requested >= 0)
    return requested;
  if (const char *env = std::getenv("DSLC_HOST_TIMEOUT_MS")) {
    char *end = nullptr;
    long long v = std::strtoll(env, &end, 10);
    if (end == env || *end || v < 0)
      raise(ErrorCode::InvalidArgument,
            fmt::format("DSLC_HOST_TIMEOUT_MS='{}' is not a non-negative "
                        "integer",
                        env));
    return v;
  }
  return 60000;
}

void Communicator::setupLocals(CommOptions opts) {
  hostTimeoutMs_ = defaultHostTimeout(opts.hostTimeoutMs);
  for (LocalRank &l : locals_) {
    setDevice(l.device, l.rank);
    DSLC_CUDART(l.rank, cudaStreamCreateWithFlags(&l.stream,
                                                  cudaStreamNonBlocking));
    DSLC_CUDART(l.rank, cudaMalloc(reinterpret_cast<void **>(&l.scratch), 16));
    DSLC_CUDART(l.rank, cudaMemset(l.scratch, 0, 16));
    DSLC_CUDART(l.rank, cudaDeviceGetAttribute(
                            &l.numSms, cudaDevAttrMultiProcessorCount, l.device));
    DSLC_CUDART(l.rank, cudaDeviceGetAttribute(
                            &l.ccMajor, cudaDevAttrComputeCapabilityMajor,
                            l.device));
    DSLC_CUDART(l.rank, cudaDeviceGetAttribute(
                            &l.ccMinor, cudaDevAttrComputeCapabilityMinor,
                            l.device));
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
  std::vector<ncclComm_t> comms(devices.size());
  DSLC_NCCL(-1, ncclCommInitAll(comms.data(), c->worldSize_, devices.data()));
  for (size_t i = 0; i < devices.size(); ++i) {
    LocalRank l;
    l.rank = static_cast<int>(i);
    l.device = devices[i];
    l.comm = comms[i];
    c->locals_.push_back(l);
  }
  c->setupLocals(opts);
  return c;
}

std::unique_ptr<Communicator>
Communicator::createRank(int rank, int worldSize, int device,
                         const UniqueIdBytes &id, CommOptions opts) {
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
  ncclUniqueId nid;
  std::memcpy(&nid, id.data(), sizeof(nid));
  std::unique_ptr<Communicator> c(new Communicator());
  c->worldSize_ = worldSize;
  LocalRank l;
  l.rank = rank;
  l.device = device;
  DSLC_NCCL(rank, ncclCommInitRank(&l.comm, worldSize, nid, rank));
  c->locals_.push_back(l);
  c->setupLocals(opts);
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
    raise(ErrorCode::NoDevice, fmt::format("rank {}: no CUDA device", env->rank));
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

void Communicator::groupStart() { DSLC_NCCL(-1, ncclGroupStart()); }
void Communicator::groupEnd() { DSLC_NCCL(-1, ncclGroupEnd()); }

void Communicator::barrier() {
  forEachGrouped([&](int i) {
    LocalRank &l = locals_[i];
    DSLC_NCCL(l.rank, ncclAllReduce(l.scratch, l.scratch, 1, ncclInt32,
                                    ncclSum, l.comm, l.stream));
  });
  waitStreams("barrier");
}

int Communicator::allReduceMin(const std::vector<int> &perLocal) {
  if (perLocal.size() != locals_.size())
    raise(ErrorCode::InvalidArgument,
          fmt::format("allReduceMin: {} values for {} local ranks",
                      perLocal.size(), locals_.size()));
  forEach([&](int i) {
    LocalRank &l = locals_[i];
    DSLC_CUDART(l.rank, cudaMemcpy(l.scratch, &perLocal[i], sizeof(int),
                                   cudaMemcpyHostToDevice));
  });
  forEachGrouped([&](int i) {
    LocalRank &l = locals_[i];
    DSLC_NCCL(l.rank, ncclAllReduce(l.scratch, l.scratch, 1, ncclInt32,
                                    ncclMin, l.comm, l.stream));
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
        checkCudart(st, fmt::format("cudaStreamQuery (waiting for {})", what)
                            .c_str(),
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
          ranks += fmt::format("{}{}", ranks.empty() ? "" : ", ",
                               locals_[i].rank);
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
    std::fprintf(stderr, "dslc runtime: rank %d: %s failed during teardown (%d)\n",
                 rank, call, err);
  };
  if (!failed_) {
    // Finalize collectively (grouped when one thread drives several ranks).
    if (numLocal() > 1)
      (void)ncclGroupStart();
    for (LocalRank &l : locals_) {
      (void)cudaSetDevice(l.device);
      ncclResult_t r = ncclCommFinalize(l.comm);
      if (r != ncclSuccess && r != ncclInProgress) {
        warn(l.rank, "ncclCommFinalize", r);
        failed_ = true;
      }
    }
    if (numLocal() > 1)
      (void)ncclGroupEnd();
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
      ncclResult_t r = failed_ ? ncclCommAbort(l.comm) : ncclCommDestroy(l.comm);
      if (r != ncclSuccess)
        warn(l.rank, failed_ ? "ncclCommAbort" : "ncclCommDestroy", r);
    }
  }
  (void)cudaGetLastError();
}

} // namespace dslc::rt
