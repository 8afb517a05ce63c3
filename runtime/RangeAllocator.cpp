//===- RangeAllocator.cpp - Deterministic offset allocator ----------------===//
#include "runtime/RangeAllocator.h"

#include <iterator>

namespace dslc::rt {

RangeAllocator::RangeAllocator(size_t capacity) : capacity_(capacity) {
  if (capacity)
    free_[0] = capacity;
}

std::optional<size_t> RangeAllocator::allocate(size_t bytes, size_t align) {
  if (bytes == 0 || align == 0 || (align & (align - 1)))
    return std::nullopt;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    size_t start = it->first, size = it->second;
    size_t aligned = (start + align - 1) / align * align;
    if (aligned < start || aligned - start > size ||
        size - (aligned - start) < bytes)
      continue;
    size_t end = aligned + bytes;
    size_t blockEnd = start + size;
    free_.erase(it);
    if (end < blockEnd)
      free_[end] = blockEnd - end;
    // The alignment gap before `aligned` belongs to the block (freed with it).
    live_[aligned] = end - start;
    pad_[aligned] = start;
    used_ += end - start;
    return aligned;
  }
  return std::nullopt;
}

bool RangeAllocator::release(size_t offset) {
  auto it = live_.find(offset);
  if (it == live_.end())
    return false;
  size_t start = pad_[offset];
  size_t size = it->second;
  live_.erase(it);
  pad_.erase(offset);
  used_ -= size;
  auto [pos, inserted] = free_.emplace(start, size);
  (void)inserted;
  // Coalesce with the next and the previous free block.
  auto next = std::next(pos);
  if (next != free_.end() && pos->first + pos->second == next->first) {
    pos->second += next->second;
    free_.erase(next);
  }
  if (pos != free_.begin()) {
    auto prev = std::prev(pos);
    if (prev->first + prev->second == pos->first) {
      prev->second += pos->second;
      free_.erase(pos);
    }
  }
  return true;
}

size_t RangeAllocator::blockSize(size_t offset) const {
  auto it = live_.find(offset);
  if (it == live_.end())
    return 0;
  return it->second - (offset - pad_.at(offset));
}

size_t RangeAllocator::largestFree() const {
  size_t best = 0;
  for (auto &kv : free_)
    best = kv.second > best ? kv.second : best;
  return best;
}

} // namespace dslc::rt
