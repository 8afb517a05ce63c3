//===- AllReduceHarness.h - Run and check an all-reduce kernel --*- C++ -*-===//
//
// Drives a one-shot all-reduce kernel with the shape of
// examples/one_shot_all_reduce.py (a symmetric input, a signal pad and its
// peer table, an output) on every local rank: fills the inputs, launches
// back-to-back and through CUDA-graph replays, and checks the output against
// a CPU reference that sums in rank order with a rounding to the element type
// after each addition (as the DSL's `acc += a[tile]` does). Used by dslrun
// and the runtime's GPU tests.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLS_DSLRUN_ALLREDUCEHARNESS_H
#define DSLC_TOOLS_DSLRUN_ALLREDUCEHARNESS_H

#include "runtime/Communicator.h"
#include "runtime/Kernel.h"
#include "runtime/SymmetricHeap.h"

#include <cstdint>
#include <memory>
#include <functional>
#include <string>
#include <vector>

namespace dslc::run {

uint16_t floatToBf16(float f);
float bf16ToFloat(uint16_t h);

/// Which bindable arguments play which part (indices into metadata.args).
/// The parameters of an all-reduce kernel, in one of two shapes:
/// - flag pads (the Helion one-shot): a symmetric input, a uint64 pad table
///   and an int32 [tiles, world] pad;
/// - LL packets: an input (symmetric or not) and a symmetric int64 packet
///   scratch, zeroed once, sized for two parities of world * tiles * block
///   LL16 packets (twice the data).
struct AllReduceRoles {
  int input = -1;    ///< tensor of rank 1 (the output is like it)
  int padTable = -1; ///< uint64 tensor of rank 1: the pad's peer table
  int pad = -1;      ///< int32/uint32 tensor of rank 2: [tiles, world]
  int scratch = -1;  ///< symmetric int64 tensor of rank 1 (LL packets)
  int output = -1;   ///< output of rank 1
  bool packets() const { return scratch >= 0; }
};
/// Throws Error(InvalidArgument) when the kernel does not have that shape.
AllReduceRoles findAllReduceRoles(const rt::KernelMetadata &md);

struct AllReduceResult {
  int64_t n = 0;
  int64_t mismatches = 0;
  std::string firstMismatch;
  double eagerUsPerCall = 0; ///< back-to-back calls, rank 0's stream
  double graphUsPerCall = 0; ///< graph replays, rank 0's stream
  bool ok() const { return mismatches == 0; }
};

class AllReduceHarness {
public:
  /// Reserves symmetric memory for inputs of up to maxN elements.
  AllReduceHarness(rt::Communicator &comm, rt::Kernel &kernel, int64_t maxN);
  ~AllReduceHarness();

  /// `iters` back-to-back calls then (if > 0) `graphReplays` replays of a
  /// graph holding one call; the output is checked after each phase.
  AllReduceResult run(int64_t n, int iters, int graphReplays, uint32_t seed);
  /// The same with ncclAllReduce (sum) on the same buffers, for a
  /// like-for-like comparison in one run.
  AllReduceResult runNccl(int64_t n, int iters, int graphReplays,
                          uint32_t seed);

  rt::SymmetricHeap &heap() { return *heap_; }

private:
  void fillInputs(int64_t n, uint32_t seed);
  void poisonOutputs(int64_t n);
  std::vector<rt::BoundArgs> makeArgs(int64_t n);
  void check(int64_t n, AllReduceResult &res, const char *phase);

  rt::Communicator &comm_;
  rt::Kernel &kernel_;
  AllReduceRoles roles_;
  rt::DType dtype_;
  int64_t maxN_;
  /// Fills inputs, calls `prepare`, then times `iters` eager calls of
  /// `callAll` and `graphReplays` replays of graphs captured from
  /// `callOne(i)` on every local rank, checking the output after each.
  AllReduceResult measure(int64_t n, int iters, int graphReplays,
                          uint32_t seed, const std::function<void()> &prepare,
                          const std::function<void()> &callAll,
                          const std::function<void(int)> &callOne,
                          const std::function<void()> &wait);
  int64_t padRows_ = 0;
  size_t padBytes_ = 0; ///< Pad, or LL scratch, bytes per rank.
  uint32_t seed_ = 0;
  std::unique_ptr<rt::SymmetricHeap> heap_;
  rt::SymmetricBuffer input_, pad_;
  std::vector<void *> out_;
};

} // namespace dslc::run

#endif // DSLC_TOOLS_DSLRUN_ALLREDUCEHARNESS_H
