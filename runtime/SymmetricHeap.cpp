//===- SymmetricHeap.cpp - Symmetric memory over NCCL windows -------------===//
#include "runtime/SymmetricHeap.h"

#include "runtime/Error.h"
#include "runtime/LsaTable.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>

namespace dslc::rt {

namespace {
constexpr size_t kHeapGranularity = size_t(2) << 20;

/// Reads back a peer table and checks it: entry p is non-null and aligned
/// when `teams` says p is a load/store peer (every p when null: tables made
/// elsewhere), 0 otherwise (so a kernel bound to it anyway, which the
/// binding check refuses, would fault on null rather than on a stray
/// address); entry `rank` is the local address.
void validateTable(const LocalRank &l, int worldSize, const void *table,
                   const void *self, const char *what, const RankTeams *teams) {
  std::vector<uint64_t> host(worldSize);
  DSLC_CUDART(l.rank, cudaMemcpy(host.data(), table, worldSize * 8,
                                 cudaMemcpyDeviceToHost));
  for (int p = 0; p < worldSize; ++p) {
    bool peer = !teams || p == l.rank || teams->isLsaPeer(p);
    if (!peer) {
      if (host[p] != 0)
        raise(ErrorCode::Internal,
              fmt::format("rank {}: {}: peer table entry {} ({:#x}) is set, "
                          "but rank {} is outside the LSA team ({})",
                          l.rank, what, p, host[p], p, teams->describeLsa()));
      continue;
    }
    if (host[p] == 0)
      raise(ErrorCode::InvalidArgument,
            fmt::format("rank {}: {}: peer table entry {} is null", l.rank,
                        what, p));
    if (host[p] % kPointerAlignment)
      raise(ErrorCode::InvalidArgument,
            fmt::format("rank {}: {}: peer table entry {} ({:#x}) is not "
                        "{}-byte aligned",
                        l.rank, what, p, host[p], kPointerAlignment));
  }
  if (host[l.rank] != reinterpret_cast<uintptr_t>(self))
    raise(ErrorCode::InvalidArgument,
          fmt::format("rank {}: {}: peer table entry {} is {:#x}, expected "
                      "the local address {:#x}",
                      l.rank, what, l.rank, host[l.rank],
                      reinterpret_cast<uintptr_t>(self)));
}
} // namespace

TensorArg SymmetricBuffer::tensor(int localIndex, DType dtype,
                                  std::vector<int64_t> sizes,
                                  bool withPeers) const {
  if (localIndex < 0 || localIndex >= static_cast<int>(local.size()))
    raise(ErrorCode::InvalidArgument,
          fmt::format("symmetric buffer: local rank index {} out of range "
                      "(0..{})",
                      localIndex, static_cast<int>(local.size()) - 1));
  TensorArg t;
  t.data = local[localIndex];
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  t.peers = withPeers ? peers[localIndex] : nullptr;
  int64_t n = t.numel();
  if (n < 0 || static_cast<uint64_t>(n) * dtypeSize(dtype) > bytes)
    raise(ErrorCode::InvalidArgument,
          fmt::format("symmetric buffer of {} bytes cannot hold {} elements "
                      "of {} ({} bytes)",
                      bytes, n, dtypeName(dtype), n * dtypeSize(dtype)));
  return t;
}

SymmetricHeap::SymmetricHeap(Communicator &comm, size_t bytesPerRank)
    : comm_(comm), alloc_((bytesPerRank + kHeapGranularity - 1) /
                          kHeapGranularity * kHeapGranularity) {
  if (bytesPerRank == 0)
    raise(ErrorCode::InvalidArgument, "symmetric heap: size 0");
  int n = comm.numLocal();
  base_.assign(n, nullptr);
  windows_.assign(n, nullptr);
  if (comm.isVirtual()) {
    // One GPU: W regions of one allocation (sizes checked: W <= 32 and the
    // capacity was rounded from a size_t, so only the product can wrap).
    size_t cap = alloc_.capacity();
    if (cap > SIZE_MAX / static_cast<size_t>(n))
      raise(
          ErrorCode::OutOfMemory,
          fmt::format("symmetric heap: {} ranks x {} bytes overflows", n, cap));
    setDevice(comm.local(0).device, 0);
    cudaError_t err = cudaMalloc(&virtualBlock_, cap * n);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      raise(ErrorCode::OutOfMemory,
            fmt::format("symmetric heap: a virtual world of {} ranks needs "
                        "{} x {} bytes on device {}, which it does not have",
                        n, n, cap, comm.local(0).device));
    }
    DSLC_CUDART(0, err);
    for (int i = 0; i < n; ++i)
      base_[i] = static_cast<char *>(virtualBlock_) + cap * i;
    return;
  }
  try {
    comm.forEach([&](int i) {
      const LocalRank &l = comm.local(i);
      DSLC_NCCL(l.rank, ncclMemAlloc(&base_[i], alloc_.capacity()));
    });
    comm.forEachGrouped([&](int i) {
      const LocalRank &l = comm.local(i);
      DSLC_NCCL(l.rank,
                ncclCommWindowRegister(l.comm, base_[i], alloc_.capacity(),
                                       &windows_[i], NCCL_WIN_COLL_SYMMETRIC));
    });
    // Registration is collective: bounded, a dead peer is an error.
    comm.settle(fmt::format("symmetric window registration "
                            "(ncclCommWindowRegister, {} bytes)",
                            alloc_.capacity()));
    for (int i = 0; i < n; ++i) {
      const LocalRank &l = comm.local(i);
      if (!windows_[i])
        raise(ErrorCode::Nccl,
              fmt::format("rank {}: ncclCommWindowRegister returned no window",
                          l.rank));
      const RankTeams &t = comm.teams(i);
      if (!t.known())
        raise(ErrorCode::Nccl,
              fmt::format("rank {}: symmetric heap: the LSA team is {}, so "
                          "no peer table can be filled",
                          l.rank, t.describeLsa()));
    }
  } catch (...) {
    release();
    throw;
  }
}

SymmetricHeap::~SymmetricHeap() { release(); }

void SymmetricHeap::release() {
  if (virtualBlock_) {
    (void)cudaSetDevice(comm_.local(0).device);
    (void)cudaFree(virtualBlock_);
    virtualBlock_ = nullptr;
    base_.clear();
    windows_.clear();
    return;
  }
  bool anyWindow = false;
  for (ncclWindow_t w : windows_)
    anyWindow |= w != nullptr;
  if (anyWindow && !comm_.failed()) {
    if (comm_.numLocal() > 1)
      (void)ncclGroupStart();
    for (size_t i = 0; i < windows_.size(); ++i) {
      if (!windows_[i])
        continue;
      const LocalRank &l = comm_.local(static_cast<int>(i));
      (void)cudaSetDevice(l.device);
      ncclResult_t r = ncclCommWindowDeregister(l.comm, windows_[i]);
      if (r != ncclSuccess && r != ncclInProgress)
        std::fprintf(stderr,
                     "dslc runtime: rank %d: ncclCommWindowDeregister failed "
                     "during teardown: %s\n",
                     l.rank, ncclGetErrorString(r));
    }
    if (comm_.numLocal() > 1)
      (void)ncclGroupEnd();
    // Bounded like registration; on a failure the communicator is marked
    // failed (settle) and aborted rather than finalized.
    try {
      comm_.settle("symmetric window deregistration "
                   "(ncclCommWindowDeregister)");
    } catch (const std::exception &e) {
      std::fprintf(stderr, "dslc runtime: %s\n", e.what());
    }
  }
  for (size_t i = 0; i < base_.size(); ++i) {
    if (!base_[i])
      continue;
    const LocalRank &l = comm_.local(static_cast<int>(i));
    (void)cudaSetDevice(l.device);
    ncclResult_t r = ncclMemFree(base_[i]);
    if (r != ncclSuccess && !comm_.failed())
      std::fprintf(stderr,
                   "dslc runtime: rank %d: ncclMemFree failed during "
                   "teardown: %s\n",
                   l.rank, ncclGetErrorString(r));
  }
  windows_.clear();
  base_.clear();
}

size_t SymmetricHeap::reserve(size_t bytes, size_t align, const char *what) {
  auto off = alloc_.allocate(bytes, align);
  if (!off)
    raise(ErrorCode::OutOfMemory,
          fmt::format("symmetric heap: cannot allocate {} ({} bytes, aligned "
                      "to {}): capacity {}, in use {}, largest free block {}",
                      what, bytes, align, alloc_.capacity(), alloc_.used(),
                      alloc_.largestFree()));
  return *off;
}

SymmetricBuffer SymmetricHeap::alloc(size_t bytes, size_t align) {
  if (bytes == 0)
    raise(ErrorCode::InvalidArgument, "symmetric heap: allocation of 0 bytes");
  if (align < kPointerAlignment || (align & (align - 1)))
    raise(ErrorCode::InvalidArgument,
          fmt::format("symmetric heap: alignment {} is not a power of two "
                      ">= {}",
                      align, kPointerAlignment));
  int world = comm_.worldSize();
  SymmetricBuffer buf;
  buf.offset = reserve(bytes, align, "a buffer");
  try {
    buf.tableOffset = reserve(world * sizeof(uint64_t), 16, "a peer table");
  } catch (...) {
    alloc_.release(buf.offset);
    throw;
  }
  buf.bytes = bytes;
  buf.owner = this;
  int n = comm_.numLocal();
  buf.local.resize(n);
  buf.peers.resize(n);
  for (int i = 0; i < n; ++i) {
    char *base = static_cast<char *>(base_[i]);
    buf.local[i] = base + buf.offset;
    buf.peers[i] = base + buf.tableOffset;
  }
  try {
    fillPeerTables(buf);
    comm_.forEach([&](int i) {
      validateTable(comm_.local(i), world, buf.peers[i], buf.local[i],
                    "symmetric heap", &comm_.teams(i));
    });
  } catch (...) {
    alloc_.release(buf.offset);
    alloc_.release(buf.tableOffset);
    throw;
  }
  return buf;
}

void SymmetricHeap::fillPeerTables(const SymmetricBuffer &buf) {
  int world = comm_.worldSize();
  if (comm_.isVirtual()) {
    // Every rank's region is in this process: the tables come from here.
    std::vector<uint64_t> table(world);
    for (int p = 0; p < world; ++p)
      table[p] = reinterpret_cast<uintptr_t>(buf.local[p]);
    comm_.forEach([&](int i) {
      DSLC_CUDART(i,
                  cudaMemcpy(buf.peers[i], table.data(),
                             world * sizeof(uint64_t), cudaMemcpyHostToDevice));
    });
    return;
  }
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    const RankTeams &t = comm_.teams(i);
    enqueueFillPeerTable(windows_[i], buf.offset, world, t.lsaFirst(),
                         t.lsaSize, static_cast<uint64_t *>(buf.peers[i]),
                         l.rank, buf.local[i], l.stream);
  });
  comm_.waitStreams("peer table fill");
}

void SymmetricHeap::zero(const SymmetricBuffer &buf) {
  if (buf.owner != this)
    raise(ErrorCode::InvalidArgument,
          "symmetric heap: zero() of a buffer from another heap");
  comm_.forEach([&](int i) {
    const LocalRank &l = comm_.local(i);
    DSLC_CUDART(l.rank, cudaMemsetAsync(buf.local[i], 0, buf.bytes, l.stream));
  });
  comm_.waitStreams("signal pad zeroing");
  comm_.barrier();
}

SymmetricBuffer SymmetricHeap::allocSignalPad(size_t bytes) {
  SymmetricBuffer buf = alloc(bytes, 256);
  try {
    zero(buf);
  } catch (...) {
    free(buf);
    throw;
  }
  return buf;
}

void SymmetricHeap::free(SymmetricBuffer &buf) {
  if (!buf.valid())
    raise(ErrorCode::InvalidArgument, "symmetric heap: free() of an empty "
                                      "buffer (freed twice?)");
  if (buf.owner != this)
    raise(ErrorCode::InvalidArgument,
          "symmetric heap: free() of a buffer this heap did not allocate");
  if (!alloc_.release(buf.offset) || !alloc_.release(buf.tableOffset))
    raise(ErrorCode::InvalidArgument,
          fmt::format("symmetric heap: free() of a buffer at offset {} that "
                      "is not live (freed twice?)",
                      buf.offset));
  buf = SymmetricBuffer();
}

SymmetricBuffer importSymmetric(Communicator &comm,
                                const std::vector<void *> &local,
                                const std::vector<void *> &peerTables,
                                size_t bytes) {
  int n = comm.numLocal();
  if (static_cast<int>(local.size()) != n ||
      static_cast<int>(peerTables.size()) != n)
    raise(ErrorCode::InvalidArgument,
          fmt::format("importSymmetric: {} addresses and {} tables given, "
                      "this process drives {} ranks",
                      local.size(), peerTables.size(), n));
  SymmetricBuffer buf;
  buf.bytes = bytes;
  buf.local = local;
  buf.peers = peerTables;
  comm.forEach([&](int i) {
    const LocalRank &l = comm.local(i);
    if (!local[i] || !peerTables[i])
      raise(ErrorCode::InvalidArgument,
            fmt::format("rank {}: importSymmetric: null address or table",
                        l.rank));
    if (reinterpret_cast<uintptr_t>(local[i]) % kPointerAlignment)
      raise(ErrorCode::InvalidArgument,
            fmt::format("rank {}: importSymmetric: address {} is not "
                        "{}-byte aligned",
                        l.rank, local[i], kPointerAlignment));
    validateTable(l, comm.worldSize(), peerTables[i], local[i],
                  "importSymmetric", nullptr);
  });
  return buf;
}

} // namespace dslc::rt
