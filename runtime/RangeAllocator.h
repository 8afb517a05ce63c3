//===- RangeAllocator.h - Deterministic offset allocator --------*- C++ -*-===//
//
// First-fit allocation of offsets in [0, capacity). Deterministic: ranks that
// make the same sequence of calls get the same offsets, which is what makes a
// symmetric heap symmetric. No GPU involved.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_RUNTIME_RANGEALLOCATOR_H
#define DSLC_RUNTIME_RANGEALLOCATOR_H

#include <cstddef>
#include <map>
#include <optional>

namespace dslc::rt {

class RangeAllocator {
public:
  explicit RangeAllocator(size_t capacity);

  /// An offset aligned to `align` (a power of two) for `bytes` > 0 bytes, or
  /// nullopt when no free block fits.
  std::optional<size_t> allocate(size_t bytes, size_t align);
  /// Frees the block at `offset`; false when no live block starts there.
  bool release(size_t offset);
  /// Size of the live block at `offset` (0 when none).
  size_t blockSize(size_t offset) const;

  size_t capacity() const { return capacity_; }
  size_t used() const { return used_; }
  size_t liveBlocks() const { return live_.size(); }
  size_t largestFree() const;

private:
  size_t capacity_;
  size_t used_ = 0;
  std::map<size_t, size_t> free_; ///< offset -> size, coalesced
  std::map<size_t, size_t> live_; ///< offset -> size (incl. alignment pad)
  std::map<size_t, size_t> pad_;  ///< user offset -> block start
};

} // namespace dslc::rt

#endif // DSLC_RUNTIME_RANGEALLOCATOR_H
