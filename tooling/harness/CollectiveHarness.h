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

/// Where a harness puts the collective's input and output (its other
/// buffers follow the plan).
struct HarnessLayout {
  /// NCCL-only harness: input and output in the symmetric heap's window
  /// (registered NCCL_WIN_COLL_SYMMETRIC, where NCCL 2.27+ may run its
  /// symmetric kernels) when true, else both cudaMalloc'ed (NCCL's ordinary
  /// path). Ignored with a kernel (its plan decides).
  bool ncclWindow = false;
  /// Copies of the input and output used in turn, call after call (one
  /// set per call, round robin; `tuner bench --l2-cold`): with the copies'
  /// total above the L2 size, every call reads and writes lines the cache
  /// no longer holds. 1: one set (the default).
  int rotatingSets = 1;
};

/// Most rotating sets a harness allocates (bench's L2-cold mode).
constexpr int kMaxRotatingSets = 1024;
/// The rotating sets for L2-cold timing: enough copies of `setBytes` (one
/// input and one output) to exceed twice `l2Bytes`, at least 2, at most
/// kMaxRotatingSets (then the copies' total can stay below L2: small sizes
/// are then only partly cold).
int l2ColdSets(size_t setBytes, size_t l2Bytes);

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
                    int64_t maxN, rt::SymmetricHeap *heap = nullptr,
                    HarnessLayout layout = {});
  /// NCCL only (no kernel): runNccl() for `dtype`; run() throws.
  CollectiveHarness(rt::Communicator &comm, Collective c, rt::DType dtype,
                    int64_t maxN, rt::SymmetricHeap *heap = nullptr,
                    HarnessLayout layout = {});
  /// Heap bytes per rank a harness of `plan` and `layout` needs.
  static size_t heapBytes(const CollectivePlan &plan,
                          const HarnessLayout &layout);
  /// The NCCL-only harness's plan (input and output placed per `layout`).
  static CollectivePlan ncclPlan(Collective c, rt::DType dtype, int world,
                                 int64_t maxN, const HarnessLayout &layout);
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
  /// NCCL in place, as nccl-tests calls it: all-reduce with the output the
  /// input, reduce-scatter writing rank r's shard at its place in the input,
  /// all-gather reading rank r's part from its place in the output. The
  /// timed calls work on their own results (the data drifts, as in
  /// nccl-tests); the result is checked on one call with fresh inputs after
  /// each phase.
  CollectiveResult runNcclInPlace(int64_t n, const RunOptions &options);

  const CollectivePlan &plan() const { return plan_; }
  rt::DType dtype() const { return plan_.dtype; }
  Collective collective() const { return plan_.collective; }
  int64_t maxN() const { return plan_.maxN; }

private:
  void allocate(rt::SymmetricHeap *heap);
  void makeSetTables();
  void fillInputs(int64_t n, uint32_t seed);
  void poisonOutputs(int64_t n);
  /// Local rank i's address of argument `arg` in rotating set `set`, and
  /// its peer table there (null for a plain buffer).
  void *setLocal(int arg, int set, int i) const;
  void *setPeers(int arg, int set, int i) const;
  std::vector<rt::BoundArgs> makeArgs(int64_t n, int set);
  void check(int64_t n, CollectiveResult &res, const char *phase);
  /// Checks the outputs at `outs` (one address per local rank).
  void checkAt(int64_t n, const std::vector<void *> &outs,
               CollectiveResult &res, const std::string &phase);
  /// Rank i's input of N = `n` (seeded), as bytes.
  std::vector<char> inputBytes(int64_t n, int i, uint32_t seed) const;
  /// The rotating set of the next call (callOne(i) for the last local rank
  /// and callAll() advance it).
  int nextSet(bool advance);
  CollectiveResult measure(int64_t n, const RunOptions &o,
                           const std::function<void()> &callAll,
                           const std::function<void(int)> &callOne,
                           const std::function<void()> &wait,
                           CollectiveResult res);
  CollectiveResult begin(int64_t n, const RunOptions &o);
  /// Throws when NCCL cannot run here (a virtual world).
  void requireNccl() const;

  rt::Communicator &comm_;
  rt::Kernel *kernel_ = nullptr;
  CollectivePlan plan_;
  uint32_t seed_ = 0;
  std::unique_ptr<ArgumentMemory> memory_; ///< one buffer per plan_.args
  HarnessLayout layout_;
  /// Bytes between rotating sets of the input and of the output.
  size_t inStride_ = 0, outStride_ = 0;
  /// Per local rank: the peer tables of every rotating set, input sets
  /// then output sets (world entries each); empty with one set.
  std::vector<void *> setTables_;
  int64_t callCount_ = 0;     ///< calls made (round robin over the sets)
  std::vector<char> touched_; ///< per set: called since the last poisoning
};

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_COLLECTIVEHARNESS_H
