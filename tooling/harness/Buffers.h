//===- Buffers.h - The harnesses' device buffers ----------------*- C++ -*-===//
//
// One argument's memory on every local rank: in the symmetric heap (with
// peer tables), or cudaMalloc'ed per rank. Both harnesses allocate and
// release their buffers here.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_BUFFERS_H
#define DSLC_TOOLING_HARNESS_BUFFERS_H

#include "runtime/Communicator.h"
#include "runtime/SymmetricHeap.h"

#include <memory>
#include <vector>

namespace dslc::run {

struct DeviceBuffer {
  rt::SymmetricBuffer sym;   ///< in the heap
  std::vector<void *> plain; ///< cudaMalloc'ed, per local rank
  /// Local rank i's address (null for a buffer never allocated).
  void *local(int i) const;
  /// Local rank i's peer table (null outside the heap).
  void *peers(int i) const;
};

/// `bytes` per rank: in `heap` when `inHeap` (zeroed on every rank, then a
/// barrier, when `zeroed`), otherwise cudaMalloc'ed and zeroed per rank.
DeviceBuffer allocateBuffer(rt::Communicator &comm, rt::SymmetricHeap &heap,
                            size_t bytes, bool inHeap, bool zeroed);
/// Frees every buffer (heap ones only while the communicator works).
void releaseBuffers(rt::Communicator &comm, rt::SymmetricHeap *heap,
                    std::vector<DeviceBuffer> &buffers) noexcept;

/// What a harness allocates: its heap (its own, or the caller's) and one
/// buffer per argument, freed together.
class ArgumentMemory {
public:
  struct Need {
    bool allocate = false; ///< false: no memory (peer tables, scalars)
    size_t bytes = 0;
    bool inHeap = false;
    bool zeroed = false;
  };
  /// Allocates every need from `heap`, or from a heap of `heapBytes` of
  /// its own when `heap` is null (collective over the ranks); on failure
  /// frees what it allocated and rethrows.
  ArgumentMemory(rt::Communicator &comm, rt::SymmetricHeap *heap,
                 size_t heapBytes, const std::vector<Need> &needs);
  ~ArgumentMemory();
  ArgumentMemory(const ArgumentMemory &) = delete;
  ArgumentMemory &operator=(const ArgumentMemory &) = delete;

  const DeviceBuffer &operator[](size_t arg) const { return buffers_[arg]; }
  /// Every argument's address / peer table on local rank `i`.
  std::vector<void *> locals(int i) const;
  std::vector<void *> peers(int i) const;

private:
  void release() noexcept;
  rt::Communicator &comm_;
  std::unique_ptr<rt::SymmetricHeap> ownHeap_;
  rt::SymmetricHeap *heap_ = nullptr;
  std::vector<DeviceBuffer> buffers_;
};

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_BUFFERS_H
