//===- Buffers.cpp - The harnesses' device buffers ------------------------===//
#include "tooling/harness/Buffers.h"

#include "runtime/Error.h"

namespace dslc::run {

using namespace dslc::rt;

void *DeviceBuffer::local(int i) const {
  return sym.valid() ? sym.local[i] : plain.empty() ? nullptr : plain[i];
}

void *DeviceBuffer::peers(int i) const {
  return sym.valid() ? sym.peers[i] : nullptr;
}

DeviceBuffer allocateBuffer(Communicator &comm, SymmetricHeap &heap,
                            size_t bytes, bool inHeap, bool zeroed) {
  DeviceBuffer b;
  if (inHeap) {
    b.sym = zeroed ? heap.allocSignalPad(bytes) : heap.alloc(bytes, 256);
    return b;
  }
  b.plain.assign(comm.numLocal(), nullptr);
  try {
    comm.forEach([&](int i) {
      int rank = comm.local(i).rank;
      DSLC_CUDART(rank, cudaMalloc(&b.plain[i], bytes));
      DSLC_CUDART(rank, cudaMemset(b.plain[i], 0, bytes));
    });
  } catch (...) {
    std::vector<DeviceBuffer> one = {b};
    releaseBuffers(comm, nullptr, one);
    throw;
  }
  return b;
}

void releaseBuffers(Communicator &comm, SymmetricHeap *heap,
                    std::vector<DeviceBuffer> &buffers) noexcept {
  for (DeviceBuffer &b : buffers) {
    for (int i = 0; i < static_cast<int>(b.plain.size()); ++i) {
      if (!b.plain[i])
        continue;
      (void)cudaSetDevice(comm.local(i).device);
      (void)cudaFree(b.plain[i]);
    }
    b.plain.clear();
    if (b.sym.valid() && heap && !comm.failed()) {
      try {
        heap->free(b.sym);
      } catch (...) {
      }
    }
  }
  buffers.clear();
}

ArgumentMemory::ArgumentMemory(Communicator &comm, SymmetricHeap *heap,
                               size_t heapBytes, const std::vector<Need> &needs)
    : comm_(comm) {
  try {
    if (!heap) {
      ownHeap_ = std::make_unique<SymmetricHeap>(comm_, heapBytes);
      heap = ownHeap_.get();
    }
    heap_ = heap;
    buffers_.resize(needs.size());
    for (size_t j = 0; j < needs.size(); ++j)
      if (needs[j].allocate)
        buffers_[j] = allocateBuffer(comm_, *heap_, needs[j].bytes,
                                     needs[j].inHeap, needs[j].zeroed);
  } catch (...) {
    release();
    throw;
  }
}

ArgumentMemory::~ArgumentMemory() { release(); }

void ArgumentMemory::release() noexcept {
  releaseBuffers(comm_, heap_, buffers_);
  ownHeap_.reset();
  heap_ = nullptr;
}

std::vector<void *> ArgumentMemory::locals(int i) const {
  std::vector<void *> out;
  for (const DeviceBuffer &b : buffers_)
    out.push_back(b.local(i));
  return out;
}

std::vector<void *> ArgumentMemory::peers(int i) const {
  std::vector<void *> out;
  for (const DeviceBuffer &b : buffers_)
    out.push_back(b.peers(i));
  return out;
}

} // namespace dslc::run
