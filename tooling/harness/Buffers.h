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

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_BUFFERS_H
