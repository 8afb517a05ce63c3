//===- CApi.cpp - C interface of the dslc runtime -------------------------===//
#include "runtime/CApi.h"

#include "contract/BindingPlan.h"
#include "contract/Sizing.h"
#include "contract/TuningCache.h"

#include "runtime/Collectives.h"
#include "runtime/Communicator.h"
#include "runtime/Error.h"
#include "runtime/Floor.h"
#include "runtime/Kernel.h"
#include "runtime/SymmetricHeap.h"
#include "runtime/TuningCache.h"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

using namespace dslc::rt;

struct dslcComm_s {
  std::unique_ptr<Communicator> comm;
};
struct dslcHeap_s {
  std::unique_ptr<SymmetricHeap> heap;
};
struct dslcBuffer_s {
  SymmetricBuffer buf;
  bool imported = false;
};
struct dslcKernel_s {
  std::unique_ptr<Kernel> kernel;
  Communicator *comm = nullptr;
};
struct dslcArgs_s {
  dslcKernel kernel = nullptr;
  int local = 0;
  BoundArgs args;
};

namespace {
thread_local std::string lastError;

template <typename Fn> dslcStatus guard(Fn fn) {
  try {
    fn();
    return DSLC_OK;
  } catch (const Error &e) {
    lastError = e.what();
    return static_cast<dslcStatus>(e.code());
  } catch (const std::bad_alloc &) {
    lastError = "out of host memory";
    return DSLC_ERROR_INTERNAL;
  } catch (const std::exception &e) {
    lastError = fmt::format("internal error: {}", e.what());
    return DSLC_ERROR_INTERNAL;
  } catch (...) {
    lastError = "internal error: unknown exception";
    return DSLC_ERROR_INTERNAL;
  }
}

template <typename T> T *need(T *p, const char *what) {
  if (!p)
    raise(ErrorCode::InvalidArgument, fmt::format("{} is NULL", what));
  return p;
}

/// Copies `s` into buf (truncated to len - 1 bytes, NUL-terminated).
void copyString(const std::string &s, char *buf, size_t len) {
  if (buf && len > 0) {
    size_t n = std::min(len - 1, s.size());
    std::memcpy(buf, s.data(), n);
    buf[n] = 0;
  }
}

/// Copies `text` with its NUL into buf[len], or fails naming `what`.
void copyOut(const std::string &text, char *buf, size_t len, const char *what) {
  if (text.size() + 1 > len)
    raise(ErrorCode::InvalidArgument, fmt::format("{} need {} bytes, {} given",
                                                  what, text.size() + 1, len));
  std::memcpy(buf, text.c_str(), text.size() + 1);
}

void setTensor(dslcArgs a, const char *name, int position, void *data,
               const char *dtype, int rank, const int64_t *sizes, void *peers) {
  need(a, "args");
  auto dt = parseDType(need(dtype, "dtype"));
  if (!dt)
    raise(ErrorCode::InvalidArgument, fmt::format("unknown dtype '{}'", dtype));
  if (rank < 0 || rank > 8 || (rank > 0 && !sizes))
    raise(ErrorCode::InvalidArgument,
          fmt::format("bad tensor rank {} / sizes", rank));
  TensorArg t;
  t.data = data;
  t.dtype = *dt;
  t.sizes.assign(sizes, sizes + rank);
  t.peers = peers;
  if (name)
    a->args.setTensor(std::string(name), t);
  else
    a->args.setTensor(position, t);
}
} // namespace

extern "C" {

const char *dslcGetLastError(void) { return lastError.c_str(); }

const char *dslcStatusName(int status) {
  return errorCodeName(static_cast<ErrorCode>(status));
}

int dslcDeviceCount(void) { return Communicator::deviceCount(); }

dslcStatus dslcGetUniqueId(void *out128) {
  return guard([&] {
    UniqueIdBytes id = Communicator::newUniqueId();
    std::memcpy(need(out128, "out"), id.data(), id.size());
  });
}

dslcStatus dslcCommCreateAll(int ndev, const int *devices, dslcComm *out) {
  return guard([&] {
    need(out, "out");
    std::vector<int> devs;
    if (ndev > 0 && devices)
      devs.assign(devices, devices + ndev);
    else if (ndev > 0)
      for (int d = 0; d < ndev; ++d)
        devs.push_back(d);
    auto c = std::make_unique<dslcComm_s>();
    c->comm = Communicator::createAll(devs);
    *out = c.release();
  });
}

dslcStatus dslcCommCreateRank(int rank, int worldSize, int device,
                              const void *uniqueId128, dslcComm *out) {
  return guard([&] {
    need(out, "out");
    UniqueIdBytes id;
    std::memcpy(id.data(), need(uniqueId128, "uniqueId"), id.size());
    auto c = std::make_unique<dslcComm_s>();
    c->comm = Communicator::createRank(rank, worldSize, device, id);
    *out = c.release();
  });
}

dslcStatus dslcCommCreateFromEnv(const char *rendezvousFile, int64_t timeoutMs,
                                 dslcComm *out) {
  return guard([&] {
    need(out, "out");
    auto c = std::make_unique<dslcComm_s>();
    c->comm = Communicator::createFromEnv(rendezvousFile ? rendezvousFile : "",
                                          timeoutMs < 0 ? 60000 : timeoutMs);
    *out = c.release();
  });
}

dslcStatus dslcCommCreateVirtual(int worldSize, int device, dslcComm *out) {
  return guard([&] {
    need(out, "out");
    auto c = std::make_unique<dslcComm_s>();
    c->comm = Communicator::createVirtual(worldSize, device);
    *out = c.release();
  });
}

dslcStatus dslcCommIsVirtual(dslcComm c, int *out) {
  return guard(
      [&] { *need(out, "out") = need(c, "comm")->comm->isVirtual() ? 1 : 0; });
}

dslcStatus dslcCommDestroy(dslcComm comm) {
  return guard([&] { delete comm; });
}

dslcStatus dslcCommWorldSize(dslcComm c, int *out) {
  return guard([&] { *need(out, "out") = need(c, "comm")->comm->worldSize(); });
}
dslcStatus dslcCommNumLocal(dslcComm c, int *out) {
  return guard([&] { *need(out, "out") = need(c, "comm")->comm->numLocal(); });
}
dslcStatus dslcCommRank(dslcComm c, int local, int *out) {
  return guard(
      [&] { *need(out, "out") = need(c, "comm")->comm->local(local).rank; });
}
dslcStatus dslcCommDevice(dslcComm c, int local, int *out) {
  return guard(
      [&] { *need(out, "out") = need(c, "comm")->comm->local(local).device; });
}
dslcStatus dslcCommStream(dslcComm c, int local, void **out) {
  return guard(
      [&] { *need(out, "out") = need(c, "comm")->comm->local(local).stream; });
}
dslcStatus dslcCommBarrier(dslcComm c) {
  return guard([&] { need(c, "comm")->comm->barrier(); });
}
dslcStatus dslcCommSynchronize(dslcComm c) {
  return guard([&] { need(c, "comm")->comm->waitStreams("synchronize"); });
}

dslcStatus dslcHeapCreate(dslcComm c, size_t bytes, dslcHeap *out) {
  return guard([&] {
    need(out, "out");
    auto h = std::make_unique<dslcHeap_s>();
    h->heap = std::make_unique<SymmetricHeap>(*need(c, "comm")->comm, bytes);
    *out = h.release();
  });
}
dslcStatus dslcHeapDestroy(dslcHeap h) {
  return guard([&] { delete h; });
}
dslcStatus dslcHeapAlloc(dslcHeap h, size_t bytes, size_t align, int zero,
                         dslcBuffer *out) {
  return guard([&] {
    need(out, "out");
    need(h, "heap");
    auto b = std::make_unique<dslcBuffer_s>();
    b->buf = zero ? h->heap->allocSignalPad(bytes)
                  : h->heap->alloc(bytes, align ? align : 256);
    *out = b.release();
  });
}
dslcStatus dslcHeapFree(dslcHeap h, dslcBuffer b) {
  return guard([&] {
    need(h, "heap")->heap->free(need(b, "buffer")->buf);
    delete b;
  });
}
dslcStatus dslcBufferImport(dslcComm c, void *const *local,
                            void *const *peerTables, size_t bytes,
                            dslcBuffer *out) {
  return guard([&] {
    need(out, "out");
    Communicator &comm = *need(c, "comm")->comm;
    std::vector<void *> l(need(local, "local"), local + comm.numLocal());
    std::vector<void *> p(need(peerTables, "peerTables"),
                          peerTables + comm.numLocal());
    auto b = std::make_unique<dslcBuffer_s>();
    b->buf = importSymmetric(comm, l, p, bytes);
    b->imported = true;
    *out = b.release();
  });
}
dslcStatus dslcBufferRelease(dslcBuffer b) {
  return guard([&] {
    if (b && !b->imported)
      raise(ErrorCode::InvalidArgument,
            "dslcBufferRelease: a heap buffer is freed with dslcHeapFree");
    delete b;
  });
}
dslcStatus dslcBufferLocal(dslcBuffer b, int local, void **out) {
  return guard(
      [&] { *need(out, "out") = need(b, "buffer")->buf.local.at(local); });
}
dslcStatus dslcBufferPeers(dslcBuffer b, int local, void **out) {
  return guard(
      [&] { *need(out, "out") = need(b, "buffer")->buf.peers.at(local); });
}

dslcStatus dslcKernelLoad(dslcComm c, const char *cubinPath,
                          const char *metadataPath, int64_t timeoutMs,
                          dslcKernel *out) {
  return guard([&] {
    need(out, "out");
    auto k = std::make_unique<dslcKernel_s>();
    k->comm = need(c, "comm")->comm.get();
    KernelOptions opts;
    opts.timeoutMs = timeoutMs < 0 ? -1 : timeoutMs;
    k->kernel = Kernel::load(*k->comm, need(cubinPath, "cubinPath"),
                             metadataPath ? metadataPath : "", opts);
    *out = k.release();
  });
}
dslcStatus dslcKernelDestroy(dslcKernel k) {
  return guard([&] { delete k; });
}
dslcStatus dslcKernelName(dslcKernel k, const char **out) {
  return guard([&] {
    *need(out, "out") = need(k, "kernel")->kernel->metadata().kernel.c_str();
  });
}
dslcStatus dslcKernelSetTimeoutMs(dslcKernel k, int64_t ms) {
  return guard([&] { need(k, "kernel")->kernel->setTimeoutMs(ms); });
}
dslcStatus dslcKernelGrid(dslcKernel k, int local, dslcArgs a, int64_t *out) {
  return guard([&] {
    *need(out, "out") =
        need(k, "kernel")->kernel->gridFor(local, need(a, "args")->args);
  });
}
dslcStatus dslcKernelLaunch(dslcKernel k, int local, dslcArgs a, void *stream) {
  return guard([&] {
    need(k, "kernel")
        ->kernel->launch(local, need(a, "args")->args,
                         static_cast<cudaStream_t>(stream));
  });
}
dslcStatus dslcKernelSynchronize(dslcKernel k) {
  return guard([&] { need(k, "kernel")->kernel->synchronize(); });
}
dslcStatus dslcKernelErrorRecord(dslcKernel k, int local,
                                 DslcErrorRecord *out) {
  return guard([&] {
    *need(out, "out") = need(k, "kernel")->kernel->errorRecord(local);
  });
}

dslcStatus dslcArgsCreate(dslcKernel k, int local, dslcArgs *out) {
  return guard([&] {
    need(out, "out");
    // With the rank's teams: a peer table naming a rank outside its LSA
    // team is refused when bound.
    *out = new dslcArgs_s{k, local, need(k, "kernel")->kernel->args(local)};
  });
}
dslcStatus dslcArgsDestroy(dslcArgs a) {
  return guard([&] { delete a; });
}
dslcStatus dslcArgsSetTensor(dslcArgs a, const char *name, int position,
                             void *data, const char *dtype, int rank,
                             const int64_t *sizes, void *peers) {
  return guard(
      [&] { setTensor(a, name, position, data, dtype, rank, sizes, peers); });
}
dslcStatus dslcArgsSetInt(dslcArgs a, const char *name, int position,
                          int64_t value) {
  return guard([&] {
    need(a, "args");
    if (name)
      a->args.setInt(std::string(name), value);
    else
      a->args.setInt(position, value);
  });
}
dslcStatus dslcArgsSetFloat(dslcArgs a, const char *name, int position,
                            double value) {
  return guard([&] {
    need(a, "args");
    if (name)
      a->args.setFloat(std::string(name), value);
    else
      a->args.setFloat(position, value);
  });
}
dslcStatus dslcArgsCheck(dslcArgs a) {
  return guard([&] {
    need(a, "args");
    Communicator &comm = *a->kernel->comm;
    a->args.check(comm.worldSize(), comm.local(a->local).rank);
  });
}

} // extern "C"

// Collectives (appended with runtime/Collectives).
struct dslcCollectives_s {
  std::unique_ptr<Collectives> coll;
};

namespace {
DType needDType(const char *dtype) {
  auto dt = parseDType(need(dtype, "dtype"));
  if (!dt)
    raise(ErrorCode::InvalidArgument, fmt::format("unknown dtype '{}'", dtype));
  return *dt;
}
ReduceOp needOp(const char *op) {
  auto o = parseReduceOp(op ? op : "sum");
  if (!o)
    raise(ErrorCode::InvalidArgument, fmt::format("unknown op '{}'", op));
  return *o;
}
CollectiveKind needKind(const char *name) {
  std::string n = need(name, "collective");
  if (std::optional<CollectiveKind> k = parseCollective(n))
    return *k;
  raise(ErrorCode::InvalidArgument, fmt::format("unknown collective '{}'", n));
}
} // namespace

extern "C" {
dslcStatus dslcCollectivesCreate(dslcComm comm, const char *kernelDirs,
                                 const char *cacheDir, size_t stagingBytes,
                                 dslcCollectives *out) {
  return guard([&] {
    need(comm, "comm");
    need(out, "out");
    CollectivesOptions o;
    if (kernelDirs)
      o.kernelDirs = kernelDirs;
    if (cacheDir)
      o.cacheDir = cacheDir;
    o.stagingBytes = stagingBytes;
    auto c = std::make_unique<dslcCollectives_s>();
    c->coll = std::make_unique<Collectives>(*comm->comm, o);
    *out = c.release();
  });
}
dslcStatus dslcCollectivesDestroy(dslcCollectives coll) {
  return guard([&] { delete coll; });
}
dslcStatus dslcAllReduce(dslcCollectives coll, int local, const void *send,
                         void *recv, size_t count, const char *dtype,
                         const char *op, void *stream) {
  return guard([&] {
    need(coll, "collectives")
        ->coll->allReduce(local, send, recv, count, needDType(dtype),
                          needOp(op), static_cast<cudaStream_t>(stream));
  });
}
dslcStatus dslcReduceScatter(dslcCollectives coll, int local, const void *send,
                             void *recv, size_t recvCount, const char *dtype,
                             const char *op, void *stream) {
  return guard([&] {
    need(coll, "collectives")
        ->coll->reduceScatter(local, send, recv, recvCount, needDType(dtype),
                              needOp(op), static_cast<cudaStream_t>(stream));
  });
}
dslcStatus dslcAllGather(dslcCollectives coll, int local, const void *send,
                         void *recv, size_t sendCount, const char *dtype,
                         void *stream) {
  return guard([&] {
    need(coll, "collectives")
        ->coll->allGather(local, send, recv, sendCount, needDType(dtype),
                          static_cast<cudaStream_t>(stream));
  });
}
dslcStatus dslcCollectivesPrepare(dslcCollectives coll, const char *collective,
                                  const size_t *counts, size_t numCounts,
                                  const char *dtype) {
  return guard([&] {
    std::vector<size_t> c(counts, counts + (counts ? numCounts : 0));
    need(coll, "collectives")
        ->coll->prepare(needKind(collective), c, needDType(dtype));
  });
}
dslcStatus dslcCollectivesChoice(dslcCollectives coll, const char *collective,
                                 size_t count, const char *dtype, char *buf,
                                 size_t len) {
  return guard([&] {
    DispatchChoice c =
        need(coll, "collectives")
            ->coll->choose(needKind(collective), count, needDType(dtype));
    copyString(fmt::format("{}: {}", dispatchKindName(c.kind), c.reason), buf,
               len);
  });
}
dslcStatus dslcCollectivesLastCall(dslcCollectives coll, char *buf,
                                   size_t len) {
  return guard([&] {
    const auto &last = need(coll, "collectives")->coll->lastCall();
    copyString(last ? fmt::format("{}: {}", dispatchKindName(last->path),
                                  last->describe())
                    : std::string(),
               buf, len);
  });
}
dslcStatus dslcCommTeams(dslcComm c, int local, int *lsaSize, int *lsaRank,
                         int *numNodes) {
  return guard([&] {
    const RankTeams &t = need(c, "comm")->comm->teams(local);
    if (!t.known())
      raise(ErrorCode::Nccl, fmt::format("rank {}: the LSA team is {}",
                                         t.worldRank, t.describeLsa()));
    if (lsaSize)
      *lsaSize = t.lsaSize;
    if (lsaRank)
      *lsaRank = t.lsaRank;
    if (numNodes)
      *numNodes = t.numNodes();
  });
}
} // extern "C"

// Additions for the Python package (python/dslc).
#include <dlfcn.h>

extern "C" {
dslcStatus dslcNcclLibrary(char *path, size_t len, int *version) {
  return guard([&] {
    int v = 0;
    ncclResult_t r = ncclGetVersion(&v);
    if (r != ncclSuccess)
      raise(ErrorCode::Nccl,
            fmt::format("ncclGetVersion failed: {}", ncclGetErrorString(r)));
    if (version)
      *version = v;
    if (path && len > 0) {
      Dl_info info{};
      std::string file = "(unknown: dladdr failed)";
      if (dladdr(reinterpret_cast<void *>(&ncclGetVersion), &info) &&
          info.dli_fname)
        file = info.dli_fname;
      size_t n = std::min(len - 1, file.size());
      std::memcpy(path, file.data(), n);
      path[n] = 0;
    }
  });
}
dslcStatus dslcArgsNumTiles(dslcArgs a, int64_t *out) {
  return guard([&] { *need(out, "out") = need(a, "args")->args.numTiles(); });
}
dslcStatus dslcCacheDir(const char *given, char *dir, size_t len) {
  return guard([&] {
    dslc::contract::Expected<std::string> d =
        dslc::contract::cacheDir(given ? given : "");
    if (!d)
      raise(ErrorCode::Io, d.error());
    need(dir, "dir");
    if (d->size() + 1 > len)
      raise(ErrorCode::InvalidArgument,
            fmt::format("the cache directory {} needs {} bytes, {} given", *d,
                        d->size() + 1, len));
    std::memcpy(dir, d->c_str(), d->size() + 1);
  });
}
int dslcSizeBucket(int64_t count) { return dslc::contract::sizeBucket(count); }
dslcStatus dslcKernelCheckErrors(dslcKernel k) {
  return guard([&] { need(k, "kernel")->kernel->checkErrorRecords(); });
}
dslcStatus dslcMetadataSpecializedSizes(const char *metadataPath, char *buf,
                                        size_t len) {
  return guard([&] {
    KernelMetadata md = loadMetadataFile(need(metadataPath, "metadataPath"));
    copyOut(dslc::contract::specializedSizesJson(
                dslc::contract::specializedSizes(md)),
            need(buf, "buf"), len, "the specialized sizes");
  });
}
dslcStatus dslcMetadataFillShape(const char *metadataPath, const char *name,
                                 int world, int64_t tiles, int64_t *sizes,
                                 int maxRank, int *rank) {
  return guard([&] {
    KernelMetadata md = loadMetadataFile(need(metadataPath, "metadataPath"));
    int i = md.findArg(need(name, "name"));
    if (i < 0)
      raise(ErrorCode::InvalidArgument,
            fmt::format("kernel {}: no argument '{}'", md.kernel, name));
    if (world < 1 || tiles < 0)
      raise(ErrorCode::InvalidArgument,
            fmt::format("kernel {}: world size {} and tile count {} for '{}'",
                        md.kernel, world, tiles, name));
    const ArgSpec &arg = md.args[i];
    if (arg.role != Role::SignalPad && arg.role != Role::Scratch)
      raise(ErrorCode::InvalidArgument,
            fmt::format("kernel {}: '{}' is a {}, not a signal pad or an LL "
                        "scratch (whose sizes the contract gives)",
                        md.kernel, name, roleName(arg.role)));
    // the binding plan's shape (contract::commShape)
    dslc::contract::Expected<std::vector<int64_t>> comm =
        dslc::contract::commShape(md, i, world, tiles);
    if (!comm)
      raise(ErrorCode::Metadata, comm.error());
    const std::vector<int64_t> &shape = *comm;
    if (static_cast<int>(shape.size()) > maxRank || !sizes)
      raise(ErrorCode::InvalidArgument,
            fmt::format("kernel {}: '{}' has rank {}, room for {} sizes given",
                        md.kernel, name, shape.size(), maxRank));
    std::copy(shape.begin(), shape.end(), sizes);
    *need(rank, "rank") = static_cast<int>(shape.size());
  });
}
dslcStatus dslcBindingPlan(const char *metadataJson, const char *requestJson,
                           char *buf, size_t len) {
  return guard([&] {
    KernelMetadata md =
        parseMetadata(need(metadataJson, "metadataJson"), "<metadata text>");
    dslc::contract::Expected<dslc::contract::BindingRequest> req =
        dslc::contract::readBindingRequest(need(requestJson, "requestJson"));
    if (!req)
      raise(ErrorCode::InvalidArgument, req.error());
    copyOut(dslc::contract::bindingResultJson(
                dslc::contract::planBindingProblems(md, *req)),
            need(buf, "buf"), len, "the binding plan");
  });
}
dslcStatus dslcTuningCacheHas(const char *cacheDir, const char *kernel,
                              const char *sha256, int worldSize,
                              const char *dtype, int64_t count, int *found) {
  return dslcTuningCacheHasShape(cacheDir, kernel, sha256, worldSize, dtype,
                                 count, nullptr, found);
}
dslcStatus dslcTuningCacheHasShape(const char *cacheDir, const char *kernel,
                                   const char *sha256, int worldSize,
                                   const char *dtype, int64_t count,
                                   const char *shapesJson, int *found) {
  return guard([&] {
    *need(found, "found") = 0;
    std::string shape;
    if (shapesJson && *shapesJson) {
      dslc::contract::Expected<std::string> key =
          dslc::contract::shapeKeyOfJson(shapesJson);
      if (!key)
        raise(ErrorCode::InvalidArgument, key.error());
      shape = *key;
    }
    TuningCache cache(cacheDir ? cacheDir : "");
    cache.setWarningHandler([](const std::string &) {});
    int bucket = sizeBucket(count);
    for (const TuningRecord &r : cache.load())
      if (r.key.worldSize == worldSize && r.key.dtype == need(dtype, "dtype") &&
          r.key.bucket == bucket && (shape.empty() || r.key.shape == shape) &&
          dslc::contract::tunedConfigOf(r.value, need(kernel, "kernel"),
                                        need(sha256, "sha256")))
        *found = 1;
  });
}
dslcStatus dslcTunerDeviceInfo(int device, int isVirtual, char *buf,
                               size_t len) {
  return guard([&] {
    cudaDeviceProp prop{};
    if (device < 0 || device >= Communicator::deviceCount() ||
        cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
      (void)cudaGetLastError();
      raise(ErrorCode::NoDevice, fmt::format("no CUDA device {}", device));
    }
    int drv = 0, rtv = 0;
    (void)cudaDriverGetVersion(&drv);
    (void)cudaRuntimeGetVersion(&rtv);
    MemoryRoof roof = deviceMemoryRoof(device);
    nlohmann::json j{
        {"device", dslc::contract::tuningDeviceName(prop.name, isVirtual != 0)},
        {"driver", cudaVersionString(drv, rtv)},
        {"multiprocessors", prop.multiProcessorCount},
        {"memory_bytes_per_s", roof.bytesPerS},
        {"l2_bytes", roof.l2Bytes}};
    copyOut(j.dump(), need(buf, "buf"), len, "the device's description");
  });
}
dslcStatus dslcTimesBelowFloor(int device, double eagerUs, double graphUs,
                               uint64_t bytes, char *why, size_t len) {
  return guard([&] {
    copyOut(phasesBelowFloor(eagerUs, graphUs, static_cast<size_t>(bytes),
                             deviceMemoryRoof(device)),
            need(why, "why"), len, "the reason");
  });
}
} // extern "C"
