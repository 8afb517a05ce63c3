//===- Memory.cpp - Host memory of every simulated rank ------------------===//

#include "compiler/Simulator/Memory.h"

#include <cmath>

using namespace dslc::sim;

/// Simulated addresses: kAddressTag in the top 16 bits, the buffer id + 1
/// in the next 16, the byte offset in the low 32.
static constexpr uint64_t kAddressTag = 0xd51cull << 48;

Buffer &Heap::allocate(unsigned rank, const std::string &name, Role role,
                       ElemType type, std::vector<int64_t> sizes) {
  auto b = std::make_unique<Buffer>();
  b->id = static_cast<unsigned>(buffers.size());
  b->rank = rank;
  b->name = name;
  b->role = role;
  b->type = type;
  b->sizes = std::move(sizes);
  b->numel = 1;
  for (int64_t s : b->sizes)
    b->numel *= s;
  if (b->isFloat())
    b->f.assign(b->numel, std::nan(""));
  else
    b->i.assign(b->numel, 0);
  if (role == Role::Output)
    b->writtenIn.assign(b->numel, -1);
  buffers.push_back(std::move(b));
  return *buffers.back();
}

Buffer *Heap::lookup(unsigned rank, const std::string &name) {
  for (auto &b : buffers)
    if (b->rank == rank && b->name == name)
      return b.get();
  return nullptr;
}

uint64_t Heap::addressOf(const Buffer &buffer) const {
  return kAddressTag | (uint64_t(buffer.id + 1) << 32);
}

Buffer *Heap::resolve(uint64_t address) {
  if ((address & (0xffffull << 48)) != kAddressTag)
    return nullptr;
  uint64_t id = (address >> 32) & 0xffff;
  if (id == 0 || id > buffers.size() || (address & 0xffffffffull) != 0)
    return nullptr;
  return buffers[id - 1].get();
}
