//===- SymmetricHeap.h - Symmetric memory over NCCL windows -----*- C++ -*-===//
//
// A SymmetricHeap reserves the same number of bytes on every rank
// (ncclMemAlloc) and registers them as one NCCL symmetric window
// (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC). Buffers are carved from
// it at the same offset on every rank (the ranks must allocate in the same
// order, as with any symmetric allocator); each buffer comes with a device
// table of the world's addresses for it, filled once from ncclGetLsaPointer
// and carved from the heap too. Signal pads are buffers zeroed on every rank
// before any rank can signal into them.
//
// In a virtual world (Communicator::createVirtual) the heap is one device
// allocation carved into one region per rank, with no NCCL window; peer
// tables hold the regions' addresses, written from the host.
//
// importSymmetric() wraps peer tables made elsewhere (PyTorch symmetric
// memory's buffer_ptrs_dev / signal_pad_ptrs_dev) after checking them.
//
// A heap must be destroyed before its Communicator.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_SYMMETRICHEAP_H
#define DSLC_RUNTIME_SYMMETRICHEAP_H

#include "runtime/Binding.h"
#include "runtime/Communicator.h"
#include "runtime/RangeAllocator.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dslc::rt {

class SymmetricHeap;

struct SymmetricBuffer {
  size_t offset = 0;
  size_t bytes = 0;
  std::vector<void *> local; ///< per local rank: this rank's address
  std::vector<void *> peers; ///< per local rank: device table of world addrs
  size_t tableOffset = 0;
  const SymmetricHeap *owner = nullptr; ///< null: imported

  bool valid() const { return !local.empty(); }
  /// A tensor view of this buffer on local rank `localIndex` (with the peer
  /// table when `withPeers`). Throws when the tensor does not fit in it.
  TensorArg tensor(int localIndex, DType dtype, std::vector<int64_t> sizes,
                   bool withPeers = true) const;
};

class SymmetricHeap {
public:
  /// Collective over the world: every rank reserves `bytesPerRank` (rounded
  /// up to 2 MiB) and registers it.
  SymmetricHeap(Communicator &comm, size_t bytesPerRank);
  ~SymmetricHeap();
  SymmetricHeap(const SymmetricHeap &) = delete;
  SymmetricHeap &operator=(const SymmetricHeap &) = delete;

  /// A buffer of `bytes` at an offset aligned to `align` (a power of two, at
  /// least 16). Throws Error(OutOfMemory) when the heap cannot hold it.
  SymmetricBuffer alloc(size_t bytes, size_t align = 256);
  /// A buffer zeroed on every rank; returns after a world barrier, so no
  /// peer can signal into it before it is zero.
  SymmetricBuffer allocSignalPad(size_t bytes);
  /// Zeroes the buffer on every local rank, then a world barrier.
  void zero(const SymmetricBuffer &buf);
  /// Returns the buffer's space (and its peer table's). The caller makes
  /// sure no kernel still uses it. Throws on a foreign or freed buffer.
  void free(SymmetricBuffer &buf);

  size_t capacity() const { return alloc_.capacity(); }
  size_t used() const { return alloc_.used(); }
  size_t liveBuffers() const { return alloc_.liveBlocks() / 2; }
  Communicator &comm() { return comm_; }

private:
  size_t reserve(size_t bytes, size_t align, const char *what);
  void release();

  Communicator &comm_;
  RangeAllocator alloc_;
  void fillPeerTables(const SymmetricBuffer &buf);

  std::vector<void *> base_;
  std::vector<ncclWindow_t> windows_;
  void *virtualBlock_ = nullptr; ///< a virtual world's regions, one block
};

/// Wraps addresses and peer tables made elsewhere (one per local rank,
/// `bytes` long). Checks each table: world-size entries, none null, all
/// 16-byte aligned, entry `rank` equal to the local address.
SymmetricBuffer importSymmetric(Communicator &comm,
                                const std::vector<void *> &local,
                                const std::vector<void *> &peerTables,
                                size_t bytes);

} // namespace dslc::rt

#endif // DSLC_RUNTIME_SYMMETRICHEAP_H
