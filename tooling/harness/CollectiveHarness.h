//===- CollectiveHarness.h - Run, check and time collective kernels -*- C++
//-*-===//
//
// Drives a dslc kernel that implements a collective (all-reduce,
// reduce-scatter, all-gather) on every local rank, and the NCCL collective
// of the same kind on the same buffers, through one routine: inputs filled
// (random, seeded, different per rank), outputs poisoned (0xff bytes: NaN)
// before each phase, back-to-back calls and CUDA-graph replays timed with
// events on the first local rank's stream (R repetitions, median and
// minimum), the output checked against a CPU reference after each phase.
// Used by dslrun, the runtime's GPU tests, the tuner and the benchmarks.
//
// How each argument is bound, and the shapes per collective, are the
// runtime's collective plan (runtime/CollectivePlan.h: roles from the
// metadata, sizes from the contract's rules).
//
// Checks. Sums (all_reduce, reduce_scatter): an element passes when it is
// finite and within (world / 2, at least 1) ulps of the element type, taken
// at the magnitude sum |x_r|, of the exact sum. That bound holds for any
// summation order with the accumulator in fp32 (the DSL examples' `acc`) or
// in the element type (the Helion one-shot's `acc += a[tile]` in bf16), so
// either kind of kernel passes and a lost or doubled contribution does not.
// all_gather: bitwise equal.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_COLLECTIVEHARNESS_H
#define DSLC_TOOLING_HARNESS_COLLECTIVEHARNESS_H

#include "runtime/CollectivePlan.h"
#include "runtime/Communicator.h"
#include "runtime/Kernel.h"
#include "runtime/Metadata.h"
#include "runtime/SymmetricHeap.h"
#include "tooling/harness/Buffers.h"
#include "tooling/harness/ElementTypes.h"
#include "tooling/harness/Timing.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dslc::run {

// The plan's vocabulary, in the harness's namespace.
using Collective = rt::CollectiveKind;
using rt::ArgPlan;
using rt::ArgRole;
using rt::argRoleName;
using rt::bindCollective;
using rt::collectiveName;
using rt::CollectivePlan;
using rt::CollectiveShape;
using rt::collectiveShape;
using rt::parseCollective;
using rt::planCollective;

/// Elements (of `elementBytes` each) in which `a` and `b` differ bitwise.
/// The harness uses it to require that all-reduce and all-gather results
/// are identical on every local rank.
int64_t countBitwiseDifferences(const void *a, const void *b, int64_t count,
                                size_t elementBytes);

/// Element `k` of rank `rank`'s input for `seed` (what the harness fills:
/// multiples of 1/37 in [-27, 27], representable in `t`).
float collectiveInput(uint32_t seed, int rank, int64_t k, rt::DType t);
/// Checks one rank's output for N = `n` (a host copy of its elements)
/// against the reference (header comment); returns the number of wrong
/// elements and, when `first` is given, describes the first one ("element K
/// of M: got G, expected E (tolerance T)"). Needs no GPU.
int64_t checkCollectiveOutput(Collective c, rt::DType t, int world, int rank,
                              uint32_t seed, int64_t n, const void *out,
                              std::string *first);

struct CollectiveResult {
  Collective collective = Collective::AllReduce;
  rt::DType dtype = rt::DType::BFloat16;
  int64_t n = 0;
  int64_t mismatches = 0;    ///< over both phases and every local rank
  std::string firstMismatch; ///< "phase: rank R: element K of M: ..."
  /// Set (and nothing run) when the arguments for this size violate the
  /// kernel's constraints or binding checks (e.g. a tuning candidate that
  /// cannot run this size).
  std::string error;
  TimingStats eager, graph;
  bool ok() const { return mismatches == 0 && error.empty(); }
};

class CollectiveHarness {
public:
  /// For `kernel`, sizes up to `maxN` (total elements). Allocates its
  /// buffers from `heap` when given (at least plan().heapBytes() free; the
  /// caller keeps it alive), otherwise from a heap of its own. Collective
  /// over the ranks. Throws Error(InvalidArgument) for an unfit kernel.
  CollectiveHarness(rt::Communicator &comm, rt::Kernel &kernel, Collective c,
                    int64_t maxN, rt::SymmetricHeap *heap = nullptr);
  /// NCCL only (no kernel): runNccl() for `dtype`; run() throws.
  CollectiveHarness(rt::Communicator &comm, Collective c, rt::DType dtype,
                    int64_t maxN, rt::SymmetricHeap *heap = nullptr);
  ~CollectiveHarness();
  CollectiveHarness(const CollectiveHarness &) = delete;
  CollectiveHarness &operator=(const CollectiveHarness &) = delete;

  /// Runs the kernel for N = `n`: options.repetitions timed loops of
  /// `iters` back-to-back calls, then of `graphReplays` replays of a graph
  /// holding one call; the output is checked after each phase. A wrong
  /// result is reported in the result, not thrown; a kernel error (timed-out
  /// wait, CUDA error) throws rt::Error, and an `n` outside 1..maxN or unfit
  /// for the collective throws Error(InvalidArgument).
  CollectiveResult run(int64_t n, const RunOptions &options);
  /// The same with ncclAllReduce (sum) / ncclReduceScatter (sum) /
  /// ncclAllGather on the same input and output buffers.
  CollectiveResult runNccl(int64_t n, const RunOptions &options);

  const CollectivePlan &plan() const { return plan_; }
  rt::DType dtype() const { return plan_.dtype; }
  Collective collective() const { return plan_.collective; }
  int64_t maxN() const { return plan_.maxN; }

private:
  void allocate(rt::SymmetricHeap *heap);
  void fillInputs(int64_t n, uint32_t seed);
  void poisonOutputs(int64_t n);
  std::vector<rt::BoundArgs> makeArgs(int64_t n);
  void check(int64_t n, CollectiveResult &res, const char *phase);
  CollectiveResult measure(int64_t n, const RunOptions &o,
                           const std::function<void()> &callAll,
                           const std::function<void(int)> &callOne,
                           const std::function<void()> &wait,
                           CollectiveResult res);
  CollectiveResult begin(int64_t n, const RunOptions &o);

  rt::Communicator &comm_;
  rt::Kernel *kernel_ = nullptr;
  CollectivePlan plan_;
  uint32_t seed_ = 0;
  std::unique_ptr<ArgumentMemory> memory_; ///< one buffer per plan_.args
};

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_COLLECTIVEHARNESS_H
