//===- KernelHarness.h - Run, check and time any kernel ---------*- C++ -*-===//
//
// Runs a kernel bound by a KernelPlan (KernelPlan.h: every argument from
// its role) on every local rank: inputs filled with seeded values that
// differ per rank and per input (ElementTypes.h, seededElement), outputs
// poisoned (0xff: NaN) before each phase (zeroed before each call when the
// metadata says `zeroed`), pads and scratch zeroed once;
// timed by the harness's one routine (Timing.h) and checked after each
// phase against a Reference: every rank's expected outputs, computed from
// every rank's inputs (regenerated on the host, so no process needs its
// peers' data). Each float output passes within the contract's tolerance
// model (contract/Tolerance.h) for its dtype and the world size; integers
// exactly. Without a reference, float outputs must be fully written (no
// poison left) and free of NaN.
//
//===----------------------------------------------------------------------===//
#ifndef DSLC_TOOLING_HARNESS_KERNELHARNESS_H
#define DSLC_TOOLING_HARNESS_KERNELHARNESS_H

#include "runtime/Communicator.h"
#include "runtime/Kernel.h"
#include "runtime/SymmetricHeap.h"
#include "tooling/harness/Buffers.h"
#include "tooling/harness/KernelPlan.h"
#include "tooling/harness/Timing.h"

#include <memory>
#include <string>
#include <vector>

namespace dslc::run {

/// The values every rank's outputs must hold, for the plan's inputs.
class Reference {
public:
  virtual ~Reference() = default;
  /// Computes the expectation for the inputs of `seed` (collective over the
  /// ranks when it runs kernels: every process calls it at the same point).
  virtual void prepare(const KernelPlan &plan, uint32_t seed) = 0;
  /// Output `arg`'s expected values on `rank`; null when not checked.
  virtual const std::vector<double> *expected(int arg, int rank) const = 0;
  /// "reference ref.py:rmsnorm_ref" (verdicts).
  virtual std::string name() const = 0;
};

/// Host copy of input `arg` of `rank` for `seed` (the harness's bytes).
std::vector<char> hostInput(const KernelPlan &plan, int arg, int rank,
                            uint32_t seed);

/// One output of one rank after one phase.
struct OutputVerdict {
  int rank = 0;
  int arg = 0;
  bool ok = true;
  std::string line; ///< "rank 0: output 'out' (bfloat16[4x8192]): ...: ok"
};

/// Checks a host copy of output `arg` of `rank` against `want` (null: only
/// that a float output holds no NaN or leftover poison).
OutputVerdict checkOutput(const KernelPlan &plan, int arg, int rank,
                          const void *got, const std::vector<double> *want,
                          const std::string &against);

struct KernelResult {
  int64_t failures = 0;     ///< failed output checks over phases and ranks
  std::string firstFailure; ///< "phase: verdict line"
  std::vector<std::string> verdicts; ///< the last phase's, one per output
  TimingStats eager, graph;
  bool ok() const { return failures == 0; }
};

class KernelHarness {
public:
  /// Allocates the plan's buffers from `heap` (plan.heapBytes() free) or a
  /// heap of its own; collective over the ranks.
  KernelHarness(rt::Communicator &comm, rt::Kernel &kernel, KernelPlan plan,
                rt::SymmetricHeap *heap = nullptr);
  ~KernelHarness();
  KernelHarness(const KernelHarness &) = delete;
  KernelHarness &operator=(const KernelHarness &) = delete;

  /// Fills the inputs, then the measured phases, each checked against
  /// `reference` (may be null). A wrong result is in the result; a kernel
  /// error (timed-out wait, CUDA error) throws rt::Error.
  KernelResult run(const RunOptions &options, Reference *reference);
  const KernelPlan &plan() const { return plan_; }

private:
  void fillInputs(uint32_t seed);
  void poisonOutputs();
  /// Zeroes local rank i's outputs the plan fills with Fill::Zero
  /// (torch.zeros) on its stream, before each call: a kernel may add into
  /// them (hl.atomic_add), so every call must start from zeros.
  void zeroOutputs(int i);
  void check(KernelResult &res, Reference *ref, const char *phase);

  rt::Communicator &comm_;
  rt::Kernel &kernel_;
  KernelPlan plan_;
  std::unique_ptr<ArgumentMemory> memory_; ///< one buffer per argument
  std::vector<rt::BoundArgs> args_;
};

} // namespace dslc::run

#endif // DSLC_TOOLING_HARNESS_KERNELHARNESS_H
